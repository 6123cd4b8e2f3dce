package analysis

import "github.com/qdgo/qd/ir"

// Reach bounds the values iv holds in its loop by its exit test, the
// value its last step leaves included: at most Bound + Past for a counter
// that goes up, at least Bound + Past for one that goes down, or else its
// Start, where the loop runs no iteration. A value that passes
// i + c < n is at most n - 1 - c, and one more step takes it to
// n - 1 - c + step. It needs a counter that moves by a constant step
// without wrapping (NoWrap), and an exit test of lt or le (gt or ge going
// down) with a constant offset that runs in every iteration.
func (iv *IndVar) Reach() (bound Affine, past int64, ok bool) {
	e := iv.Exit
	if e == nil || !e.Every || !iv.NoWrap {
		return Affine{}, 0, false
	}
	step, constStep := iv.Step.IsConst()
	offset, constOffset := e.ConstOffset()
	if !constStep || !constOffset {
		return Affine{}, 0, false
	}
	// The last value that passes, less the bound.
	var last int64
	switch {
	case iv.Up() && e.Op == ir.OpLt:
		last = -1
	case iv.Up() && e.Op == ir.OpLe:
	case iv.Down() && e.Op == ir.OpGt:
		last = 1
	case iv.Down() && e.Op == ir.OpGe:
	default:
		return Affine{}, 0, false
	}
	past, ok1 := AddInt(last, step)
	past, ok2 := AddInt(past, -offset)
	if !ok1 || !ok2 || offset == -offset && offset != 0 {
		return Affine{}, 0, false
	}
	return e.Bound, past, true
}

// ClimbsBelow reports whether iv, going up, cannot wrap in the launches
// where its start and its exit test's bound are at most hi, whatever
// their forms allow: the signed test of a constant offset, lt or le, runs
// in every iteration, and no value that passes it, nor the start, is
// carried past the end of the type by one more step. (A sum with the
// offset that wraps below makes the test fail, not pass.) A grid-stride loop's index,
// whose step is the thread count, is such a counter once a test before
// the loop has shown its bound small; a pass that adds that test may read
// the counter as going up from its start.
func (a *Analysis) ClimbsBelow(iv *IndVar, hi int64) bool {
	e := iv.Exit
	if e == nil || !e.Every || e.Type != iv.Type || !iv.Type.IsSigned() || e.Op != ir.OpLt && e.Op != ir.OpLe {
		return false
	}
	offset, ok := e.ConstOffset()
	if !ok || offset == -offset && offset != 0 {
		return false
	}
	last, ok := AddInt(hi, -offset)
	if !ok {
		return false
	}
	step := a.numeric(iv.Step, a.End(iv.Loop.Header), true)
	top, ok := AddInt(max(last, hi), step.hi)
	return ok && step.lo > 0 && top <= typeRange(iv.Type).hi
}
