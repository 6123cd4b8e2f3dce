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
	for _, lp := range t.Loops() {
		if usesThreadCount(t, lp) {
			continue // the grid-stride loop itself
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

// leavesOnComputedValue reports whether a branch out of the loop is not a
// test of one of its counters against a bound it does not change.
func leavesOnComputedValue(t *ir.Task, an *analysis.Analysis, lp *ir.Loop) bool {
	l := an.LoopAt(lp.Header)
	if l == nil {
		return false
	}
	counted := map[int]bool{}
	for _, iv := range l.IndVars {
		for _, test := range iv.Tests {
			counted[test.Block] = true
		}
	}
	for _, b := range lp.Blocks() {
		term := t.Blocks[b].Term
		if term.Kind != ir.Branch || counted[b] {
			continue
		}
		if !lp.Has(term.Succs[0]) || !lp.Has(term.Succs[1]) {
			return true
		}
	}
	return false
}
