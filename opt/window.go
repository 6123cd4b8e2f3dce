package opt

import (
	"slices"

	"github.com/qdgo/qd/ir"
)

// A check under a condition is often out of range in the iterations that
// skip it: a stencil reads s[p-w] only where y > 0, and s[p+w] only where
// y < h-1. Decided for all of a thread's iterations at once, such checks
// fail in every thread whose iterations reach the first or the last row,
// which in a grid-stride loop is every thread, and the whole launch would
// run the copy that keeps its checks.
//
// So a conditional check whose index moves by one with the counter, up or
// down, is decided for a window of the counter instead: the values for
// which its index is in range, whether or not an iteration reads it. The
// loop runs in three pieces, each a copy of it:
//
//	before: the loop with its checks, while counter < min(bound, lo)
//	inside: the loop without them,    while counter < min(bound, hi)
//	after:  the loop with its checks, while counter < bound
//
// where [lo, hi) is the intersection of the checks' windows, and each
// piece's exit goes on to the next one's test. The counter only grows, so
// every iteration runs in the piece its counter belongs to and in order;
// a loop whose other checks fail the test before it runs all of its
// iterations in the last piece. Where a check fails, it fails in a piece
// that keeps it, at the same iteration as before.

// windowChecks splits checks into those decided by a window of the
// counter, affine with a coefficient of 1 or -1, and the rest.
func windowChecks(checks []hoistedCheck) (window, rest []hoistedCheck) {
	for _, c := range checks {
		if a, ok := c.form.coef.IsConst(); ok && !c.divisor && !c.ranged && c.bounds == nil && c.form.varies() && (a == 1 || a == -1) {
			window = append(window, c)
		} else {
			rest = append(rest, c)
		}
	}
	return window, rest
}

// headerTest finds the test that ends lp: the header's branch, which
// stays in the loop while counter+offset < bound, for a bound the loop
// does not change, compared in the header by the instruction at. The
// header must do nothing else that matters twice, as a piece's exit runs
// the next piece's header for the same iteration.
func headerTest(t *ir.Task, lp *ir.Loop, lv *loopValues) (at int, test exitTest, ok bool) {
	h := t.Blocks[lp.Header]
	for _, in := range h.Instrs {
		if info := in.Op.Info(); info.SideEffects || info.Memory.Writes() {
			return 0, exitTest{}, false
		}
	}
	cond := h.Term.Cond.Reg
	if len(lv.defs[cond]) != 1 {
		return 0, exitTest{}, false
	}
	for _, x := range lv.exitTests() {
		if x.block != lp.Header {
			continue
		}
		for i, in := range h.Instrs {
			if in.Dst == cond && in.Type == ir.Int64 && (in.Op == ir.OpLt || in.Op == ir.OpGt) {
				return i, x, true
			}
		}
	}
	return 0, exitTest{}, false
}

// versionWindow splits lp into the three pieces for the window checks,
// and takes out of the middle one the other checks too, when the test
// before the loop shows they pass in every iteration.
func versionWindow(t *ir.Task, lp *ir.Loop, lv *loopValues, window, rest []hoistedCheck, at int, exit exitTest, done map[int]bool) {
	g := &guard{t: t, lv: lv, start: preheader(t, lp), values: map[string]ir.Arg{}}
	after := copyLoop(t, lp, " (checked if, after)")
	before := copyLoop(t, lp, " (checked if, before)")
	for _, copies := range []map[int]int{after, before} {
		for _, b := range copies {
			done[b] = true
			t.Blocks[b].Checked = true
		}
	}
	for _, group := range groupChecks(rest) {
		for _, c := range group {
			g.decide(c)
		}
	}
	lo, hi := g.window(window)

	head := t.Blocks[lp.Header]
	test := &head.Instrs[at]
	bound := 1
	if test.Op == ir.OpGt {
		bound = 0
	}
	// The test compares counter+offset with a bound the loop does not
	// change, computed before it here: so do the window's ends.
	limit := g.compute(exit.bound, ir.R(lv.counter), "first")
	if exit.offset != 0 {
		lo = g.emit(ir.OpAdd, ir.Int64, lo, ir.Imm(ir.Int64, exit.offset))
		hi = g.emit(ir.OpAdd, ir.Int64, hi, ir.Imm(ir.Int64, exit.offset))
	}
	t.Blocks[before[lp.Header]].Instrs[at].Args[bound] = g.emit(ir.OpMin, ir.Int64, limit, lo)
	test.Args[bound] = g.emit(ir.OpMin, ir.Int64, limit, hi)
	t.Blocks[before[lp.Header]].Term.Succs[1] = lp.Header
	head.Term.Succs[1] = after[lp.Header]
	// The copy after the window runs whatever iterations the window
	// leaves, from wherever it stopped: a version of the window loop
	// (NarrowIndices') may leave it all of them. A copy that an earlier
	// round made for checks decided before the loop stays the fallback.
	if head.Fallback == 0 {
		head.Fallback = after[lp.Header]
	}

	g.chain(before[lp.Header], after[lp.Header])
	removeChecks(t, lp, append(window, rest...))
}

// window returns [lo, hi): the values of the counter for which every
// check's index is in range. The index is a·counter + b, and b is its
// value for a counter of 0, the same in every thread: so are lo and hi,
// which lets the GPU keep them in registers its threads share. Their
// arithmetic cannot overflow where the conditions it adds hold: b and
// the lengths lie within 2^61 of zero.
func (g *guard) window(checks []hoistedCheck) (lo, hi ir.Arg) {
	zero := ir.Imm(ir.Int64, 0)
	short := map[string]bool{} // lengths already required to be short
	// Of checks whose indices differ by constants, the two extremes
	// bound the window.
	checks = slices.Concat(groupChecks(checks)...)
	for i, c := range checks {
		b := g.compute(c.index, zero, "zero")
		length := g.compute(c.length, zero, "zero")
		g.require(ir.OpLe, g.emit(ir.OpAdd, ir.Uint64, g.unsigned(b), word(1<<61)), word(1<<62))
		if !short[c.length.key] {
			short[c.length.key] = true
			g.require(ir.OpLe, g.unsigned(length), word(1<<61))
		}
		var l, h ir.Arg
		if a, _ := c.form.coef.IsConst(); a == 1 {
			// 0 ≤ counter + b < length
			l = g.emit(ir.OpNeg, ir.Int64, b)
			h = g.emit(ir.OpSub, ir.Int64, length, b)
		} else {
			// 0 ≤ b - counter < length
			h = g.emit(ir.OpAdd, ir.Int64, b, ir.Imm(ir.Int64, 1))
			l = g.emit(ir.OpSub, ir.Int64, h, length)
		}
		if i == 0 {
			lo, hi = l, h
			continue
		}
		lo = g.emit(ir.OpMax, ir.Int64, lo, l)
		hi = g.emit(ir.OpMin, ir.Int64, hi, h)
	}
	return lo, hi
}
