package lower

import "golang.org/x/tools/go/ssa"

// loop is a natural loop: a header that dominates every block of the loop,
// and the blocks that reach a back edge to it without passing the header.
type loop struct {
	header  *ssa.BasicBlock
	blocks  []bool // indexed by BasicBlock.Index
	latches []*ssa.BasicBlock
}

func (lp *loop) contains(b *ssa.BasicBlock) bool { return lp.blocks[b.Index] }

// outermostLoops finds the natural loops of fn by dominators (an edge b→h is
// a back edge when h dominates b) and returns those not nested in another,
// in the order of their headers' block indices.
func outermostLoops(fn *ssa.Function) []*loop {
	byHeader := make(map[*ssa.BasicBlock]*loop)
	var loops []*loop
	for _, b := range fn.Blocks {
		for _, h := range b.Succs {
			if !h.Dominates(b) {
				continue
			}
			lp := byHeader[h]
			if lp == nil {
				lp = &loop{header: h, blocks: make([]bool, len(fn.Blocks))}
				lp.blocks[h.Index] = true
				byHeader[h] = lp
				loops = append(loops, lp)
			}
			lp.latches = append(lp.latches, b)
			// Walk backwards from the latch to the header.
			stack := []*ssa.BasicBlock{b}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if lp.blocks[x.Index] {
					continue
				}
				lp.blocks[x.Index] = true
				stack = append(stack, x.Preds...)
			}
		}
	}
	var outer []*loop
	for _, lp := range loops {
		nested := false
		for _, other := range loops {
			if other != lp && other.blocks[lp.header.Index] {
				nested = true
				break
			}
		}
		if !nested {
			outer = append(outer, lp)
		}
	}
	// Loops were found in block order of their first latch; order by header.
	for i := 1; i < len(outer); i++ {
		for j := i; j > 0 && outer[j].header.Index < outer[j-1].header.Index; j-- {
			outer[j], outer[j-1] = outer[j-1], outer[j]
		}
	}
	return outer
}
