package opt

import (
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// A collapsed nest (lower/nest.go) steps its levels' offsets by the
// thread count split into levels, carrying from each level into the one
// outside it:
//
//	latch:  j += dj; if j >= nj { j -= nj; i += 1 }; i += di
//
// Such a counter is no affine value at its loop's header: three
// assignments reach it there, so the bounds analysis cannot bound it, and
// the 32-bit copy of the loop kept its steps, carries and tests in 64
// bits, two instructions each, and the 64-bit registers they hold.
// A carry counter's values are bounded all the same, by its pattern: j
// enters below nj and each iteration adds at most Σ dj before the test
// that takes nj off, so with Σ dj ≤ nj it is below nj again when the
// iteration ends, and never above nj-1+Σ dj. A counter that only goes up,
// tested against a bound n where every iteration starts, is never above
// n-1 plus one iteration's steps. Both are narrowed when a test before
// the loop shows those bounds are in int32; the test reads the values
// the counters start from, their bounds and steps, as the thread has
// them at the loop's entry.

// nestCounter is a counter that narrowCounters narrows.
type nestCounter struct {
	reg   ir.Reg
	bound ir.Arg   // the count it wraps at, or the bound its exit test keeps it below
	steps []ir.Arg // what each of its adds in the loop adds
	wraps bool
	// sites are its assignments in the loop and the moves that copy it,
	// copies the registers those moves assign.
	sites  []analysis.Site
	copies []ir.Reg
}

// findNestCounters lists the loop's carry counters and the counters that
// only go up under an exit test, neither narrowed by the plan so far.
func (p *index32Plan) findNestCounters() []*nestCounter {
	t := p.an.Task
	var regs []ir.Reg
	for _, bi := range p.lp.Blocks {
		for _, in := range t.Blocks[bi].Instrs {
			if in.Dst != ir.NoReg && (in.Type == ir.Int64 || in.Type == ir.Uint64) && t.Regs[in.Dst] == in.Type &&
				!p.regs[in.Dst] && !slices.Contains(regs, in.Dst) {
				regs = append(regs, in.Dst)
			}
		}
	}
	slices.Sort(regs)
	var out []*nestCounter
	ivs := map[ir.Reg]bool{}
	for _, lp := range p.an.Loops {
		if p.lp.Contains(lp) {
			for _, iv := range lp.IndVars {
				ivs[iv.Reg] = true
			}
		}
	}
	for _, r := range regs {
		// An induction variable is the plan's to narrow or keep
		// (keepCounters).
		if ivs[r] {
			continue
		}
		if c := p.nestCounter(r); c != nil && c.constantsFit() {
			out = append(out, c)
		}
	}
	return out
}

// nestCounter matches r's assignments in the loop against either pattern.
func (p *index32Plan) nestCounter(r ir.Reg) *nestCounter {
	t := p.an.Task
	c := &nestCounter{reg: r}
	var sub analysis.Site
	subs := 0
	for _, d := range p.an.DefsIn(r, p.lp) {
		in := p.an.Instr(d)
		if in == nil || p.an.LoopOf(d.Block) != p.lp || len(in.Args) != 2 || in.Args[0] != ir.R(r) ||
			!p.invariant(in.Args[1]) {
			return nil
		}
		switch in.Op {
		case ir.OpAdd:
			c.steps = append(c.steps, in.Args[1])
		case ir.OpSub:
			sub, subs = d, subs+1
		default:
			return nil
		}
		c.sites = append(c.sites, d)
	}
	if len(c.steps) == 0 || subs > 1 {
		return nil
	}
	if subs == 1 {
		test, ok := p.wrapTest(r, sub)
		if !ok {
			return nil
		}
		for _, d := range c.sites {
			if d != sub && !p.beforeTest(d, test) {
				return nil
			}
		}
		c.bound, c.wraps = p.an.Instr(sub).Args[1], true
	} else {
		bound, ok := p.exitTest(r, c.sites)
		if !ok {
			return nil
		}
		c.bound = bound
	}
	// Moves of the counter in the loop are narrowed with it: the nest's
	// head tests a copy of each offset.
	for _, bi := range p.lp.Blocks {
		for i, in := range t.Blocks[bi].Instrs {
			if in.Op == ir.OpMove && in.Args[0] == ir.R(r) && in.Type == t.Regs[r] && t.Regs[in.Dst] == in.Type &&
				len(p.an.Defs(in.Dst)) == 1 && !p.regs[in.Dst] {
				c.sites = append(c.sites, analysis.Site{Block: bi, At: i})
				c.copies = append(c.copies, in.Dst)
			}
		}
	}
	return c
}

// invariant reports whether a is an immediate or a register the loop does
// not assign.
func (p *index32Plan) invariant(a ir.Arg) bool {
	return a.Imm || len(p.an.DefsIn(a.Reg, p.lp)) == 0
}

// wrapTest matches the carry: sub, "r -= n", is in a block whose one
// predecessor enters it when "r >= n" holds, compared there after r's
// last add. It returns the site of the comparison.
func (p *index32Plan) wrapTest(r ir.Reg, sub analysis.Site) (analysis.Site, bool) {
	t := p.an.Task
	n := p.an.Instr(sub).Args[1]
	preds := p.an.Preds[sub.Block]
	if len(preds) != 1 || preds[0] == sub.Block {
		return analysis.Site{}, false
	}
	pb := t.Blocks[preds[0]]
	if pb.Term.Kind != ir.Branch || pb.Term.Cond.Imm || pb.Term.Succs[0] != sub.Block || pb.Term.Succs[1] == sub.Block {
		return analysis.Site{}, false
	}
	for i := len(pb.Instrs) - 1; i >= 0; i-- {
		in := &pb.Instrs[i]
		if in.Dst != pb.Term.Cond.Reg {
			if slices.Contains(in.Defs(), r) || slices.Contains(in.Defs(), pb.Term.Cond.Reg) {
				return analysis.Site{}, false
			}
			continue
		}
		if in.Op != ir.OpGe || in.Type != ir.Int64 && in.Type != ir.Uint64 || in.Args[0] != ir.R(r) || in.Args[1] != n {
			return analysis.Site{}, false
		}
		return analysis.Site{Block: preds[0], At: i}, true
	}
	return analysis.Site{}, false
}

// beforeTest reports whether every path from d, in the same iteration,
// passes the test at test: none comes round to the header first.
func (p *index32Plan) beforeTest(d, test analysis.Site) bool {
	if d.Block == test.Block {
		return d.At < test.At
	}
	t := p.an.Task
	seen := map[int]bool{}
	work := slices.Clone(t.Blocks[d.Block].Term.Successors())
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		switch {
		case b == p.lp.Header, b == d.Block:
			return false
		case seen[b] || b == test.Block || !p.lp.Has(b):
			continue
		}
		seen[b] = true
		work = append(work, t.Blocks[b].Term.Successors()...)
	}
	return true
}

// exitTest finds the test that keeps a counter that only goes up below
// a bound: "r < n", or a copy of r made in the header, leaving the loop
// when it fails, in a block of the loop (not of a loop inside it) that
// comes before every add in the iteration. It returns n.
func (p *index32Plan) exitTest(r ir.Reg, adds []analysis.Site) (ir.Arg, bool) {
	t := p.an.Task
	for _, bi := range p.lp.Blocks {
		b := t.Blocks[bi]
		if p.an.LoopOf(bi) != p.lp || b.Term.Kind != ir.Branch || b.Term.Cond.Imm ||
			!p.lp.Has(b.Term.Succs[0]) || p.lp.Has(b.Term.Succs[1]) {
			continue
		}
		at := slices.IndexFunc(b.Instrs, func(in ir.Instr) bool { return in.Dst == b.Term.Cond.Reg })
		if at < 0 || len(p.an.Defs(b.Term.Cond.Reg)) != 1 {
			continue
		}
		in := &b.Instrs[at]
		if in.Op != ir.OpLt || in.Type != ir.Int64 && in.Type != ir.Uint64 || in.Args[0].Imm || !p.invariant(in.Args[1]) ||
			!p.sameValue(r, in.Args[0].Reg, analysis.Site{Block: bi, At: at}) {
			continue
		}
		test := analysis.Site{Block: bi, At: at}
		ok := true
		for _, d := range adds {
			ok = ok && d != test && p.an.SiteDominates(test, d)
		}
		if ok {
			return in.Args[1], true
		}
	}
	return ir.Arg{}, false
}

// sameValue reports whether x holds r's value at the test at s: x is r,
// assigned nowhere between the header and s, or a copy of r made in the
// header, since every assignment of r comes after s (exitTest's check).
func (p *index32Plan) sameValue(r, x ir.Reg, s analysis.Site) bool {
	t := p.an.Task
	if x == r {
		return true
	}
	defs := p.an.Defs(x)
	if len(defs) != 1 || defs[0].Block != p.lp.Header || !p.an.SiteDominates(defs[0], s) {
		return false
	}
	in := p.an.Instr(defs[0])
	if in.Op != ir.OpMove || in.Args[0] != ir.R(r) {
		return false
	}
	// No assignment of r in the header before the copy, nor between the
	// copy and a test in the header.
	h := t.Blocks[p.lp.Header]
	for i := range h.Instrs {
		if slices.Contains(h.Instrs[i].Defs(), r) && (i < defs[0].At || s.Block == p.lp.Header && i < s.At) {
			return false
		}
	}
	return true
}

// constantsFit reports whether the constants among c's bound and steps
// pass the test, which compares only the values it computes.
func (c *nestCounter) constantsFit() bool {
	const limit = 1 << 31
	sum, all := uint64(0), true
	for _, a := range append([]ir.Arg{c.bound}, c.steps...) {
		if !a.Imm {
			all = false
			continue
		}
		if a.Bits > limit {
			return false
		}
		sum += a.Bits
	}
	return !all || sum <= limit
}

// addCounters adds the loop's nest counters to the plan, their
// assignments and copies narrowed. Only in a loop without loops inside:
// there the counters step in every iteration of the innermost loop,
// while in a nest whose iteration runs a loop they step once a run of
// it, and their 32-bit copies, the counts and steps truncated before
// the loop, only add registers live across the inner loop (SyrkLower
// went from 32 registers to 40).
func (p *index32Plan) addCounters() {
	p.counterSites = map[analysis.Site]bool{}
	if len(p.lp.Children) > 0 {
		return
	}
	p.counters = p.findNestCounters()
	for _, c := range p.counters {
		for _, s := range c.sites {
			p.instr[s] = true
			p.counterSites[s] = true
		}
		p.regs[c.reg] = true
		for _, r := range c.copies {
			p.regs[r] = true
		}
	}
}

// isCounter reports whether r is a nest counter or a copy of one.
func (p *index32Plan) isCounter(r ir.Reg) bool {
	for _, c := range p.counters {
		if c.reg == r || slices.Contains(c.copies, r) {
			return true
		}
	}
	return false
}

// counterTests adds to the test what keeps each counter in [0, 2^31-1]:
// a carry counter starts below its count n, and n plus its steps is at
// most 2^31, which also makes the steps' sum at most n; a counter that
// goes up starts at most 2^31-1 and its bound plus its steps is at most
// 2^31. Every value is compared as unsigned and at most 2^31 before it
// is summed, so no sum of the test wraps.
func (p *index32Plan) counterTests(bb *boundsBuilder) {
	if bb.b == nil {
		return
	}
	t := p.an.Task
	u64 := func(a ir.Arg) ir.Arg {
		if a.Imm {
			return ir.Imm(ir.Uint64, a.Bits)
		}
		if t.Regs[a.Reg] == ir.Uint64 {
			return a
		}
		return bb.emit(ir.Instr{Op: ir.OpConvert, Type: ir.Uint64, From: t.Regs[a.Reg], Args: []ir.Arg{a}})
	}
	cond := func(op ir.Op, x ir.Arg, y uint64) {
		if x.Imm { // constantsFit checked it
			return
		}
		c := bb.emit(ir.Instr{Op: op, Type: ir.Uint64, Args: []ir.Arg{x, ir.Imm(ir.Uint64, y)}})
		if !slices.Contains(bb.conds, c) {
			bb.conds = append(bb.conds, c)
		}
	}
	const limit = 1 << 31
	for _, c := range p.counters {
		start, bound := u64(ir.R(c.reg)), u64(c.bound)
		cond(ir.OpLe, bound, limit)
		if c.wraps {
			ok := bb.emit(ir.Instr{Op: ir.OpLt, Type: ir.Uint64, Args: []ir.Arg{start, bound}})
			if !slices.Contains(bb.conds, ok) {
				bb.conds = append(bb.conds, ok)
			}
		} else {
			cond(ir.OpLe, start, limit-1)
		}
		sum := bound
		for _, s := range c.steps {
			s = u64(s)
			cond(ir.OpLe, s, limit)
			if sum.Imm && s.Imm {
				sum = ir.Imm(ir.Uint64, sum.Bits+s.Bits)
			} else {
				sum = bb.emit(ir.Instr{Op: ir.OpAdd, Type: ir.Uint64, Args: []ir.Arg{sum, s}})
			}
		}
		cond(ir.OpLe, sum, limit)
	}
}
