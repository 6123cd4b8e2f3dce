package lower

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// loopFailure says why a loop cannot run in parallel.
type loopFailure struct {
	pos    token.Pos
	reason string   // completes "the loop cannot run in parallel: ..."
	kind   failKind // how recognizeLoop reports it
	name   string   // the variable a carried failure carries
	why    string   // why that variable is not a reduction
}

type failKind uint8

const (
	notCounted failKind = iota // the loop's shape
	carried                    // a value flows from one iteration to the next
	appends                    // a slice grows with append from one iteration to the next
	breaks                     // a break leaves it
)

// recognizeLoop checks that the top-level loop lp is a counted loop whose
// iterations can run in parallel, and describes it; otherwise it reports
// why not. The reductions whose results are read after it get their
// places in scratch memory.
func (l *lowerer) recognizeLoop(fn *ssa.Function, lp *loop, stmt ast.Stmt) *parLoop {
	pl, fail := l.matchLoop(fn, lp, stmt, nil)
	if fail == nil {
		for _, red := range pl.reductions {
			if red.result != nil {
				red.slot = l.k.Reductions
				l.k.Reductions++
				l.results[red.result] = red
				clear(l.pure) // a result is pure after all
			}
		}
		return pl
	}
	switch fail.kind {
	case carried:
		name := fail.name
		l.errorf(fail.pos, "variable %s is carried from one iteration of this parallel loop to the next, and %s: iterations run at the same time, so no value can flow between them; "+
			"to combine values over all iterations, update a variable only with +=, -=, *=, &=, |=, ^= or %s = min(%s, v) or max(%s, v) and read it after the loop (a reduction), "+
			"or update a slice element with an atomic (sync/atomic, qd.AtomicAdd, qd.AtomicMin, qd.AtomicMax); otherwise compute it inside each iteration, or give each iteration its own slice element",
			name, fail.why, name, name, name)
	case appends:
		l.errorf(fail.pos, "%s", appendMessage)
	case breaks:
		l.errorf(fail.pos, "break in a parallel loop is not supported: its iterations run at the same time, so none can stop the others; skip the rest of an iteration with continue instead")
	default:
		l.errorf(fail.pos, "top-level loop cannot run in parallel: %s; a top-level loop's iterations run in parallel, so it must count an index up to a bound (for i := range n, for i := range s, or for i := a; i < b; i++); to run a loop serially, move it into a helper function", fail.reason)
	}
	return nil
}

// matchLoop describes lp, the loop of stmt, as a counted loop whose
// iterations can run in parallel, or says why it is not one. When lp is
// an inner level of the loop nest of the top-level loop nest, the
// variables that nest's reductions carry through lp are no concern of
// lp's: they are combined over all the nest's iterations.
func (l *lowerer) matchLoop(fn *ssa.Function, lp *loop, stmt ast.Stmt, nest *parLoop) (*parLoop, *loopFailure) {
	pos := stmt.Pos()
	h := lp.header
	fail := func(format string, args ...any) (*parLoop, *loopFailure) {
		return nil, &loopFailure{pos: pos, reason: fmt.Sprintf(format, args...)}
	}
	failExit := func() (*parLoop, *loopFailure) {
		if br := findBreak(stmt); br != nil {
			return nil, &loopFailure{pos: br.Pos(), reason: "a break leaves it", kind: breaks}
		}
		return fail("it can be left other than by its test (break or goto)")
	}
	pl := &parLoop{lp: lp, pos: pos}
	// The single entry.
	for _, p := range h.Preds {
		if !lp.contains(p) {
			if pl.pre != nil {
				return fail("it is entered from several places")
			}
			pl.pre = p
		}
	}
	if pl.pre == nil {
		return fail("it has no entry")
	}

	// The induction variable, and no other values carried between iterations.
	var phis []*ssa.Phi
	for _, instr := range h.Instrs {
		phi, ok := instr.(*ssa.Phi)
		if !ok {
			break
		}
		if init, ok := inductionInit(phi, lp); ok && pl.phi == nil {
			pl.phi, pl.init = phi, init
			continue
		}
		phis = append(phis, phi)
	}
	if pl.phi == nil {
		return fail("it has no index that starts at a value and goes up by 1")
	}
	if _, ok := basicType(pl.phi.Type()); !ok || !isIntegerType(pl.phi) {
		return fail("its index is not an integer")
	}

	// The exits: one test of the index against a bound, nothing else.
	var test *ssa.If
	var testBlock *ssa.BasicBlock
	var x ssa.Value
	for _, b := range fn.Blocks {
		if !lp.contains(b) {
			continue
		}
		last := b.Instrs[len(b.Instrs)-1]
		if _, ok := last.(*ssa.Return); ok {
			return fail("it contains a return") // also reported by checkReturns
		}
		for si, s := range b.Succs {
			if lp.contains(s) {
				continue
			}
			if pl.exit == nil {
				pl.exit = s
			}
			iff, ok := last.(*ssa.If)
			if !ok || si != 1 || s != pl.exit || test != nil {
				return failExit()
			}
			cx, bound, ok := indexTest(iff.Cond, pl.phi)
			if !ok && nest != nil {
				// An inner level of a nest may test j <= bound: whether
				// it can run in parallel is perfectChild's to decide.
				bound, ok = inclusiveTest(iff.Cond, pl.phi)
				cx, pl.inclusive = pl.phi, ok
			}
			if !ok {
				return failExit()
			}
			test, testBlock, x, pl.bound = iff, b, cx, bound
		}
	}
	if test == nil {
		return fail("it has no exit test")
	}
	pl.test = test
	if !l.invariant(pl.bound, lp) {
		return fail("its bound changes from one iteration to the next")
	}
	if !l.invariant(pl.init, lp) {
		return fail("its start is not fixed before the loop")
	}

	switch last := pl.pre.Instrs[len(pl.pre.Instrs)-1].(type) {
	case *ssa.Jump:
		// The test comes first in the header: iteration φ=v runs iff X(v) < bound.
		if testBlock != h {
			return fail("its test does not come first")
		}
		if x != ssa.Value(pl.phi) {
			pl.delta = 1
		}
	case *ssa.If:
		// A rotated loop: pre tests init < bound, the latch tests φ+1 < bound.
		c, bound, ok := indexTest(last.Cond, nil)
		if !ok || !sameValue(c, pl.init) || !sameValue(bound, pl.bound) ||
			last.Block().Succs[0] != h || last.Block().Succs[1] != pl.exit || x == ssa.Value(pl.phi) {
			return fail("its entry test does not match its exit test")
		}
		pl.pretest = true
	default:
		return fail("its entry is not a jump or a test")
	}
	if nest != nil {
		phis = slices.DeleteFunc(phis, nest.reduces)
	}
	if failure := l.matchReductions(pl, phis); failure != nil {
		return nil, failure
	}
	for _, instr := range pl.exit.Instrs {
		if phi, ok := instr.(*ssa.Phi); ok && !pl.reductionResult(phi) && !(nest != nil && passesOver(phi, nest, lp)) {
			return fail("a value computed in it is used after it")
		}
	}
	return pl, nil
}

// passesOver reports whether phi, in the exit of lp, an inner level of the
// loop nest of nest, holds one of nest's reductions or takes from lp only
// values computed outside it: an inner loop that ends at the header of the
// loop around it passes that loop's variables over.
func passesOver(phi *ssa.Phi, nest *parLoop, lp *loop) bool {
	if nest.reduces(phi) {
		return true
	}
	for i, e := range phi.Edges {
		if in, ok := e.(ssa.Instruction); ok && lp.contains(phi.Block().Preds[i]) && in.Block() != nil && lp.contains(in.Block()) {
			return false
		}
	}
	return true
}

// matchReductions finds the reductions among the variables the loop pl
// carries (phis, besides its index), or the first that is not one.
func (l *lowerer) matchReductions(pl *parLoop, phis []*ssa.Phi) *loopFailure {
	for _, phi := range phis {
		if phi.Referrers() == nil || len(*phi.Referrers()) == 0 {
			continue
		}
		if call := appendTo(phi); call != nil {
			return &loopFailure{pos: call.Pos(), reason: "a slice grows with append in it", kind: appends}
		}
		red, why, at := l.reductionOf(phi, pl)
		if red == nil {
			name := phi.Comment
			if name == "" {
				name = phi.Name()
			}
			if !at.IsValid() {
				at = pl.pos
			}
			return &loopFailure{pos: at, reason: fmt.Sprintf("variable %s is carried from one iteration to the next, and %s", name, why), kind: carried, name: name, why: why}
		}
		pl.reductions = append(pl.reductions, red)
	}
	return nil
}

// reductionResult reports whether phi is the value of one of pl's
// reductions after the loop.
func (pl *parLoop) reductionResult(phi *ssa.Phi) bool {
	for _, red := range pl.reductions {
		if red.result == ssa.Value(phi) {
			return true
		}
	}
	return false
}

// appendMessage is the diagnostic of append, in a parallel loop or
// anywhere else in a kernel.
const appendMessage = "append is not supported in kernels: a kernel cannot grow a slice; " +
	"pass a slice parameter of the length you need and write its elements by index (out[i] = v), " +
	"or, to keep only some values, take the next index from a counter with atomic.AddInt32"

// appendTo returns the call of append that makes the value the loop
// variable phi carries into the next iteration, if there is one: a slice
// built up with append, which is no reduction, and which its own message
// explains better than a carried variable's.
func appendTo(phi *ssa.Phi) *ssa.Call {
	for _, e := range phi.Edges {
		if call, ok := e.(*ssa.Call); ok {
			if b, ok := call.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" {
				return call
			}
		}
	}
	return nil
}
