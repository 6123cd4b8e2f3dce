package lower

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Go zeroes a variable where it is declared, so a shared variable of a
// qd.Blocks loop's body costs its block stores and a barrier each time
// round. Both go where the zeroes can never be read: when a thread loop
// stores every element, thread t element t, or thread (ty, tx) element
// [ty][tx], and every path from the declaration to any other use of the
// variable passes through that thread loop.

// overwritten reports whether every element of the shared variable v is
// stored by a thread loop of bn before anything else uses v.
func (bn *blockNest) overwritten(v *ssa.Alloc) bool {
	for _, tl := range bn.threads {
		if store := tl.storesAll(v); store != nil {
			return bn.onlyAfter(v, tl)
		}
	}
	return false
}

// storesAll returns the one use of v in tl, a store of element t (or
// [ty][tx]) by each thread, which every thread runs, if v's elements are
// exactly the loop's threads; nil otherwise.
func (tl *threadLoop) storesAll(v *ssa.Alloc) *ssa.Store {
	var at ssa.Value = v
	typ := v.Type().Underlying().(*types.Pointer).Elem()
	for k, lv := range tl.levels {
		arr, ok := typ.Underlying().(*types.Array)
		if !ok || arr.Len() != tl.extents[k] {
			return nil
		}
		var next ssa.Instruction
		if k == 0 {
			next = onlyUseIn(v, tl)
		} else {
			next = onlyUse(at)
		}
		ia, ok := next.(*ssa.IndexAddr)
		if !ok || ia.Index != ssa.Value(lv.phi) || !tl.contains(ia.Block()) {
			return nil
		}
		at, typ = ia, arr.Elem()
	}
	store, ok := onlyUse(at).(*ssa.Store)
	if !ok || store.Addr != at || store.Val == at {
		return nil
	}
	inner := tl.levels[len(tl.levels)-1].lp
	for _, b := range store.Block().Parent().Blocks {
		if !inner.contains(b) {
			continue
		}
		for _, s := range b.Succs {
			if s == inner.header && !store.Block().Dominates(b) {
				return nil // some iteration may skip the store
			}
		}
	}
	return store
}

// onlyUse returns the one instruction other than debug information that
// uses v, or nil if there are more or none.
func onlyUse(v ssa.Value) ssa.Instruction {
	var found ssa.Instruction
	for _, r := range *v.Referrers() {
		if _, ok := r.(*ssa.DebugRef); ok {
			continue
		}
		if found != nil {
			return nil
		}
		found = r
	}
	return found
}

// onlyUseIn returns the one instruction of tl other than debug
// information that uses v, or nil if there are more or none.
func onlyUseIn(v ssa.Value, tl *threadLoop) ssa.Instruction {
	var found ssa.Instruction
	for _, r := range *v.Referrers() {
		if _, ok := r.(*ssa.DebugRef); ok || !tl.contains(r.Block()) {
			continue
		}
		if found != nil {
			return nil
		}
		found = r
	}
	return found
}

// onlyAfter reports whether each use of v outside tl lies on no path from
// v's declaration that avoids tl. A path ends where it reaches the
// declaration again, which starts a new variable.
func (bn *blockNest) onlyAfter(v *ssa.Alloc, tl *threadLoop) bool {
	uses := map[ssa.Instruction]bool{}
	for _, r := range *v.Referrers() {
		if _, ok := r.(*ssa.DebugRef); !ok && !tl.contains(r.Block()) {
			uses[r] = true // those in tl are the store's chain (storesAll)
		}
	}
	home := v.Block()
	// used reports whether the instructions of b from first on, up to the
	// declaration if b holds it, use v.
	used := func(b *ssa.BasicBlock, first int) bool {
		for _, in := range b.Instrs[first:] {
			if in == ssa.Instruction(v) {
				return false
			}
			if uses[in] {
				return true
			}
		}
		return false
	}
	at := 0
	for i, in := range home.Instrs {
		if in == ssa.Instruction(v) {
			at = i + 1
		}
	}
	if used(home, at) {
		return false
	}
	// The test before tl of its constant extent, at least 1, enters it.
	entry := tl.levels[0]
	enters := func(b *ssa.BasicBlock) bool { return entry.pretest && b == entry.pre }
	if enters(home) {
		return true
	}
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock{}, home.Succs...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] || tl.contains(b) {
			continue
		}
		seen[b] = true
		if used(b, 0) {
			return false
		}
		if b == home || enters(b) {
			continue // declared again, or entering tl
		}
		stack = append(stack, b.Succs...)
	}
	return true
}
