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
		for _, lp := range ir.Innermost(t.Loops()) {
			an := analysis.New(t)
			c, ok := countedLoop(an, lp)
			if !ok || !c.bound.Imm || an.GridShared(c.iv.Loop) {
				continue
			}
			trips, ok := c.trips()
			if !ok {
				continue
			}
			budget, size := fullUnrollMaxInstrs, loopSize(t, lp)
			if t.Kind == ir.BlockLevel {
				budget, size = blockLoopBudget(t, lp)
			}
			if trips > fullUnrollMaxTrips || size*(int(trips)+1) > budget {
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

// trips is how many times the body of a counted loop runs, when the
// analysis knows the count of its exit test and that is a constant: the
// times the test passes, and once more when it reads i+1, after the body
// (a loop over range n runs its body once for i = start and again while
// i+1 < n). Too many copies would fold away, too few leave a correct loop.
func (c *counted) trips() (int64, bool) {
	e := c.iv.Exit
	if c.iv.Trip == nil || !c.tests[e.Block] {
		return 0, false
	}
	n, ok := c.iv.Trip.Const()
	offset, _ := e.ConstOffset()
	return n + offset, ok
}
