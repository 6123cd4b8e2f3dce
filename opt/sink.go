package opt

import (
	"math/bits"

	"github.com/qdgo/qd/ir"
)

// SinkToUses moves a pure computation out of its block down to the block
// where its uses meet: the deepest block that dominates every read of its
// result. The passes that decide checks before a loop (hoistchecks,
// index32) compute every condition in one block and test them one after
// another in a chain of blocks below it; a 3-D stencil has a hundred such
// conditions, all live at once, and the registers they take are the
// kernel's for its whole run (Conv3D held 120 registers a thread where 26
// suffice, a quarter of the threads a multiprocessor could keep). Moved to
// the test that reads it, each lives for a few instructions.
//
// An instruction moves when it is pure and cannot fault (an integer
// division stays), its result is assigned only there and before every
// read, its operands likewise (so they hold the same values at the new
// place), the new block is in no loop the old one is not in (it runs no
// more often), and every register operand stays live down to the new block
// anyway, read by another instruction there or below, or is a kernel
// parameter, which the target reloads for nothing: moving must not stretch
// one live range to shorten another. The new block is dominated by the old
// one, so the computation runs on fewer paths, never on new ones.
// Instructions are visited from the last to the first in a reverse
// postorder, so that a chain of computations feeding one test moves down
// together, readers first.
func SinkToUses(t *ir.Task) {
	n := len(t.Blocks)
	if n < 2 {
		return
	}
	dom := t.Dominators()
	defs := defSites(t)
	single := singleDefs(t, defs, dom)
	depth := make([]int, n) // a block's depth in the dominator tree
	for b := range dom {
		for _, w := range dom[b] {
			depth[b] += bits.OnesCount64(w)
		}
	}
	inLoops := make([]ir.BlockSet, n) // the headers of the loops each block is in
	for b := range inLoops {
		inLoops[b] = ir.NewBlockSet(n)
	}
	for _, lp := range t.Loops() {
		for _, b := range lp.Blocks() {
			inLoops[b].Add(lp.Header)
		}
	}
	// Each instruction by its number; a block is a list of numbers, so that
	// moving one keeps the others' numbers.
	var all []ir.Instr
	order := make([][]int, n)
	home := []int{} // the block each instruction is in now
	for bi, b := range t.Blocks {
		for _, x := range b.Instrs {
			order[bi] = append(order[bi], len(all))
			home = append(home, bi)
			all = append(all, x)
		}
	}
	// readers lists, for each register, the instructions that read it;
	// branchIn, the blocks whose branch tests it.
	readers := make([][]int, len(t.Regs))
	branchIn := make([][]int, len(t.Regs))
	for id := range all {
		for _, a := range all[id].Args {
			if !a.Imm {
				readers[a.Reg] = append(readers[a.Reg], id)
			}
		}
	}
	for bi, b := range t.Blocks {
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm {
			branchIn[c.Reg] = append(branchIn[c.Reg], bi)
		}
	}
	lca := func(a, b int) int {
		best := 0
		for w := range dom[a] {
			common := dom[a][w] & dom[b][w]
			for common != 0 {
				i := w*64 + bits.TrailingZeros64(common)
				common &= common - 1
				if depth[i] > depth[best] {
					best = i
				}
			}
		}
		return best
	}
	moved := false
	rpo := reversePostorder(t)
	reachable := make([]bool, n)
	for _, b := range rpo {
		reachable[b] = true
	}
	for k := len(rpo) - 1; k >= 0; k-- {
		bi := rpo[k]
		for j := len(order[bi]) - 1; j >= 0; j-- {
			id := order[bi][j]
			x := &all[id]
			if !sinkable(x, single) {
				continue
			}
			target := -1
			for _, r := range readers[x.Dst] {
				target = meet(target, home[r], reachable, lca)
			}
			for _, b := range branchIn[x.Dst] {
				target = meet(target, b, reachable, lca)
			}
			if target < 0 || !subset(inLoops[target], inLoops[bi]) {
				continue
			}
			if target == bi {
				continue // inside a block, order is ptxas's to choose
			}
			// The new place: before the first reader in target, after x's
			// old place when target is x's own block.
			rest := order[bi][:j:j]
			rest = append(rest, order[bi][j+1:]...)
			list := order[target]
			if target == bi {
				list = rest
			}
			at := len(list)
			for i := range list {
				if (target != bi || i >= j) && reads(&all[list[i]], x.Dst) {
					at = i
					break
				}
			}
			if target == bi && at == j {
				continue // already there
			}
			var readAfter func(id int) bool
			var branchAfter func(b int) bool
			if target == bi {
				pos := map[int]int{}
				for i, other := range list {
					pos[other] = i
				}
				readAfter = func(r int) bool {
					if home[r] == bi {
						return pos[r] >= at
					}
					return dom[home[r]].Has(bi)
				}
				branchAfter = func(b int) bool { return dom[b].Has(bi) }
			} else {
				readAfter = func(r int) bool { return dom[home[r]].Has(target) }
				branchAfter = func(b int) bool { return dom[b].Has(target) }
			}
			if !operandsLive(x, id, readers, branchIn, defs, single, t, readAfter, branchAfter, 0) {
				continue
			}
			list = append(list[:at], append([]int{id}, list[at:]...)...)
			if target == bi {
				order[bi] = list
			} else {
				order[bi] = rest
				order[target] = list
			}
			home[id] = target
			moved = true
		}
	}
	if !moved {
		return
	}
	for bi, b := range t.Blocks {
		instrs := make([]ir.Instr, 0, len(order[bi]))
		for _, id := range order[bi] {
			instrs = append(instrs, all[id])
		}
		b.Instrs = instrs
	}
}

// sinkable reports whether x may run later, in a block its own dominates.
func sinkable(x *ir.Instr, single []bool) bool {
	if x.Dst == ir.NoReg || !single[x.Dst] || !hoistable(x) || x.Op == ir.OpThreadCount {
		return false
	}
	for _, a := range x.Args {
		if !a.Imm && !single[a.Reg] {
			return false
		}
	}
	return true
}

// operandsLive reports whether every register operand of instruction id
// is a parameter, is read again after the new place (by another
// instruction, readAfter, or a branch, branchAfter), or is itself computed
// by an instruction that may move and whose operands are such in turn
// (visited later, it goes down to its readers when they allow). A tree of
// computations from parameters moves down whole; one that reads a loaded
// value otherwise dead stays.
func operandsLive(x *ir.Instr, id int, readers, branchIn [][]int, defs [][]site, single []bool, t *ir.Task, readAfter func(int) bool, branchAfter func(int) bool, depth int) bool {
	for _, a := range x.Args {
		if a.Imm {
			continue
		}
		d := defs[a.Reg][0]
		def := &t.Blocks[d.block].Instrs[d.at]
		switch {
		case def.Op == ir.OpParam, def.Op == ir.OpParamBase, def.Op == ir.OpParamLen:
			continue
		case depth < 8 && sinkable(def, single) &&
			operandsLive(def, -1, readers, branchIn, defs, single, t, readAfter, branchAfter, depth+1):
			continue // it follows, when its readers allow
		}
		live := false
		for _, r := range readers[a.Reg] {
			if r != id && readAfter(r) {
				live = true
				break
			}
		}
		for _, b := range branchIn[a.Reg] {
			if branchAfter(b) {
				live = true
			}
		}
		if !live {
			return false
		}
	}
	return true
}

// meet is the block that dominates both a (or nothing, -1) and b; a
// reader in an unreachable block keeps the instruction where it is (-2).
func meet(a, b int, reachable []bool, lca func(a, b int) int) int {
	switch {
	case a == -2 || !reachable[b]:
		return -2
	case a < 0:
		return b
	}
	return lca(a, b)
}

// empty reports whether s has no block.
func empty(s ir.BlockSet) bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// subset reports whether every block of a is in b.
func subset(a, b ir.BlockSet) bool {
	for w := range a {
		if a[w]&^b[w] != 0 {
			return false
		}
	}
	return true
}
