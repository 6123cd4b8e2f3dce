package opt

import "github.com/qdgo/qd/ir"

// SimplifyCFG threads jumps through empty blocks, removes unreachable
// blocks and numbers the rest in depth-first order from the entry.
func SimplifyCFG(t *ir.Task) {
	// Where a jump to block i really leads.
	target := func(i int) int {
		for steps := 0; steps < len(t.Blocks); steps++ {
			b := t.Blocks[i]
			if i == 0 || len(b.Instrs) > 0 || b.Term.Kind != ir.Jump || b.Term.Succs[0] == i {
				return i
			}
			i = b.Term.Succs[0]
		}
		return i
	}
	for _, b := range t.Blocks {
		for j := range b.Term.Successors() {
			b.Term.Succs[j] = target(b.Term.Succs[j])
		}
		if b.Term.Kind == ir.Branch && b.Term.Succs[0] == b.Term.Succs[1] {
			b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{b.Term.Succs[0]}}
		}
	}
	// Renumber reachable blocks in depth-first preorder, taking a branch's
	// fall-through (else) side last so that loops read top to bottom.
	order := make([]int, len(t.Blocks))
	for i := range order {
		order[i] = -1
	}
	var blocks []*ir.Block
	var visit func(i int)
	visit = func(i int) {
		if order[i] >= 0 {
			return
		}
		order[i] = len(blocks)
		blocks = append(blocks, t.Blocks[i])
		for _, s := range t.Blocks[i].Term.Successors() {
			visit(s)
		}
	}
	visit(0)
	for i, b := range blocks {
		b.Index = i
		if b.Fallback != 0 {
			b.Fallback = max(order[target(b.Fallback)], 0) // none, if it is unreachable
		}
		for j := range b.Term.Successors() {
			b.Term.Succs[j] = order[b.Term.Succs[j]]
		}
	}
	t.Blocks = blocks
}
