package lower

import (
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// loop is a natural loop of a function's go/ssa blocks.
type loop struct {
	*ir.Loop
	header *ssa.BasicBlock
}

func (lp *loop) contains(b *ssa.BasicBlock) bool { return lp.Has(b.Index) }

// outermostLoops returns the natural loops of fn not nested in another,
// in the order of their headers' block indices.
func outermostLoops(fn *ssa.Function) []*loop {
	all := allLoops(fn)
	lps := make([]*ir.Loop, len(all))
	byLoop := map[*ir.Loop]*loop{}
	for i, lp := range all {
		lps[i] = lp.Loop
		byLoop[lp.Loop] = lp
	}
	var outer []*loop
	for _, lp := range ir.Outermost(lps) {
		outer = append(outer, byLoop[lp])
	}
	// Loops were found in block order of their first latch; order by header.
	for i := 1; i < len(outer); i++ {
		for j := i; j > 0 && outer[j].header.Index < outer[j-1].header.Index; j-- {
			outer[j], outer[j-1] = outer[j-1], outer[j]
		}
	}
	return outer
}

// allLoops returns every natural loop of fn.
func allLoops(fn *ssa.Function) []*loop {
	blocks := fn.Blocks
	index := func(bs []*ssa.BasicBlock) []int {
		is := make([]int, len(bs))
		for i, b := range bs {
			is[i] = b.Index
		}
		return is
	}
	var loops []*loop
	for _, lp := range ir.NaturalLoops(len(blocks),
		func(b int) []int { return index(blocks[b].Succs) },
		func(b int) []int { return index(blocks[b].Preds) },
		func(a, b int) bool { return blocks[a].Dominates(blocks[b]) }) {
		loops = append(loops, &loop{Loop: lp, header: blocks[lp.Header]})
	}
	return loops
}
