package lower

import (
	"fmt"

	"github.com/qdgo/qd/lower/ir"
)

// optimize runs the IR passes over every task, drops the tasks that have no
// effect, and numbers the rest.
func optimize(k *ir.Kernel) {
	var kept []*ir.Task
	for _, t := range k.Tasks {
		commuteImmediates(t)
		divideByConstants(t)
		removeDeadCode(t)
		simplifyCFG(t)
		unrollLoops(t)
		removeDeadCode(t)
		simplifyCFG(t)
		if hasEffects(t) {
			kept = append(kept, t)
		}
	}
	for i, t := range kept {
		t.Name = fmt.Sprintf("%s_%d", k.Name, i)
	}
	k.Tasks = kept
}

// hasEffects reports whether t writes memory.
func hasEffects(t *ir.Task) bool {
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			if b.Instrs[i].Op.HasSideEffects() {
				return true
			}
		}
	}
	return false
}

// removeDeadCode deletes instructions whose results nothing reads.
func removeDeadCode(t *ir.Task) {
	for {
		used := make([]bool, len(t.Regs))
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				for _, a := range b.Instrs[i].Args {
					if !a.Imm {
						used[a.Reg] = true
					}
				}
			}
			if b.Term.Kind == ir.Branch && !b.Term.Cond.Imm {
				used[b.Term.Cond.Reg] = true
			}
		}
		removed := false
		for _, b := range t.Blocks {
			kept := b.Instrs[:0]
			for _, in := range b.Instrs {
				if in.Op.HasSideEffects() || in.Dst == ir.NoReg || used[in.Dst] {
					kept = append(kept, in)
				} else {
					removed = true
				}
			}
			b.Instrs = kept
		}
		if !removed {
			return
		}
	}
}

// simplifyCFG threads jumps through empty blocks, removes unreachable
// blocks and numbers the rest in depth-first order from the entry.
func simplifyCFG(t *ir.Task) {
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
		for j := range b.Term.Successors() {
			b.Term.Succs[j] = order[b.Term.Succs[j]]
		}
	}
	t.Blocks = blocks
}

// commuteImmediates puts the immediate operand of a commutative operation
// second, as compilers canonically do; ptxas then keeps constants out of
// the registers it accumulates into.
func commuteImmediates(t *ir.Task) {
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			switch in.Op {
			case ir.OpAdd, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpMin, ir.OpMax, ir.OpEq, ir.OpNe, ir.OpMulHi:
				if len(in.Args) == 2 && in.Args[0].Imm && !in.Args[1].Imm {
					in.Args[0], in.Args[1] = in.Args[1], in.Args[0]
				}
			case ir.OpLt, ir.OpGt, ir.OpLe, ir.OpGe:
				if in.Args[0].Imm && !in.Args[1].Imm {
					in.Args[0], in.Args[1] = in.Args[1], in.Args[0]
					in.Op = map[ir.Op]ir.Op{ir.OpLt: ir.OpGt, ir.OpGt: ir.OpLt, ir.OpLe: ir.OpGe, ir.OpGe: ir.OpLe}[in.Op]
				}
			}
		}
	}
}
