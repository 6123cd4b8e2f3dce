package lower

import (
	"go/types"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file keeps per-thread values of a qd.Blocks loop's body out of
// shared memory. A variable of the body that every thread loop indexes
// only by its own thread index, acc[t] (or acc[y][x] in a 2-D thread loop
// over y and x), has elements that each belong to one thread: each
// thread keeps its own element in its local memory, which package opt
// moves to registers where it is accessed at constant offsets (an 8×8
// block of a matrix product's results, acc[y][x][i][j], once the loops
// over i and j are unrolled).

// isPerThread reports whether v, a variable of bn's body, is indexed only
// by the thread indices of the thread loops that use it, and records the
// element addresses that then are the thread's own variable.
func (bn *blockNest) isPerThread(v *ssa.Alloc, own map[*ssa.IndexAddr]bool) bool {
	arr, ok := v.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array)
	if !ok {
		return false
	}
	found := map[*ssa.IndexAddr]bool{}
	for _, r := range *v.Referrers() {
		if _, debug := r.(*ssa.DebugRef); debug {
			continue
		}
		ix, ok := r.(*ssa.IndexAddr)
		if !ok || ix.X != ssa.Value(v) {
			return false
		}
		tl := bn.threadLoopOf(ix.Block())
		if tl == nil || ix.Index != ssa.Value(tl.levels[0].phi) || tl.extents[0] > arr.Len() {
			return false
		}
		found[ix] = true
		if len(tl.levels) == 1 {
			continue
		}
		// A 2-D thread loop indexes by both of its indices.
		inner, ok := arr.Elem().Underlying().(*types.Array)
		if !ok || tl.extents[1] > inner.Len() {
			return false
		}
		for _, r2 := range *ix.Referrers() {
			ix2, ok := r2.(*ssa.IndexAddr)
			if _, debug := r2.(*ssa.DebugRef); debug {
				continue
			}
			if !ok || ix2.X != ssa.Value(ix) || ix2.Index != ssa.Value(tl.levels[1].phi) {
				return false
			}
			found[ix2] = true
		}
	}
	if len(found) == 0 {
		return false
	}
	for ix := range found {
		own[ix] = true
	}
	return true
}

// threadLoopOf returns the thread loop that holds b, or nil.
func (bn *blockNest) threadLoopOf(b *ssa.BasicBlock) *threadLoop {
	for _, tl := range bn.threads {
		if tl.contains(b) {
			return tl
		}
	}
	return nil
}

// threadElem is the type of a thread's own part of the per-thread variable
// v: its elements, or elements of elements, with the dimensions the
// thread indices take off.
func (bn *blockNest) threadElem(v *ssa.Alloc, own map[*ssa.IndexAddr]bool) types.Type {
	t := v.Type().Underlying().(*types.Pointer).Elem()
	for _, r := range *v.Referrers() {
		if ix, ok := r.(*ssa.IndexAddr); ok {
			t = t.Underlying().(*types.Array).Elem()
			for _, r2 := range *ix.Referrers() {
				if ix2, ok := r2.(*ssa.IndexAddr); ok && own[ix2] {
					return t.Underlying().(*types.Array).Elem()
				}
			}
			return t
		}
	}
	return t
}

// threadAlloc lowers a per-thread variable of a qd.Blocks loop's body:
// each thread's own part of it, zeroed, in its local memory.
func (f *frame) threadAlloc(v *ssa.Alloc, elem types.Type) {
	dst := f.regsFor(v)[0]
	f.tb.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: dst, Aux: f.tb.newVar(v.Comment, elem), Pos: v.Pos()})
	f.zero(ir.R(dst), elem, v.Pos())
}
