package opt

import "github.com/qdgo/qd/ir"

// WaitOnlyForNextBlock moves the barrier that ends the last thread loop of
// a block-level task's body from the end of each pass over the body to the
// start of the next: the threads wait there so that the next block
// index's first stores cannot overtake this one's last loads, and a block
// that has no next index, which is every block where the grid covers the
// loop (the launch gives one block per iteration up to the grid's
// limit), then ends without waiting. The CUDA C of the same tiling has no
// barrier there at all; qd's cost every block of example/transpose a third
// barrier.
//
//	end:   ...; barrier; jump latch        end:   ...; jump latch
//	latch: blk += step; jump head          latch: blk += step; jump next
//	head:  c = lt blk, n; branch c, body, exit
//	                                       next:  c = lt blk, n; branch c, wait, exit
//	                                       wait:  barrier; jump body
//
// The barrier moves along the blocks that compute registers only (the
// latch, the loop's test, and a rotated loop's test at its bottom), past
// tests whose other side returns at once, so nothing else sees memory
// between its two places; a block on the way that is entered from
// elsewhere too (the head, from before the first block index) is copied
// for this path. Code between thread loops sees no thread index, so every
// thread of a block takes the same side of each test: all reach the
// barrier at its new place, or none does.
func WaitOnlyForNextBlock(t *ir.Task) {
	if t.Kind != ir.BlockLevel {
		return
	}
	preds := predecessors(t)
	for _, end := range t.Blocks {
		n := len(end.Instrs)
		if n == 0 || end.Instrs[n-1].Op != ir.OpBarrier || end.Term.Kind != ir.Jump {
			continue
		}
		// Follow the register arithmetic and the tests that may end the
		// task (the latch, the loop's test) as far as they go, and wait
		// on the edge out of them: where a test on the way may end the
		// task, which the barrier then needs not wait for.
		if !mayEnd(t, end) {
			continue
		}
		from, side := end, 0
		for range walkLimit {
			b := t.Blocks[from.Term.Succs[side]]
			next := onward(t, b)
			if b == end || next < 0 || !registersOnly(b) {
				break
			}
			if len(preds[b.Index]) > 1 {
				// Entered from elsewhere too (the loop's head, before
				// the first block index): this path gets a copy.
				b = copyOnPath(t, b, &preds)
				from.Term.Succs[side] = b.Index
			}
			from, side = b, next
		}
		barrier := end.Instrs[n-1]
		end.Instrs = end.Instrs[:n-1]
		wait := t.NewBlock("wait for the next block")
		wait.Instrs = []ir.Instr{barrier}
		wait.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{from.Term.Succs[side]}}
		from.Term.Succs[side] = wait.Index
		preds = append(preds, []int{from.Index})
	}
}

// walkLimit bounds the blocks a barrier moves past: a latch, a test, a
// latch and the loop's head.
const walkLimit = 4

// mayEnd reports whether the walk from end's barrier passes a test one
// side of which returns at once.
func mayEnd(t *ir.Task, end *ir.Block) bool {
	b := end
	for range walkLimit {
		b = t.Blocks[b.Term.Succs[0]]
		next := onward(t, b)
		if b == end || next < 0 || !registersOnly(b) {
			return false
		}
		if b.Term.Kind == ir.Branch {
			return true
		}
	}
	return false
}

// onward is the successor of b by which the task goes on: its jump's, or
// its branch's other side from one that returns at once; -1 if neither.
func onward(t *ir.Task, b *ir.Block) int {
	switch b.Term.Kind {
	case ir.Jump:
		return 0
	case ir.Branch:
		ends := func(s int) bool {
			x := t.Blocks[b.Term.Succs[s]]
			return len(x.Instrs) == 0 && x.Term.Kind == ir.Return
		}
		if ends(0) != ends(1) {
			if ends(0) {
				return 1
			}
			return 0
		}
	}
	return -1
}

// copyOnPath appends a copy of b, with b's successors, and records the
// copy among their predecessors.
func copyOnPath(t *ir.Task, b *ir.Block, preds *[][]int) *ir.Block {
	c := copyBlock(t, b, b.Comment, nil)
	*preds = append(*preds, nil)
	for _, s := range c.Term.Successors() {
		(*preds)[s] = append((*preds)[s], c.Index)
	}
	return c
}

// registersOnly reports whether b's instructions only compute registers:
// none touches memory, checks or has another effect.
func registersOnly(b *ir.Block) bool {
	for _, in := range b.Instrs {
		info := in.Op.Info()
		if info.Memory != ir.MemNone || info.SideEffects || info.Checks {
			return false
		}
	}
	return true
}

// predecessors lists each block's predecessors.
func predecessors(t *ir.Task) [][]int {
	preds := make([][]int, len(t.Blocks))
	for _, b := range t.Blocks {
		for _, s := range b.Term.Successors() {
			preds[s] = append(preds[s], b.Index)
		}
	}
	return preds
}
