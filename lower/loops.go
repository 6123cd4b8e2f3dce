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

// naturalLoops finds the natural loops of fn, with go/ssa's dominators, in
// the order of their headers' block indices.
func naturalLoops(fn *ssa.Function) []*loop {
	blocks := fn.Blocks
	index := func(bs []*ssa.BasicBlock) []int {
		is := make([]int, len(bs))
		for i, b := range bs {
			is[i] = b.Index
		}
		return is
	}
	found := ir.NaturalLoops(len(blocks),
		func(b int) []int { return index(blocks[b].Succs) },
		func(b int) []int { return index(blocks[b].Preds) },
		func(a, b int) bool { return blocks[a].Dominates(blocks[b]) })
	var loops []*loop
	for _, lp := range found {
		loops = append(loops, &loop{Loop: lp, header: blocks[lp.Header]})
	}
	// Loops were found in block order of their first latch; order by header.
	for i := 1; i < len(loops); i++ {
		for j := i; j > 0 && loops[j].header.Index < loops[j-1].header.Index; j-- {
			loops[j], loops[j-1] = loops[j-1], loops[j]
		}
	}
	return loops
}

// outermostLoops returns the natural loops of fn not nested in another, in
// the order of their headers' block indices.
func outermostLoops(fn *ssa.Function) []*loop {
	loops := naturalLoops(fn)
	var outer []*loop
	for _, lp := range loops {
		nested := false
		for _, other := range loops {
			if other != lp && other.Has(lp.Header) {
				nested = true
				break
			}
		}
		if !nested {
			outer = append(outer, lp)
		}
	}
	return outer
}
