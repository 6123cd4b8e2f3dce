package lower

import (
	"fmt"

	"github.com/qdgo/qd/lower/ir"
)

// Loops at most this big are unrolled, unrollFactor times.
const (
	unrollFactor    = 4
	unrollMaxInstrs = 64
	unrollMaxBlocks = 12
)

// unrollLoops unrolls the small innermost loops of a task, keeping each
// copy's exit tests: iterations then follow each other without a taken
// branch, which a GPU pays for in every iteration of a short loop body. It
// is always correct, whatever the trip count, because each copy still
// tests whether to leave. The grid-stride loop of a parallel task is left
// alone: its iterations are whole loop bodies already.
func unrollLoops(t *ir.Task) {
	for _, lp := range innermostLoops(t) {
		if lp.size(t) <= unrollMaxInstrs && len(lp.blocks) <= unrollMaxBlocks && !lp.usesThreadCount(t) {
			unroll(t, lp, unrollFactor)
		}
	}
}

// irLoop is a natural loop of a task's CFG.
type irLoop struct {
	header int
	blocks []int
	in     []bool
}

func (lp *irLoop) size(t *ir.Task) int {
	n := 0
	for _, b := range lp.blocks {
		n += len(t.Blocks[b].Instrs)
	}
	return n
}

func (lp *irLoop) usesThreadCount(t *ir.Task) bool {
	counts := map[ir.Reg]bool{}
	for _, b := range t.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpThreadCount {
				counts[in.Dst] = true
			}
		}
	}
	for _, b := range lp.blocks {
		for _, in := range t.Blocks[b].Instrs {
			for _, a := range in.Args {
				if !a.Imm && counts[a.Reg] {
					return true
				}
			}
		}
	}
	return false
}

// innermostLoops finds the natural loops of t by dominators and returns
// those that contain no other loop.
func innermostLoops(t *ir.Task) []*irLoop {
	n := len(t.Blocks)
	dom := dominators(t)
	preds := make([][]int, n)
	for i, b := range t.Blocks {
		for _, s := range b.Term.Successors() {
			preds[s] = append(preds[s], i)
		}
	}
	byHeader := map[int]*irLoop{}
	var loops []*irLoop
	for i, b := range t.Blocks {
		for _, h := range b.Term.Successors() {
			if !dom[i].has(h) {
				continue
			}
			lp := byHeader[h]
			if lp == nil {
				lp = &irLoop{header: h, in: make([]bool, n)}
				lp.in[h] = true
				byHeader[h] = lp
				loops = append(loops, lp)
			}
			stack := []int{i}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if lp.in[x] {
					continue
				}
				lp.in[x] = true
				stack = append(stack, preds[x]...)
			}
		}
	}
	var inner []*irLoop
	for _, lp := range loops {
		nested := false
		for _, other := range loops {
			if other != lp && lp.in[other.header] {
				nested = true
			}
		}
		if nested {
			continue
		}
		for b := range n {
			if lp.in[b] {
				lp.blocks = append(lp.blocks, b)
			}
		}
		inner = append(inner, lp)
	}
	return inner
}

type blockSet []uint64

func (s blockSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// dominators computes, for each block, the set of blocks that dominate it,
// by iterating dom(b) = {b} ∪ ⋂ dom(p) over predecessors p to a fixpoint.
func dominators(t *ir.Task) []blockSet {
	n := len(t.Blocks)
	words := (n + 63) / 64
	preds := make([][]int, n)
	for i, b := range t.Blocks {
		for _, s := range b.Term.Successors() {
			preds[s] = append(preds[s], i)
		}
	}
	dom := make([]blockSet, n)
	for i := range dom {
		dom[i] = make(blockSet, words)
		if i == 0 {
			dom[0][0] = 1
			continue
		}
		for w := range dom[i] {
			dom[i][w] = ^uint64(0)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := 1; i < n; i++ {
			next := make(blockSet, words)
			first := true
			for _, p := range preds[i] {
				if first {
					copy(next, dom[p])
					first = false
					continue
				}
				for w := range next {
					next[w] &= dom[p][w]
				}
			}
			next[i/64] |= 1 << (i % 64)
			for w := range next {
				if next[w] != dom[i][w] {
					changed = true
				}
			}
			dom[i] = next
		}
	}
	return dom
}

// unroll copies the loop's blocks factor-1 times and chains the copies:
// the back edges of copy c lead to the header of copy c+1, and those of
// the last copy to the original header.
func unroll(t *ir.Task, lp *irLoop, factor int) {
	copies := make([]map[int]int, factor)
	copies[0] = map[int]int{}
	for _, b := range lp.blocks {
		copies[0][b] = b
	}
	for c := 1; c < factor; c++ {
		copies[c] = map[int]int{}
		for _, b := range lp.blocks {
			orig := t.Blocks[b]
			nb := t.NewBlock(fmt.Sprintf("%s (unrolled %d)", orig.Comment, c))
			nb.Instrs = make([]ir.Instr, len(orig.Instrs))
			for i, in := range orig.Instrs {
				in.Args = append([]ir.Arg(nil), in.Args...)
				nb.Instrs[i] = in
			}
			nb.Term = orig.Term
			copies[c][b] = nb.Index
		}
	}
	for c := range factor {
		for _, b := range lp.blocks {
			term := &t.Blocks[copies[c][b]].Term
			succs := term.Successors()
			for j, s := range succs {
				switch {
				case s == lp.header:
					succs[j] = copies[(c+1)%factor][lp.header]
				case lp.in[s]:
					succs[j] = copies[c][s]
				}
			}
		}
	}
}
