package opt

import (
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// DropGridStrideTests removes the loop's own exit test from the body of a
// grid-stride loop. The lowering keeps the source loop's test, p+1 < n,
// before the latch advances the thread's index i by the grid, where the
// head tests i < n again: when p+1 < n fails, so does the head's test
// after the latch, since the grid has at least one thread. One test per
// iteration goes, as in the loop nvcc makes of the same source.
//
// The loop must have one latch, which advances i by the grid's thread
// count; the head must test "i+d < n", and the test "p+e < n" with p i's
// value in the iteration, 0 <= e <= d+1, and the same n, leaving to the
// same exit.
func DropGridStrideTests(t *ir.Task) {
	if t.Kind != ir.Parallel {
		return
	}
	an := analysis.New(t)
	for _, lp := range an.Loops {
		iv := gridIndexVar(an, lp)
		if iv == nil || iv.Exit == nil || iv.Exit.Block != lp.Header {
			continue
		}
		head := iv.Exit
		d, ok := head.ConstOffset()
		exit := t.Blocks[lp.Header].Term.Succs[1]
		if !ok || head.Op != ir.OpLt || lp.Has(exit) {
			continue
		}
		for _, test := range iv.Tests {
			b := t.Blocks[test.Block]
			if test == head || b.Term.Succs[1] != exit || test.Op != ir.OpLt || test.Type != head.Type || test.BoundArg != head.BoundArg {
				continue
			}
			// p+e < n fails only if i+count+d < n would: count >= 1, so
			// e <= d+1 suffices.
			if e, ok := test.ConstOffset(); !ok || e > d+1 || e < 0 {
				continue
			}
			b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{b.Term.Succs[0]}}
		}
	}
}

// gridIndexVar returns the index of a grid-stride loop: the induction
// variable that the loop's only latch advances by the grid's thread count.
func gridIndexVar(an *analysis.Analysis, lp *analysis.Loop) *analysis.IndVar {
	if len(lp.Latches) != 1 {
		return nil
	}
	for _, iv := range lp.IndVars {
		if iv.GridStride() && iv.Update.Block == lp.Latches[0] && iv.Update == iv.Sum {
			return iv
		}
	}
	return nil
}
