package opt

import (
	"slices"
	"strconv"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// HoistChecks takes index checks out of loops. A check in a loop compares
// and branches in front of each load it guards, which keeps the GPU's
// compiler from issuing the loads of an iteration together; most indices
// in loops, though, are decided for all iterations at once by a few
// comparisons before the loop.
//
// The loop is kept twice: as it was, and without the checks that a test
// before it shows cannot fail in any iteration; the test picks the copy.
// So a loop that would fault runs with every check in place and faults as
// before, at the same check of the same iteration, and the other loops
// run without them. Checks qualify whatever the condition they are under,
// when their length does not change in the loop and their index is
//   - the same in every iteration;
//   - an affine function of the loop's counter, a·i+b with a and b the
//     same in every iteration (s[i], s[p-w], s[y*w+x] in x's loop, a[2*i+1],
//     s[len(s)-1-i], b[k*n+j] with n ≥ 0), when a test of the counter
//     against a bound that does not change runs in every iteration: the
//     counter then stays in [first, bound) and the test before the loop
//     compares both ends of the index's range with the length;
//   - known to stay in [0, m] for a constant m, as an unsigned byte
//     widened to an index does: one comparison of m with the length.
//
// Checks of a divisor qualify when the divisor does not change in the
// loop, as w in p/w, p%w: one test that it is not zero. A zero divisor
// sends the loop to the copy with checks, which faults where Go does, so
// these join whichever checks are taken out first, and keep no third copy.
//
// A check under a condition, whose index moves by one with the counter,
// is decided instead for the counter's values where it passes, so that
// the loop runs without checks there and with them only before and after
// (window.go): the border of a stencil does not send every thread to the
// copy with checks.
//
// Loops are taken outermost first, so that a check goes as far out as it
// can; inner loops of the copy that keeps its checks are left alone, since
// it runs only in launches that fault.
func HoistChecks(t *ir.Task) {
	done := map[int]bool{} // loop headers seen, and the blocks of checked copies
	for {
		var next *ir.Loop
		for _, lp := range t.Loops() {
			if !done[lp.Header] && (next == nil || len(lp.Blocks()) > len(next.Blocks())) {
				next = lp
			}
		}
		if next == nil {
			return
		}
		done[next.Header] = true
		hoistLoop(t, next, done)
	}
}

// hoistedCheck is a check and the facts that decide it before its loop.
type hoistedCheck struct {
	at     site
	index  *expr
	length *expr
	form   affine // of the index, when it is affine in the counter
	limit  *limit // the counter's bound, when the index depends on it
	most   uint64 // the index's largest value, when its form is not affine
	ranged bool
	// divisor: the check is of a divisor, index, of type typ, not being zero
	divisor bool
	// divided: its bounds divide by a value the loop does not change
	divided bool
	typ     ir.Type
	// bounds: the index lies in [lo, hi] of bounds when needs hold
	bounds *span
	needs  []*expr
}

// limit says that the counter is below bound+offset wherever the check is.
type limit struct {
	bound  *expr
	offset uint64
}

// hoistLoop versions lp for the checks that run in every iteration, then
// its copy without them for those under conditions: a conditional check
// may be out of range in iterations that skip it, as in if i > 0 {
// s[i-1] }, and must not keep the others in the loop when the test before
// it fails.
//
// Checks whose bounds divide (quotientSpan) come in a round of their own,
// after the others: their test may fail where the index never leaves the
// slice, as in[(p/w)*w + p%w] does where w does not divide len(in), and
// must not then keep the other checks in the loop too.
func hoistLoop(t *ir.Task, lp *ir.Loop, done map[int]bool) {
	rounds := []struct{ conditional, divided bool }{{false, false}, {false, true}, {true, false}}
	for _, round := range rounds {
		conditional := round.conditional
		lv := newLoopValues(t, lp, t.Dominators())
		if lv.latch < 0 {
			return
		}
		var checks, divisors []hoistedCheck
		for _, c := range lv.decidableChecks() {
			switch {
			case c.divisor:
				divisors = append(divisors, c)
			case lv.dom[lv.latch].Has(c.at.block) == conditional:
			case !conditional && c.divided != round.divided:
			default:
				checks = append(checks, c)
			}
		}
		if len(checks) > 0 || conditional {
			checks = append(checks, divisors...)
		}
		if len(checks) == 0 {
			continue
		}
		if !conditional {
			version(t, lp, lv, checks, " (checked)", done)
			continue
		}
		window, rest := windowChecks(checks)
		if at, exit, ok := headerTest(t, lp, lv); ok && len(window) > 0 {
			versionWindow(t, lp, lv, window, rest, at, exit, done)
		} else {
			version(t, lp, lv, checks, " (checked if)", done)
		}
	}
}

// version copies lp, the copy keeping every check, and removes checks from
// lp itself, with a test before them that goes to the copy unless none of
// the checks can fail.
func version(t *ir.Task, lp *ir.Loop, lv *loopValues, checks []hoistedCheck, suffix string, done map[int]bool) {
	g := &guard{t: t, lv: lv, start: preheader(t, lp), values: map[string]ir.Arg{}}
	checked := copyLoop(t, lp, suffix)
	for _, b := range checked {
		done[b] = true
		t.Blocks[b].Checked = true
	}
	t.Blocks[lp.Header].Fallback = checked[lp.Header]
	for _, group := range groupChecks(checks) {
		for _, c := range group {
			g.decide(c)
		}
	}
	g.chain(lp.Header, checked[lp.Header])
	removeChecks(t, lp, checks)
}

// removeChecks deletes the checks from the blocks of lp.
func removeChecks(t *ir.Task, lp *ir.Loop, checks []hoistedCheck) {
	for _, bi := range lp.Blocks() {
		b := t.Blocks[bi]
		kept := b.Instrs[:0]
		for i, in := range b.Instrs {
			if !slices.ContainsFunc(checks, func(c hoistedCheck) bool { return c.at == site{bi, i} }) {
				kept = append(kept, in)
			}
		}
		b.Instrs = kept
	}
}

// decidableChecks lists the index checks of the loop that a test before
// it can decide.
func (lv *loopValues) decidableChecks() []hoistedCheck {
	tests := lv.counterTests(true)
	var checks []hoistedCheck
	for _, bi := range lv.lp.Blocks() {
		for i, in := range lv.t.Blocks[bi].Instrs {
			p := site{bi, i}
			if in.Op == ir.OpCheckDivide {
				if d := lv.resolve(in.Args[0], p); d.invariant() {
					checks = append(checks, hoistedCheck{at: p, index: d, divisor: true, typ: in.Type})
				}
				continue
			}
			if in.Op != ir.OpCheckIndex {
				continue
			}
			c := hoistedCheck{at: p, index: lv.resolve(in.Args[0], p), length: lv.resolve(in.Args[1], p)}
			if !c.length.invariant() {
				continue
			}
			form, ok := lv.affineAt(in.Args[0], p)
			ok = ok && !c.index.opaque // the guard computes the index
			switch {
			case ok && !form.varies():
				c.form = form
			case ok:
				if c.limit = lv.counterLimit(tests, p); c.limit == nil {
					continue
				}
				c.form = form
			default:
				c.most, c.ranged = rangeOf(c.index)
				if c.ranged && c.length.constant && c.most >= c.length.leaf.Bits {
					// The test before the loop would always fail, as
					// for a quotient of 32 bits indexing a small array,
					// and send every launch to the copy with checks.
					c.ranged = false
				}
				if !c.ranged && !lv.spanned(&c, in.Args[0], lv.counterLimit(tests, p)) {
					continue
				}
			}
			checks = append(checks, c)
		}
	}
	return checks
}

// exitTest is a test that leaves the loop unless at+offset < bound, where
// at is the counter of the iteration that runs it. A guard is such a test
// that stays in the loop either way, as if i+1 < n { … } in its body: it
// bounds the counter only in the blocks its stay successor dominates.
type exitTest struct {
	block, stay int
	offset      uint64
	bound       *expr
	guard       bool
}

// exitTests finds the tests of the counter against an invariant bound
// that every iteration which goes on to the next runs: <, and <= read as
// < with the offset one less. The counter's side is read by ir/analysis;
// the bound need only be computable before the loop, and one that the
// loop computes from invariants, as min((c+1)*chunk, len(x)) is until
// invariants leave the loop, is no bound of the induction variable's
// Tests, which want one the loop does not assign.
func (lv *loopValues) exitTests() []exitTest {
	return lv.counterTests(false)
}

// counterTests returns the exit tests, and with guards the tests of the
// counter inside the loop too.
func (lv *loopValues) counterTests(guards bool) []exitTest {
	if lv.counter == ir.NoReg {
		return nil
	}
	var tests []exitTest
	for _, bi := range lv.lp.Blocks() {
		b := lv.t.Blocks[bi]
		term := b.Term
		if term.Kind != ir.Branch || term.Cond.Imm || !lv.lp.Has(term.Succs[0]) {
			continue
		}
		guard := lv.lp.Has(term.Succs[1])
		if guard && !guards || !guard && !lv.dom[lv.latch].Has(bi) {
			continue
		}
		c := lv.resolve(term.Cond, site{bi, len(b.Instrs)})
		if c.origin == nil || c.typ != ir.Int64 || c.op != ir.OpLt && c.op != ir.OpGt && c.op != ir.OpLe && c.op != ir.OpGe {
			continue
		}
		x, bound := 0, 1
		if c.op == ir.OpGt || c.op == ir.OpGe {
			x, bound = bound, x
		}
		form, ok := lv.affineAt(lv.instr(*c.origin).Args[x], *c.origin)
		if !ok || !c.args[bound].invariant() {
			continue
		}
		if a, ok := form.coef.IsConst(); !ok || a != 1 {
			continue
		}
		offset, ok := form.base.IsConst()
		if c.op == ir.OpLe || c.op == ir.OpGe {
			offset-- // counter+offset <= bound: counter+offset-1 < bound, as k <= i is k < i+1
		}
		if ok && uint64(offset)+1<<32 <= 1<<33 {
			tests = append(tests, exitTest{block: bi, stay: term.Succs[0], offset: uint64(offset), bound: c.args[bound], guard: guard})
		}
	}
	return tests
}

// counterLimit returns the bound of the counter in the iterations that
// reach p. A test that p comes after in its iteration bounds the counter
// there; one that comes later bounds the next iteration's, one step
// further, and the first iteration's counter is where the loop starts.
//
// A guard that p is under, as if s+1 < slabs { … } in a loop over
// s < slabs, bounds the counter more tightly where it compares with the
// same bound as the loop's test and a larger offset: there the load of the
// next slab reads slab slabs-1 at most, which the loop's own test would
// put one slab past the end.
func (lv *loopValues) counterLimit(tests []exitTest, p site) *limit {
	l := lv.exitLimit(tests, p)
	if l == nil {
		return nil
	}
	preds := lv.t.Preds()
	for _, x := range tests {
		if x.guard && len(preds[x.stay]) == 1 && lv.dom[p.block].Has(x.stay) &&
			x.bound.key == l.bound.key && int64(-x.offset) < int64(l.offset) {
			l = &limit{bound: x.bound, offset: -x.offset}
		}
	}
	return l
}

// exitLimit is counterLimit from the loop's exit tests alone.
func (lv *loopValues) exitLimit(tests []exitTest, p site) *limit {
	preds := lv.t.Preds()
	var later *limit
	for _, x := range tests {
		if x.guard {
			continue
		}
		if len(preds[x.stay]) == 1 && lv.dom[p.block].Has(x.stay) {
			return &limit{bound: x.bound, offset: -x.offset}
		}
		if lv.step.Imm && later == nil {
			later = &limit{bound: x.bound, offset: lv.step.Bits - x.offset}
		}
	}
	return later
}

// groupChecks sorts the checks into groups whose indices differ by
// constants only, on the same length and counter bound, and keeps from
// each the two with the smallest and the largest constant: the others'
// indices lie between theirs in every iteration.
func groupChecks(checks []hoistedCheck) [][]hoistedCheck {
	type extremes struct{ low, high hoistedCheck }
	var order []string
	groups := map[string]*extremes{}
	for _, c := range checks {
		if c.divisor {
			key := "divisor|" + c.index.key
			if _, ok := groups[key]; !ok {
				groups[key] = &extremes{c, c}
				order = append(order, key)
			}
			continue
		}
		variable := analysis.Affine{Terms: c.form.base.Terms} // the base less its constant
		key := c.length.key + "|" + c.form.coef.String() + "|" + variable.String()
		if c.limit != nil {
			key += "|" + c.limit.bound.key + "|" + strconv.FormatUint(c.limit.offset, 10)
		}
		if c.ranged {
			key = c.length.key + "|ranged"
		}
		if c.bounds != nil {
			key = c.length.key + "|span|" + c.bounds.lo.key + "|" + c.bounds.hi.key
		}
		g, ok := groups[key]
		if !ok {
			groups[key] = &extremes{c, c}
			order = append(order, key)
			continue
		}
		if c.ranged {
			if c.most > g.high.most {
				g.low, g.high = c, c
			}
			continue
		}
		if c.form.base.Const < g.low.form.base.Const {
			g.low = c
		}
		if c.form.base.Const > g.high.form.base.Const {
			g.high = c
		}
	}
	var out [][]hoistedCheck
	for _, k := range order {
		g := groups[k]
		if g.low.at == g.high.at {
			out = append(out, []hoistedCheck{g.low})
		} else {
			out = append(out, []hoistedCheck{g.low, g.high})
		}
	}
	return out
}
