package opt

import (
	"fmt"
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// Loops at most this big are unrolled, unrollFactor times.
const (
	unrollFactor    = 4
	unrollMaxInstrs = 64
	unrollMaxBlocks = 12
	// A counted loop of at most smallBodyInstrs, such as an inner
	// product's, is unrolled smallBodyFactor times: one test of the bound
	// and one step of each pointer serve eight iterations. Measured on the
	// H100, bench/suite's naive matrix product ran 1.16× nvcc's time with
	// four copies and 1.10× with eight, and its xorshift rounds 0.95× and
	// 0.87×; no kernel there needs more registers for it.
	smallBodyInstrs = 16
	smallBodyFactor = 8
	// A small body that loads less than twice an iteration is unrolled
	// until a chunk issues this many loads, up to sixteen copies: a
	// thread then has as many reads in flight as an inner product's does
	// with eight copies, which is what hides the memory's latency where
	// few threads run, as in a column's norm walking down a matrix one
	// thread a column. nvcc's code for such loops has sixteen too. Loads
	// in flight, not copies, are what cost registers: each holds one
	// until its value is used.
	loadsInFlight  = 32
	maxSmallFactor = 16
)

// UnrollLoops unrolls the small innermost loops of a task, keeping each
// copy's exit tests: iterations then follow each other without a taken
// branch, which a GPU pays for in every iteration of a short loop body. It
// is always correct, whatever the trip count, because each copy still
// tests whether to leave. The grid-stride loop of a parallel task is left
// alone: its iterations are whole loop bodies already.
func UnrollLoops(t *ir.Task) {
	for _, lp := range ir.Innermost(t.Loops()) {
		size := loopSize(t, lp)
		if size > unrollMaxInstrs || len(lp.Blocks()) > unrollMaxBlocks || loopChecks(t, lp) {
			continue
		}
		an := analysis.New(t) // the last loop's unrolling changed the task
		if an.GridShared(an.LoopAt(lp.Header)) {
			continue
		}
		if c, ok := steppedLoop(an, lp, maxUnrollStep); ok {
			factor := unrollFactor
			if size <= smallBodyInstrs {
				factor = smallBodyFactor
				if loads := loopLoads(t, lp); loads > 0 {
					factor = max(factor, min(maxSmallFactor, loadsInFlight/loads))
				}
			}
			unrollCounted(an, lp, c, factor)
		} else {
			unroll(t, lp, unrollFactor)
		}
	}
}

// loopChecks reports whether the loop still checks an index or a divisor
// in its iterations. Such a loop is either the copy HoistChecks keeps for
// launches that fault, which the others never run, or one whose loads
// wait on its checks anyway. Unrolling it gains little and costs
// registers: those of the faulting copy count for the whole kernel, and
// fewer threads then fit on a multiprocessor.
func loopChecks(t *ir.Task, lp *ir.Loop) bool {
	for _, b := range lp.Blocks() {
		for _, in := range t.Blocks[b].Instrs {
			if in.Op.Info().Checks {
				return true
			}
		}
	}
	return false
}

// loopSize estimates the machine instructions of the loop's body: most IR
// instructions become one or two, but a division by a variable becomes a
// routine, in 64 bits one so long that copies of it gain nothing.
func loopSize(t *ir.Task, lp *ir.Loop) int {
	n := 0
	for _, b := range lp.Blocks() {
		for _, in := range t.Blocks[b].Instrs {
			switch {
			case (in.Op == ir.OpDiv || in.Op == ir.OpRem) && in.Type.IsInteger() && !in.Args[1].Imm:
				n += divisionSize(in.Type)
			default:
				n++
			}
		}
	}
	return n
}

// loopLoads counts the loads of the loop's body.
func loopLoads(t *ir.Task, lp *ir.Loop) int {
	n := 0
	for _, b := range lp.Blocks() {
		for _, in := range t.Blocks[b].Instrs {
			if in.Op == ir.OpLoad {
				n++
			}
		}
	}
	return n
}

// divisionSize is about the number of instructions of an integer division
// by a variable.
func divisionSize(t ir.Type) int {
	if t.Bits() == 64 {
		return 70
	}
	return 16
}

// counted is a loop that the analysis finds counted by an induction
// variable i of step 1, assigned in its only latch, and whose index tests
// stay in the loop while i+slack < bound, for a bound the loop does not
// change. A loop that UnrollLoops reads with steppedLoop may step by a
// larger constant: its tests then compare i+slack×step.
type counted struct {
	iv    *analysis.IndVar
	bound ir.Arg
	tests map[int]bool       // blocks whose branch is an index test
	slack int64              // 1 if a test compares i+step, else 0
	le    bool               // the tests are x <= bound: x < bound+1 without overflow
	step  int64              // what an iteration adds to i, 1 unless steppedLoop found more
	exit  *analysis.ExitTest // the last test found, the only one where tests has one block

	// offsets are the tests' offsets in steps, by block: 1 where a test
	// compares i+step, else 0.
	offsets map[int]int64
}

// maxUnrollStep bounds the constant step of a loop that UnrollLoops
// unrolls with one guard per chunk, so that the chunk's reach, the step
// times the copies, stays far inside 32 bits. Such steps are a block's
// thread count striding over a tile, as in the loads of a halo (e +=
// rows×side): a few thousand at most.
const maxUnrollStep = 1 << 16

// countedLoop reads a counted loop from the analysis: an induction
// variable of step 1 that the loop's only latch, ending in a jump,
// assigns from i+1 computed in the loop ("t = add i, 1; i = move t"),
// and its exit tests "i+slack < bound" or "i+slack <= bound" of its
// type, slack 0 or 1, which branch into the loop when they hold and read
// the bound second. Other exits (break) may exist and are kept.
func countedLoop(an *analysis.Analysis, lp *ir.Loop) (counted, bool) {
	return steppedLoop(an, lp, 1)
}

// steppedLoop is countedLoop for a counter whose step is a constant from 1
// to maxStep; the step-1 counter is preferred where there are several.
// Tests then compare i or i+step, the counter before or after the step.
func steppedLoop(an *analysis.Analysis, lp *ir.Loop, maxStep int64) (counted, bool) {
	var c counted
	l := an.LoopAt(lp.Header)
	if l == nil || len(l.Latches) != 1 || an.Task.Blocks[l.Latches[0]].Term.Kind != ir.Jump {
		return c, false
	}
	latch := l.Latches[0]
	for _, iv := range l.IndVars {
		step, ok := iv.Step.IsConst()
		if !ok || step < 1 || step > maxStep || iv.Update.Block != latch || iv.Sum == iv.Update {
			continue
		}
		if c.iv == nil || step == 1 && c.step != 1 || (step == 1) == (c.step == 1) && iv.Update.At < c.iv.Update.At {
			c.iv, c.step = iv, step
		}
	}
	if c.iv == nil {
		return c, false
	}
	c.tests, c.offsets = map[int]bool{}, map[int]int64{}
	for _, test := range c.iv.Tests {
		offset, ok := test.ConstOffset()
		stays := l.Has(an.Task.Blocks[test.Block].Term.Succs[0])
		if !ok || offset != 0 && offset != c.step || !stays || test.Type != c.iv.Type || test.BoundArg != an.Instr(test.Compare).Args[1] {
			continue
		}
		offset /= c.step
		bound, le := test.BoundArg, false
		switch {
		case test.Op == ir.OpLt:
		case test.Op == ir.OpLe && bound.Imm && bound.Bits != maxOf(c.iv.Type):
			bound = ir.Imm(c.iv.Type, bound.Bits+1) // i <= c is i < c+1
		case test.Op == ir.OpLe && !bound.Imm:
			le = true
		default:
			continue
		}
		c.slack = max(c.slack, offset)
		if len(c.tests) > 0 && (bound != c.bound || le != c.le) {
			return c, false
		}
		c.bound, c.le = bound, le
		c.tests[test.Block] = true
		c.offsets[test.Block] = offset
		c.exit = test
	}
	return c, len(c.tests) > 0
}

// start returns the constant the counter holds on entry to the loop.
func (c *counted) start() (uint64, bool) {
	if !c.iv.StartKnown {
		return 0, false
	}
	v, ok := c.iv.Start.IsConst()
	return uint64(v), ok
}

// unrollCounted unrolls a counted loop factor times with one guard per
// chunk instead of an index test per iteration:
//
//	setup:  limit = max(bound, MIN+k) - k   where k = factor-1
//	guard:  if i < limit goto chunk else loop
//	chunk:  factor copies of the body, index tests removed; then guard
//	loop:   the original loop, which runs the last iterations
//
// i < limit means i+k < bound, so every removed test would have passed;
// the limit saturates at the type's minimum, so nothing overflows. Tests
// i <= bound take k one less: i+k-1 < bound is i+k <= bound.
//
// A counter stepping by s > 1 (a block's threads striding over a tile,
// whose start is the thread's index) takes k = (factor-1)×s: i+k < bound
// means the last copy's i+(factor-1)×s passes its test, and so do the
// copies before it. Without that one guard each copy keeps its own test
// and branch, and a load of one copy cannot start before the copy ahead
// of it has decided whether to run: a thread has one load in flight.
//
// A loop tested at its bottom (i+1 < bound, slack 1) enters its header
// without a test, so with every copy's test removed a chunk needs one
// iteration more than it runs (k = factor), and a trip count that is a
// multiple of factor leaves a whole chunk's iterations to the loop. Where
// the copies are there to keep loads in flight (factor above
// smallBodyFactor: few threads, each waiting on the memory, or an inner
// product's two loads), those iterations would each be a whole wait for
// the memory: a column's norm over 4096 rows ran 255 chunks of sixteen
// loads and then sixteen loads one by one. There the chunks run up to the
// bound (k = (factor-1)×step): where the loop has one test, the last
// copy's test becomes the guard of the next chunk, on the counter that
// chunk starts from, and where that fails the loop's own test decides,
// once per thread, between the loop and its exit:
//
//	last copy:  if i+step < limit goto chunk else exit test
//	exit test:  if i+step < bound goto loop else leave
//
// A loop with more tests keeps its last copy's tests instead, one more
// test a chunk. Elsewhere one more test a chunk costs more than the
// iterations it saves.
//
// Where the loop reads its counter only to step and test it, as once
// strength reduction has turned its element addresses into stepping
// pointers, the chunks count down what is left instead (countDown).
func unrollCounted(an *analysis.Analysis, lp *ir.Loop, c counted, factor int) {
	t := an.Task
	wide := ir.Int64
	lowest := uint64(1) << 63
	typ := c.iv.Type
	if typ.IsUnsigned() {
		wide, lowest = ir.Uint64, 0
	}
	if typ.Bits() == 32 { // the limit saturates in 32 bits as well
		wide, lowest = typ, typ.Normalize(lowest>>32)
	}
	// keepLast and fold both leave the last copy's test to decide the
	// next chunk, so the chunk's reach k is the same for both; counting
	// down, where it applies, keeps that test as countChunks needs it.
	lastTest := c.slack == 1 && factor > smallBodyFactor
	keepLast := lastTest
	steps := int64(factor) - 1 + c.slack
	if lastTest {
		steps--
	}
	k := uint64(steps * max(c.step, 1))
	if c.le {
		k--
	}
	down := countDown(an, lp, c, factor, k, keepLast)
	fold := !down && lastTest && len(c.tests) == 1 && c.exit.Compare.Block == c.exit.Block
	if fold {
		keepLast = false
	}
	setup := t.NewBlock("unroll setup")
	var guard *ir.Block // where a chunk that ran to its end goes
	var room ir.Reg
	var left ir.Reg  // with down, what is left of the count
	var limit ir.Reg // without down, the guard's bound on the counter
	if down {
		left, room = countLeft(t, setup, c, k)
	} else {
		bound := convert(t, setup, c.bound, typ, wide)
		floor := t.NewReg(wide)
		limit = t.NewReg(wide)
		setup.Instrs = append(setup.Instrs,
			ir.Instr{Op: ir.OpMax, Type: wide, Dst: floor, Args: []ir.Arg{bound, ir.Imm(wide, lowest+k)}},
			ir.Instr{Op: ir.OpSub, Type: wide, Dst: limit, Args: []ir.Arg{ir.R(floor), ir.Imm(wide, k)}})
		guard = t.NewBlock("unroll guard")
		setup.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{guard.Index}}
		i := convert(t, guard, ir.R(c.iv.Reg), typ, wide)
		room = t.NewReg(ir.Bool)
		guard.Instrs = append(guard.Instrs, ir.Instr{Op: ir.OpLt, Type: wide, Dst: room, Args: []ir.Arg{i, ir.R(limit)}})
	}

	// Entries into the loop now go through the setup.
	for bi, b := range t.Blocks {
		if lp.Has(bi) || b == setup || b == guard {
			continue
		}
		succs := b.Term.Successors()
		for j, s := range succs {
			if s == lp.Header {
				succs[j] = setup.Index
			}
		}
	}
	blocks := lp.Blocks()
	copies := make([]map[int]int, factor)
	for k := range factor {
		copies[k] = map[int]int{}
		for _, b := range blocks {
			orig := t.Blocks[b]
			nb := copyBlock(t, orig, fmt.Sprintf("%s (unrolled %d)", orig.Comment, k), nil)
			if c.tests[b] && !((keepLast || fold) && k == factor-1) {
				nb.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{orig.Term.Succs[0]}}
			}
			copies[k][b] = nb.Index
		}
	}
	chunk := copies[0][lp.Header]
	if down {
		guard = countChunks(t, lp, c, factor, k, keepLast, left, copies, chunk)
	} else {
		guard.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(room), Succs: [2]int{chunk, lp.Header}}
	}
	if fold {
		foldLastTest(t, t.Blocks[copies[factor-1][c.exit.Block]], c.exit.Compare.At, typ, wide, limit)
	}
	for k := range factor {
		for _, b := range blocks {
			succs := t.Blocks[copies[k][b]].Term.Successors()
			for j, s := range succs {
				switch {
				case s == lp.Header && k == factor-1 && fold:
					succs[j] = copies[0][lp.Header]
				case s == lp.Header && k == factor-1:
					succs[j] = guard.Index
				case s == lp.Header:
					succs[j] = copies[k+1][lp.Header]
				case lp.Has(s):
					succs[j] = copies[k][s]
				}
			}
		}
	}
	if down {
		setup.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(room), Succs: [2]int{chunk, lp.Header}}
	}
}

// countDown reports whether unrollCounted's chunks count down what is
// left of the loop's count, n = bound-i, instead of comparing i with a
// limit:
//
//	setup:  n = max(bound, i) - i;  if n > k goto chunk else loop
//	chunk:  factor copies of the body, index tests removed; then step
//	step:   n -= factor×s;  if n > k goto chunk else count
//	count:  i = bound - n;  goto loop
//
// Between chunks a thread then holds n alone, where it held i, the limit
// and, for a last copy's tests, the bound: the chunk's copies still step
// i, but nothing in them reads it, and ptxas drops those steps once the
// count block gives i its value on the way out. The registers saved are
// what lets a chunk of sixteen loads issue them all before its first add:
// a column's norm at 32 registers loaded thirteen, added, loaded three,
// and so waited on the memory twice a chunk. n is unsigned, bound-i with
// bound above i, which never overflows; it needs a counter that the loop
// reads for nothing else, in 32 or 64 bits, and a chunk that never steps
// past the bound, so that n never goes below zero: its guard or its last
// copy's tests must leave factor×s iterations at least.
func countDown(an *analysis.Analysis, lp *ir.Loop, c counted, factor int, k uint64, keepLast bool) bool {
	if c.iv.Type.Bits() < 32 {
		return false
	}
	stride := uint64(factor) * uint64(max(c.step, 1))
	full := k+1 >= stride
	for _, test := range c.iv.Tests {
		// A last copy's test of i+s that runs every iteration leaves
		// more than factor×s, or as many where it is i+s <= bound.
		if keepLast && c.tests[test.Block] && c.offsets[test.Block] == 1 && test.Every {
			full = true
		}
	}
	if !full {
		return false
	}
	t := an.Task
	reads := map[analysis.Site]bool{c.iv.Sum: true, c.iv.Update: true}
	for _, test := range c.iv.Tests {
		if c.tests[test.Block] {
			reads[test.Compare] = true
		}
	}
	sum := an.Instr(c.iv.Sum).Dst
	for _, b := range lp.Blocks() {
		for at, in := range t.Blocks[b].Instrs {
			if reads[analysis.Site{Block: b, At: at}] {
				continue
			}
			for _, a := range in.Args {
				if !a.Imm && (a.Reg == c.iv.Reg || a.Reg == sum) {
					return false
				}
			}
		}
	}
	// Nor after it, where a chunk may leave: by a break, or by the tests
	// its last copy keeps. A counter read there (Mandelbrot's count of
	// iterations) stays live in the chunks, and n would only add a step.
	if slices.Contains(t.Results, c.iv.Reg) || slices.Contains(t.Results, sum) {
		return false
	}
	live := liveOut(t)
	for _, b := range lp.Blocks() {
		if c.tests[b] && !keepLast {
			continue
		}
		for _, s := range t.Blocks[b].Term.Successors() {
			if !lp.Has(s) && (readAfter(t, live, c.iv.Reg, s, -1) || readAfter(t, live, sum, s, -1)) {
				return false
			}
		}
	}
	return true
}

// countLeft ends the setup of a chunked loop that counts down: n =
// max(bound, i) - i, unsigned, and whether a chunk may run, n > k.
func countLeft(t *ir.Task, setup *ir.Block, c counted, k uint64) (left, room ir.Reg) {
	typ := c.iv.Type
	u := typ.Unsigned()
	top := t.NewReg(typ)
	setup.Instrs = append(setup.Instrs, ir.Instr{Op: ir.OpMax, Type: typ, Dst: top, Args: []ir.Arg{ir.R(c.iv.Reg), c.bound}})
	left, room = t.NewReg(u), t.NewReg(ir.Bool)
	hi, lo := convert(t, setup, ir.R(top), typ, u), convert(t, setup, ir.R(c.iv.Reg), typ, u)
	setup.Instrs = append(setup.Instrs,
		ir.Instr{Op: ir.OpSub, Type: u, Dst: left, Args: []ir.Arg{hi, lo}},
		ir.Instr{Op: ir.OpGt, Type: u, Dst: room, Args: []ir.Arg{ir.R(left), ir.Imm(u, k)}})
	return left, room
}

// countChunks makes the step between the chunks of a loop that counts
// down and the count block after them, and has the last copy's tests, if
// it keeps them, read n: i+o < bound for the last copy's i, which is
// i+(factor-1)×s for the chunk's, is n > (factor-1+o)×s. It returns the
// step.
func countChunks(t *ir.Task, lp *ir.Loop, c counted, factor int, k uint64, keepLast bool,
	left ir.Reg, copies []map[int]int, chunk int) *ir.Block {
	typ := c.iv.Type
	u := typ.Unsigned()
	s := uint64(max(c.step, 1))
	if keepLast {
		for b := range c.tests {
			nb := t.Blocks[copies[factor-1][b]]
			op := ir.OpGt
			if c.le {
				op = ir.OpGe
			}
			holds := t.NewReg(ir.Bool)
			nb.Instrs = append(nb.Instrs, ir.Instr{Op: op, Type: u, Dst: holds,
				Args: []ir.Arg{ir.R(left), ir.Imm(u, (uint64(factor)-1+uint64(c.offsets[b]))*s)}})
			nb.Term.Cond = ir.R(holds)
		}
	}
	step, count := t.NewBlock("unroll step"), t.NewBlock("unroll count")
	room := t.NewReg(ir.Bool)
	step.Instrs = append(step.Instrs,
		ir.Instr{Op: ir.OpSub, Type: u, Dst: left, Args: []ir.Arg{ir.R(left), ir.Imm(u, uint64(factor)*s)}},
		ir.Instr{Op: ir.OpGt, Type: u, Dst: room, Args: []ir.Arg{ir.R(left), ir.Imm(u, k)}})
	step.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(room), Succs: [2]int{chunk, count.Index}}
	// After a chunk the bound is above the chunk's first i, so max(bound,
	// i) was the bound, and i = bound - n.
	bound := c.bound
	if bound.Imm {
		bound = ir.R(t.NewReg(typ))
		count.Instrs = append(count.Instrs, ir.Instr{Op: ir.OpMove, Type: typ, Dst: bound.Reg, Args: []ir.Arg{c.bound}})
	}
	hi := convert(t, count, bound, typ, u)
	if typ == u {
		count.Instrs = append(count.Instrs, ir.Instr{Op: ir.OpSub, Type: u, Dst: c.iv.Reg, Args: []ir.Arg{hi, ir.R(left)}})
	} else {
		d := t.NewReg(u)
		count.Instrs = append(count.Instrs,
			ir.Instr{Op: ir.OpSub, Type: u, Dst: d, Args: []ir.Arg{hi, ir.R(left)}},
			ir.Instr{Op: ir.OpConvert, Type: typ, From: u, Dst: c.iv.Reg, Args: []ir.Arg{ir.R(d)}})
	}
	count.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{lp.Header}}
	return step
}

// convert is a in type to, converted in b if it needs an instruction.
func convert(t *ir.Task, b *ir.Block, a ir.Arg, from, to ir.Type) ir.Arg {
	if from == to {
		return a
	}
	if a.Imm {
		v, _ := ir.Fold(&ir.Instr{Op: ir.OpConvert, Type: to, From: from}, []uint64{a.Bits})
		return ir.Imm(to, v)
	}
	r := t.NewReg(to)
	b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpConvert, Type: to, From: from, Dst: r, Args: []ir.Arg{a}})
	return ir.R(r)
}

// unroll copies the loop's blocks factor-1 times and chains the copies:
// the back edges of copy c lead to the header of copy c+1, and those of
// the last copy to the original header.
func unroll(t *ir.Task, lp *ir.Loop, factor int) {
	blocks := lp.Blocks()
	copies := make([]map[int]int, factor)
	copies[0] = map[int]int{}
	for _, b := range blocks {
		copies[0][b] = b
	}
	local := localRegs(t, lp)
	for c := 1; c < factor; c++ {
		copies[c] = map[int]int{}
		rename := map[ir.Reg]ir.Reg{}
		for r := range t.Regs {
			if local[ir.Reg(r)] {
				rename[ir.Reg(r)] = t.NewReg(t.Regs[r])
			}
		}
		for _, b := range blocks {
			orig := t.Blocks[b]
			copies[c][b] = copyBlock(t, orig, fmt.Sprintf("%s (unrolled %d)", orig.Comment, c), rename).Index
		}
	}
	for c := range factor {
		for _, b := range blocks {
			term := &t.Blocks[copies[c][b]].Term
			succs := term.Successors()
			for j, s := range succs {
				switch {
				case s == lp.Header:
					succs[j] = copies[(c+1)%factor][lp.Header]
				case lp.Has(s):
					succs[j] = copies[c][s]
				}
			}
		}
	}
}

// maxOf is the largest value of the integer type t, normalized.
func maxOf(t ir.Type) uint64 {
	if t.IsSigned() {
		return uint64(1)<<(t.Bits()-1) - 1
	}
	return t.Normalize(^uint64(0))
}

// localRegs finds the registers that hold a value of one iteration only:
// assigned once, in the loop, by an instruction that dominates every read,
// all of which are in the loop. A copy of the loop body may give them
// registers of its own, which keeps them assigned once.
func localRegs(t *ir.Task, lp *ir.Loop) map[ir.Reg]bool {
	defs := defSites(t)
	single := singleDefs(t, defs, t.Dominators())
	local := map[ir.Reg]bool{}
	for _, b := range lp.Blocks() {
		for _, in := range t.Blocks[b].Instrs {
			for _, d := range in.Defs() {
				if single[d] {
					local[d] = true
				}
			}
		}
	}
	for bi, b := range t.Blocks {
		if lp.Has(bi) {
			continue
		}
		for _, in := range b.Instrs {
			for _, a := range in.Args {
				if !a.Imm {
					delete(local, a.Reg)
				}
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm {
			delete(local, c.Reg)
		}
	}
	return local
}

// renameRegs replaces the registers of an instruction that rename maps.
func renameRegs(in *ir.Instr, rename map[ir.Reg]ir.Reg) {
	if r, ok := rename[in.Dst]; ok && in.Dst != ir.NoReg {
		in.Dst = r
	}
	for j, d := range in.Results {
		if r, ok := rename[d]; ok {
			in.Results[j] = r
		}
	}
	for j, a := range in.Args {
		if r, ok := rename[a.Reg]; ok && !a.Imm {
			in.Args[j] = ir.R(r)
		}
	}
}

// foldLastTest makes the test of a chunk's last copy, the comparison at
// at in b, the guard of the next chunk: b goes on where the counter it
// compares is below limit, and otherwise to a new block that branches on
// the test's own outcome. The comparison reads the counter side first
// (steppedLoop), and the guard reads it where the comparison did, so both
// see one value. Where nothing after the comparison in b assigns what it
// reads or reads what it assigns, the comparison moves to the new block:
// the chunk then computes one test, not two.
func foldLastTest(t *ir.Task, b *ir.Block, at int, typ, wide ir.Type, limit ir.Reg) {
	test := b.Instrs[at]
	exit := t.NewBlock("unroll exit test")
	exit.Term = b.Term
	if comparisonMoves(b, at) {
		b.Instrs = slices.Delete(b.Instrs, at, at+1)
		exit.Instrs = []ir.Instr{test}
	} else {
		at++
	}
	scratch := &ir.Block{}
	x := convert(t, scratch, test.Args[0], typ, wide)
	room := t.NewReg(ir.Bool)
	scratch.Instrs = append(scratch.Instrs, ir.Instr{Op: ir.OpLt, Type: wide, Dst: room, Args: []ir.Arg{x, ir.R(limit)}})
	b.Instrs = slices.Insert(b.Instrs, at, scratch.Instrs...)
	b.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(room), Succs: [2]int{b.Term.Succs[0], exit.Index}}
}

// comparisonMoves reports whether the comparison at in b, whose result is
// b's branch condition, can run at b's end instead: nothing after it in b
// assigns its operands or its result, or reads its result.
func comparisonMoves(b *ir.Block, at int) bool {
	test := b.Instrs[at]
	if b.Term.Cond.Imm || b.Term.Cond.Reg != test.Dst {
		return false
	}
	for _, x := range b.Instrs[at+1:] {
		for _, a := range x.Args {
			if !a.Imm && a.Reg == test.Dst {
				return false
			}
		}
		for _, d := range x.Defs() {
			if d == test.Dst || slices.ContainsFunc(test.Args, func(a ir.Arg) bool { return !a.Imm && a.Reg == d }) {
				return false
			}
		}
	}
	return true
}
