package opt

import (
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// MarkUnevenIterations marks a parallel task uneven (ir.Task.Uneven) when
// one of the loops in its iterations may leave on a value it computes, not
// only on a counter reaching a bound: an escape-time fractal's pixels take
// from one iteration to the limit. A grid of a few waves of threads, each
// striding over several such iterations, ends with the multiprocessors
// that drew slow blocks still running while the others wait; with a
// thread an iteration, as nvcc's kernels are launched, a multiprocessor
// takes a new block whenever one finishes, and the last blocks are short.
// Loops that only count keep the few waves: their iterations take as long
// as each other, and striding pays each thread's setup once.
func MarkUnevenIterations(t *ir.Task) {
	if t.Kind != ir.Parallel {
		return
	}
	var an *analysis.Analysis
	loops := t.Loops()
	for _, lp := range loops {
		if !inIteration(lp, loops) {
			continue
		}
		if an == nil {
			an = analysis.New(t)
		}
		if leavesOnComputedValue(t, an, lp) {
			t.Uneven = true
			return
		}
	}
}

// inIteration reports whether lp is nested in another loop: in a parallel
// task, a loop inside an iteration of the grid-stride loop. The grid-stride
// loops and what follows them, such as the loop that combines a
// reduction's partial results, are not.
func inIteration(lp *ir.Loop, loops []*ir.Loop) bool {
	for _, other := range loops {
		if other != lp && other.Has(lp.Header) {
			return true
		}
	}
	return false
}

// leavesOnComputedValue reports whether a branch out of the loop tests a
// value the loop computes from data: its condition depends, through the
// loop's own assignments, on a load, a float, or an integer operation
// that is not a counter's step (a division, a remainder, bitwise mixing).
// A counter compared with a bound, in any width, does not.
func leavesOnComputedValue(t *ir.Task, an *analysis.Analysis, lp *ir.Loop) bool {
	l := an.LoopAt(lp.Header)
	if l == nil {
		return false
	}
	seen := map[ir.Reg]bool{}
	for _, b := range lp.Blocks() {
		term := t.Blocks[b].Term
		if term.Kind != ir.Branch || term.Cond.Imm || lp.Has(term.Succs[0]) && lp.Has(term.Succs[1]) {
			continue
		}
		if computed(an, l, term.Cond.Reg, seen) {
			return true
		}
	}
	return false
}

// computed reports whether r, as the loop l assigns it, depends on data
// (see leavesOnComputedValue). Registers already seen count as not.
func computed(an *analysis.Analysis, l *analysis.Loop, r ir.Reg, seen map[ir.Reg]bool) bool {
	if seen[r] {
		return false
	}
	seen[r] = true
	for _, site := range an.DefsIn(r, l) {
		in := an.Instr(site)
		if in.Type.IsFloat() || in.From.IsFloat() || !countingOp(in.Op) {
			return true
		}
		for _, a := range in.Args {
			if !a.Imm && computed(an, l, a.Reg, seen) {
				return true
			}
		}
	}
	return false
}

// countingOp reports whether op is one a counter and its tests are made
// of.
func countingOp(op ir.Op) bool {
	switch op {
	case ir.OpMove, ir.OpConvert, ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpShl, ir.OpMin, ir.OpMax,
		ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe, ir.OpEq, ir.OpNe, ir.OpAnd, ir.OpOr, ir.OpNot:
		return true
	}
	return false
}
