package opt

import (
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// NarrowIndices gives a loop whose index arithmetic is 64-bit (Go's int)
// a second version that computes it in 32 bits, and runs that version
// when a test before the loop proves every value it narrows fits in
// int32: i*m+j with i < n and j < m once n*m does. Each narrowed value's
// bounds come from the loop analysis (index32bounds.go); the test is
// computed once per thread, from parameters and lengths. The 64-bit loop
// stays for inputs too large, so results and faults are Go's whatever the
// sizes: a narrowed value is exactly the 64-bit one, and is sign-extended
// back to 64 bits where something else reads it (an element address, a
// bounds check, a store).
//
// What narrows: 64-bit adds, subtracts, multiplies, negations, moves,
// signed minimums and maximums, shifts by a constant below 32 and
// conversions between int64 and uint64, whose results are all a
// register's assignments in the loop, and the comparisons of such
// registers (loop tests). A register the loop does not narrow is
// truncated where a narrowed instruction reads it, when its value there
// is bounded too. Only loops at the top of a nest are
// versioned, with the loops inside them, and only where a multiply of
// two variables narrows, so code grows only where 64-bit index arithmetic
// was. A loop that holds other loops is versioned only where HoistChecks
// left a checked copy to fall back on, which costs no code: copying a
// whole nest beside its 64-bit version costs registers that the suite's
// matrix kernels cannot spare. A loop whose test would take more than
// maxIndex32Tests comparisons stays as it is.
// The copies that HoistChecks keeps for failing checks are left as they
// are, since they run only to fault; where a loop has one, it is also
// what runs when the test fails, and the 64-bit loop without checks goes.
func NarrowIndices(t *ir.Task) {
	an := analysis.New(t)
	var plans []*index32Plan
	for _, lp := range an.Loops {
		if lp.Depth != 1 || t.Blocks[lp.Header].Checked {
			continue
		}
		if p := planIndex32(an, lp); p != nil && (len(lp.Children) == 0 || p.checkedCopy() != lp.Header) {
			// Everything the analysis answers is asked before the task
			// changes: the copies only add blocks and registers.
			regs := len(t.Regs)
			if p.prepare(); p.tests > maxIndex32Tests {
				t.Regs = t.Regs[:regs]
				continue
			}
			plans = append(plans, p)
		}
	}
	narrowed, nested := 0, false
	for _, p := range plans {
		nested = nested || len(p.lp.Children) > 0
		p.apply()
		narrowed += len(p.regs)
	}
	// The 32-bit copy is what runs; the 64-bit loop beside it runs only
	// for sizes past int32, yet without a limit ptxas gives every thread
	// the registers either needs, and then some: with the test before
	// the loop down to a comparison or two, Matmul and Blur took 35 and
	// 37 registers where 28 and 32 were live at most, a quarter of the
	// threads of a multiprocessor lost. Under the limit the suite's
	// versioned kernels fit with nothing spilled, except where the loop
	// narrows many values: the 64-bit loop then needs that many 64-bit
	// registers, and ptxas, short of them, spilled values both loops read
	// (Conv3D narrows 80 and spilled; Blur, narrowing 70, fits in 32
	// with nothing spilled). A loop with loops inside keeps ptxas's count:
	// its inner loop, unrolled with its loads in flight, is what needs
	// the registers, and under the limit Gemm, MatmulAcc and TriMul
	// spilled in it. Past maxCappedNarrowed the limit is looser rather
	// than gone: Conv3D, narrowing 86, spilled into its 32-bit loop at 32
	// registers, yet at 40 spills only in the 64-bit loop, where ptxas
	// alone took 47 and a multiprocessor held 1,280 threads of 256-thread
	// blocks where 40 lets it hold 1,536.
	if len(plans) > 0 && !nested && t.Kind == ir.Parallel && t.MaxRegs == 0 {
		switch {
		case narrowed <= maxCappedNarrowed:
			t.MaxRegs = fullOccupancyRegs
		case narrowed <= maxLooselyCappedNarrowed:
			t.MaxRegs = threeQuarterOccupancyRegs
		}
	}
	// HoistChecks' record of its copies has no reader after this pass,
	// and goes: the passes after it copy and renumber blocks without
	// keeping it.
	for _, b := range t.Blocks {
		b.Checked, b.Fallback = false, 0
	}
}

// maxIndex32Tests is the most comparisons a loop's test may take. Every
// partial sum of every narrowed index is tested, and a register-blocked
// nest unrolled to hundreds of indices makes a test longer than its
// loop: example/sgemm's block loop took 1,226 comparisons, and its 32-bit
// copy's inner loop came out longer than the 64-bit one, at more
// registers. The block-level examples' loops take under 100.
const maxIndex32Tests = 256

// index32Plan is what NarrowIndices narrows in one loop.
type index32Plan struct {
	an    *analysis.Analysis
	lp    *analysis.Loop
	entry int                    // the one block outside the loop that enters it
	instr map[analysis.Site]bool // the narrowed instructions
	regs  map[ir.Reg]bool        // the narrowed registers
	// liveIn are the narrowed registers whose value on entry the loop
	// reads, truncated before it; liveOut those read after it.
	liveIn, liveOut []ir.Reg
	guard           *ir.Block // the test, not yet in the task
	ok              ir.Arg    // its result
	tests           int       // the comparisons it makes
	fallback        int       // the loop to run when it fails
	// counters are the nest counters narrowed by their own tests
	// (index32counters.go), counterSites their assignments and copies.
	counters     []*nestCounter
	counterSites map[analysis.Site]bool
}

func planIndex32(an *analysis.Analysis, lp *analysis.Loop) *index32Plan {
	var entries []int
	for _, p := range an.Preds[lp.Header] {
		if !lp.Has(p) {
			entries = append(entries, p)
		}
	}
	if len(entries) != 1 {
		return nil
	}
	p := &index32Plan{an: an, lp: lp, entry: entries[0], instr: map[analysis.Site]bool{}, regs: map[ir.Reg]bool{}}
	dry := newBoundsBuilder(an, nil, p.entry)
	for _, bi := range lp.Blocks {
		for i := range an.Task.Blocks[bi].Instrs {
			s := analysis.Site{Block: bi, At: i}
			if in := an.Instr(s); narrowableArith(in) && p.resultFits(dry, s) {
				p.instr[s] = true
				p.regs[in.Dst] = true
			}
		}
	}
	p.keepCounters()
	for p.prune(dry) {
	}
	p.addCounters()
	for _, bi := range lp.Blocks {
		for i := range an.Task.Blocks[bi].Instrs {
			s := analysis.Site{Block: bi, At: i}
			if in := an.Instr(s); narrowableCompare(in) && p.operandsFit(dry, s, true) {
				p.instr[s] = true
			}
		}
	}
	if !p.profitable() {
		return nil
	}
	return p
}

// keepCounters leaves in 64 bits the counters that only count: read by
// nothing but their own step and loop tests (strength reduction has
// turned their element addresses into stepping pointers), and those of
// loops that UnrollLoops counts. Narrowing the first gains nothing, and
// UnrollLoops, whose analysis cannot prove that a 32-bit count tested at
// the loop's bottom does not wrap, would unroll the second without
// removing its tests.
func (p *index32Plan) keepCounters() {
	t := p.an.Task
	for _, lp := range p.an.Loops {
		if !p.lp.Contains(lp) {
			continue
		}
		for _, iv := range lp.IndVars {
			sum := p.an.Instr(iv.Sum).Dst
			counting := true
			for _, bi := range p.lp.Blocks {
				for i, in := range t.Blocks[bi].Instrs {
					s := analysis.Site{Block: bi, At: i}
					if s == iv.Sum || s == iv.Update || narrowableCompare(&in) {
						continue
					}
					if readsAt(t, s, iv.Reg) || readsAt(t, s, sum) {
						counting = false
					}
				}
			}
			if counting || p.unrolledLater(lp, iv) {
				for _, r := range []ir.Reg{iv.Reg, sum} {
					delete(p.regs, r)
					for _, d := range p.an.Defs(r) {
						delete(p.instr, d)
					}
				}
			}
		}
	}
}

// unrolledLater reports whether UnrollLoops will want lp counted by iv:
// an innermost loop stepping by 1 and tested at its bottom, where no
// comparison bounds the 32-bit step, so that a 32-bit count would not be
// seen to end. Its uses are truncated instead, which strength reduction
// usually leaves unread.
func (p *index32Plan) unrolledLater(lp *analysis.Loop, iv *analysis.IndVar) bool {
	step, ok := iv.Step.IsConst()
	if !ok || step != 1 || len(lp.Children) > 0 {
		return false
	}
	for _, test := range iv.Tests {
		if p.an.SiteDominates(test.Compare, iv.Sum) {
			return false
		}
	}
	return true
}

// narrowableArith reports whether in is 64-bit integer arithmetic that
// 32 bits compute the same way where its operands and result fit.
func narrowableArith(in *ir.Instr) bool {
	if in.Type != ir.Int64 && in.Type != ir.Uint64 || in.Dst == ir.NoReg {
		return false
	}
	switch in.Op {
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpNeg, ir.OpMove:
		return true
	case ir.OpMin, ir.OpMax: // signed: the order of int32 values is that of int64
		return in.Type == ir.Int64
	case ir.OpDiv, ir.OpRem: // of operands not negative, in 32 unsigned bits
		return in.Type == ir.Int64
	case ir.OpShl:
		return in.Args[1].Imm && in.Args[1].Bits < 32
	case ir.OpConvert:
		return in.From == ir.Int64 || in.From == ir.Uint64
	}
	return false
}

func narrowableCompare(in *ir.Instr) bool {
	if in.Type != ir.Int64 && in.Type != ir.Uint64 {
		return false
	}
	switch in.Op {
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		return true
	}
	return false
}

// resultFits reports whether the value the instruction at s assigns can
// be proved to fit in int32.
func (p *index32Plan) resultFits(bb *boundsBuilder, s analysis.Site) bool {
	in := p.an.Instr(s)
	after := analysis.Site{Block: s.Block, At: s.At + 1}
	f, ok := p.an.AffineOf(ir.R(in.Dst), after)
	return ok && bb.fits(f, after)
}

// operandsFit reports whether every operand of the instruction at s is
// narrowed, or an immediate or a value that fits in int32 there; a
// comparison needs one narrowed register to be worth narrowing.
func (p *index32Plan) operandsFit(bb *boundsBuilder, s analysis.Site, compare bool) bool {
	in := p.an.Instr(s)
	narrowed := false
	for j, a := range in.Args {
		if in.Op == ir.OpShl && j == 1 {
			continue
		}
		if (in.Op == ir.OpDiv || in.Op == ir.OpRem) && !p.notNegative(bb, a, s) {
			return false
		}
		switch {
		case a.Imm:
			if !fitsInt32(int64(a.Bits)) {
				return false
			}
		case p.regs[a.Reg]:
			narrowed = true
		default:
			f, ok := p.an.AffineOf(a, s)
			if !ok || !bb.fits(f, s) {
				return false
			}
		}
	}
	return narrowed || !compare
}

// notNegative reports whether operand a at s can be proved, or tested
// before the loop, not to be negative: a narrowed division divides in 32
// unsigned bits, where the GPU divides by a value the loop does not change
// as a multiplication by its reciprocal (DivideByInvariants), and signed
// and unsigned division agree on such operands. A divisor below zero is
// rare enough in index arithmetic to leave to the 64-bit loop.
func (p *index32Plan) notNegative(bb *boundsBuilder, a ir.Arg, s analysis.Site) bool {
	if a.Imm {
		return int64(a.Bits) >= 0
	}
	f, ok := p.an.AffineOf(a, s)
	return ok && bb.notNegative(f, s)
}

// prune drops the instructions whose operands do not fit and the
// registers some of whose assignments in the loop are not narrowed, or
// whose value on entry does not fit; it reports whether it dropped any.
func (p *index32Plan) prune(bb *boundsBuilder) bool {
	t := p.an.Task
	changed := false
	for s := range p.instr {
		if !p.operandsFit(bb, s, false) {
			delete(p.instr, s)
			changed = true
		}
	}
	for r := range p.regs {
		keep := true
		for _, d := range p.an.Defs(r) {
			if p.lp.Has(d.Block) && !p.instr[d] {
				keep = false
			}
		}
		if keep && p.readOnEntry(r) {
			f, ok := p.an.AffineOf(ir.R(r), p.an.End(p.entry))
			keep = ok && bb.fits(f, p.an.End(p.entry))
		}
		if !keep {
			delete(p.regs, r)
			for _, d := range p.an.Defs(r) {
				delete(p.instr, d)
			}
			changed = true
		}
	}
	_ = t
	return changed
}

// readOnEntry reports whether the loop may read r's value from before it.
func (p *index32Plan) readOnEntry(r ir.Reg) bool {
	t := p.an.Task
	for _, bi := range p.lp.Blocks {
		b := t.Blocks[bi]
		for i := 0; i <= len(b.Instrs); i++ {
			s := analysis.Site{Block: bi, At: i}
			if !readsAt(t, s, r) {
				continue
			}
			for _, d := range p.an.Reaching(r, s) {
				if !p.lp.Has(d.Block) {
					return true
				}
			}
		}
	}
	return false
}

// readsAt reports whether the instruction or terminator at s reads r.
func readsAt(t *ir.Task, s analysis.Site, r ir.Reg) bool {
	b := t.Blocks[s.Block]
	if s.At == len(b.Instrs) {
		return b.Term.Kind == ir.Branch && !b.Term.Cond.Imm && b.Term.Cond.Reg == r
	}
	return slices.ContainsFunc(b.Instrs[s.At].Args, func(a ir.Arg) bool { return !a.Imm && a.Reg == r })
}

// profitable reports whether a multiply or a division by a variable
// narrows: a 64-bit multiply costs several 32-bit ones, and a 64-bit
// division a call to a long routine, or a test for 32-bit operands in
// every iteration beside it (DivideByInvariants), where the narrowed one
// by a value the loop does not change is a multiply-high; an add
// narrowed alone saves less than the copy of the loop costs in code and
// registers. A loop that falls back to its checked copy costs no copy:
// its adds, compares and element addresses in 32 bits are the gain
// (example/scan's items, b*tile + t + threads*i below n, tested in 64
// bits, took two instructions each more than nvcc's).
func (p *index32Plan) profitable() bool {
	return p.multiplies() || p.checkedCopy() != p.lp.Header
}

// multiplies reports whether a multiply of two variables, or a division
// or remainder by a variable, narrows.
func (p *index32Plan) multiplies() bool {
	for s := range p.instr {
		in := p.an.Instr(s)
		switch {
		case in.Op == ir.OpMul && !in.Args[0].Imm && !in.Args[1].Imm:
			return true
		case (in.Op == ir.OpDiv || in.Op == ir.OpRem) && !in.Args[1].Imm:
			return true
		}
	}
	return false
}

// maxCappedNarrowed is the most values a task's 32-bit copies may narrow
// for the task to be held to fullOccupancyRegs registers: past about
// that many, the 64-bit loop beside the copy needs more than the limit
// leaves and ptxas spills.
const maxCappedNarrowed = 72

// maxLooselyCappedNarrowed is the most values a task's 32-bit copies may
// narrow for the task to be held to threeQuarterOccupancyRegs. The eight
// registers past fullOccupancyRegs hold four more of the 64-bit loop's
// values; the bound leaves Conv3D's 86 some room, and a task narrowing
// more keeps ptxas's count until one is seen to fit.
const maxLooselyCappedNarrowed = 96

// threeQuarterOccupancyRegs is the most registers a thread may use for a
// multiprocessor of sm_70 to sm_90 to hold three quarters of the threads
// it can (1,536 of 2,048, in blocks of 256).
const threeQuarterOccupancyRegs = 40
