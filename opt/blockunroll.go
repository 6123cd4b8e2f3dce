package opt

import "github.com/qdgo/qd/ir"

// blockLoopBudget is the size budget of fully unrolling lp, a loop of a
// block-level task, and lp's size as that budget counts it. Such loops
// are the small constant loops of a thread's register blocking (the
// k-steps of a tile, the rows of a thread's sub-tile): unrolled, a
// thread's local arrays have constant indices and move to registers,
// and loads of shared memory fold into constant offsets, as nvcc's
// #pragma unroll gives them. Copies between registers are not counted:
// after promotion most of the body is such copies, which the assembler
// coalesces away.
func blockLoopBudget(t *ir.Task, lp *ir.Loop) (budget, size int) {
	budget = blockUnrollMaxInstrs
	for _, b := range lp.Blocks() {
		for _, in := range t.Blocks[b].Instrs {
			if in.Op != ir.OpMove {
				size++
			}
		}
	}
	return budget, size
}
