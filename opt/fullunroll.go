package opt

import (
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// Loops with a constant trip count at most this are unrolled fully when
// the copies stay under fullUnrollMaxInstrs instructions.
const (
	fullUnrollMaxTrips  = 16
	fullUnrollMaxInstrs = 320
	// In a block-level task, a loop that indexes a thread's local
	// variable may grow to blockUnrollMaxInstrs: unrolled, its indices
	// are constants and the variable moves to registers (PromoteLocals),
	// which is what a register-blocked matrix product's accumulators
	// need, as nvcc's #pragma unroll gives them.
	blockUnrollMaxInstrs = 2400
)

// FullyUnrollLoops replaces the innermost loops that run a small constant
// number of times, like the 3×3 window of a filter, with straight-line
// copies of their body. It chains trips+1 copies of the loop, so that it
// stays correct whatever it holds, and PropagateConstants then knows the
// index in each copy: the index tests fold, the last copy's test leaves
// and the back edge is never taken. A loop nest unrolls from the inside
// out, one level per round.
func FullyUnrollLoops(t *ir.Task) {
	for range 4 {
		changed := false
		for _, lp := range innermostLoops(t) {
			c, ok := countedLoop(analysis.New(t), lp)
			if !ok || !c.bound.Imm || lp.usesThreadCount(t) {
				continue
			}
			init, ok := c.start()
			if !ok {
				continue
			}
			// A loop testing i+1 at its end (range n) runs its body once
			// for i = init and again while i+1 < n. Too many copies would
			// fold away, too few leave a correct loop.
			trips := tripCount(c.typ, init+uint64(c.slack), c.bound.Bits)
			if c.slack != 0 && trips >= 0 {
				trips++
			}
			budget, size := fullUnrollMaxInstrs, lp.size(t)
			if t.Kind == ir.BlockLevel {
				budget, size = blockLoopBudget(t, lp)
			}
			if trips < 0 || trips > fullUnrollMaxTrips || size*(int(trips)+1) > budget {
				continue
			}
			unroll(t, lp, int(trips)+1)
			changed = true
		}
		if !changed {
			return
		}
		PropagateConstants(t)
		SimplifyCFG(t)
	}
}

// tripCount is how many times i < bound holds for i = init, init+1, ...;
// -1 when that is not a small number.
func tripCount(typ ir.Type, init, bound uint64) int64 {
	lt := ir.Instr{Op: ir.OpLt, Type: typ}
	for n := int64(0); n <= fullUnrollMaxTrips; n++ {
		i := typ.Normalize(init + uint64(n))
		if less, _ := ir.Fold(&lt, []uint64{i, bound}); less == 0 {
			return n
		}
	}
	return -1
}

// indexesLocal reports whether the loop loads or stores a thread's local
// memory.
func (lp *irLoop) indexesLocal(t *ir.Task) bool {
	for _, b := range lp.blocks {
		for _, in := range t.Blocks[b].Instrs {
			if (in.Op == ir.OpLoad || in.Op == ir.OpStore) && in.Space == ir.Local {
				return true
			}
		}
	}
	return false
}
