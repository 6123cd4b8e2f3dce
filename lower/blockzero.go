package lower

import (
	"go/constant"
	"go/token"
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

// A variable that is zeroed needs the barrier after its zeroes only where
// a thread may touch a word that another thread zeroed. Thread k zeroes
// words k, k+size, k+2·size..., size the block's threads. If the first
// thread loop to use the variable touches, in thread k, only words
// congruent to k modulo size (the loop's linear thread index k, plus
// multiples of size: a tile loaded with e := ty*side+tx; e < n; e +=
// rows*side, as tile[e] or tile[e/w][e%w]), each word is zeroed and then
// stored or read by the same thread, in that order, and the loop's own
// barrier at its end publishes both before any other thread may look.
// The barrier of the previous pass over the body, at the end of its last
// thread loop, still orders this pass's zeroes after that pass's reads.

// zeroedByOwner reports whether the first thread loop that uses the shared
// variable v uses only words that its thread zeroed, and nothing else
// uses v before that loop.
func (bn *blockNest) zeroedByOwner(v *ssa.Alloc) bool {
	typ := v.Type().Underlying().(*types.Pointer).Elem()
	word := int64(wordOf(typ).Size())
	for _, tl := range bn.threads {
		touched := false
		for _, r := range *v.Referrers() {
			if _, ok := r.(*ssa.DebugRef); ok || !tl.contains(r.Block()) {
				continue
			}
			touched = true
			if !tl.ownAccess(r, typ, word, bn.size) {
				return false
			}
		}
		if touched {
			return bn.onlyAfter(v, tl)
		}
	}
	return false
}

// ownAccess reports whether the use r of the shared array v, of type typ,
// is an element address tile[e] or tile[e/w][e%w], of elements one word
// each, that tl only loads and stores, with e one of the thread's own
// word indexes (ownIndex).
func (tl *threadLoop) ownAccess(r ssa.Instruction, typ types.Type, word, size int64) bool {
	ia, ok := r.(*ssa.IndexAddr)
	arr, isArr := typ.Underlying().(*types.Array)
	if !ok || !isArr {
		return false
	}
	elem := arr.Elem()
	if inner, ok := elem.Underlying().(*types.Array); ok {
		// tile[e/w][e%w], the same e in both, w the row's length.
		q, ok := ia.Index.(*ssa.BinOp)
		if !ok || q.Op != token.QUO || !isConstInt(q.Y, inner.Len()) || !tl.ownIndex(q.X, size, map[ssa.Value]bool{}) {
			return false
		}
		for _, u := range *ia.Referrers() {
			if _, ok := u.(*ssa.DebugRef); ok {
				continue
			}
			row, ok := u.(*ssa.IndexAddr)
			if !ok || row.X != ssa.Value(ia) || !tl.contains(row.Block()) {
				return false
			}
			rem, ok := row.Index.(*ssa.BinOp)
			if !ok || rem.Op != token.REM || rem.X != q.X || !isConstInt(rem.Y, inner.Len()) {
				return false
			}
			if !tl.onlyLoadedStored(row, inner.Elem(), word) {
				return false
			}
		}
		return true
	}
	return tl.ownIndex(ia.Index, size, map[ssa.Value]bool{}) && tl.onlyLoadedStored(ia, elem, word)
}

// onlyLoadedStored reports whether the element address at, of an element
// of type elem one word long, is only loaded and stored through in tl.
func (tl *threadLoop) onlyLoadedStored(at *ssa.IndexAddr, elem types.Type, word int64) bool {
	if _, ok := elem.Underlying().(*types.Basic); !ok || hostSizes.Sizeof(elem) != word {
		return false
	}
	for _, u := range *at.Referrers() {
		if !tl.contains(u.Block()) {
			return false
		}
		switch u := u.(type) {
		case *ssa.DebugRef:
		case *ssa.Store:
			if u.Addr != ssa.Value(at) || u.Val == ssa.Value(at) {
				return false
			}
		case *ssa.UnOp:
			if u.Op != token.MUL {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// ownIndex reports whether x is, in each thread of tl, the thread's linear
// index in the block plus a multiple of size: the linear index itself
// (t, or ty*nx+tx of a 2-D loop of nx columns), such a value plus a
// constant multiple of size, or a phi of such values. A phi met again
// while its edges are being looked at is assumed to be one: each edge
// then keeps the property, and the edges from outside the cycle give it.
func (tl *threadLoop) ownIndex(x ssa.Value, size int64, seen map[ssa.Value]bool) bool {
	if tl.linearIndex(x) {
		return true
	}
	switch x := x.(type) {
	case *ssa.Phi:
		if seen[x] {
			return true
		}
		seen[x] = true
		for _, e := range x.Edges {
			if !tl.ownIndex(e, size, seen) {
				return false
			}
		}
		return true
	case *ssa.BinOp:
		if x.Op != token.ADD {
			return false
		}
		for _, pair := range [2][2]ssa.Value{{x.X, x.Y}, {x.Y, x.X}} {
			if c, ok := pair[1].(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.Int {
				if k, exact := constant.Int64Val(c.Value); exact && k%size == 0 && tl.ownIndex(pair[0], size, seen) {
					return true
				}
			}
		}
	}
	return false
}

// linearIndex reports whether x is the index of tl's thread in the block:
// the index of a loop over qd.Threads(n), or ty*nx+tx of two nested ones,
// nx the inner loop's extent. Thread k runs the iteration whose linear
// index is k (threadStart) of loops that count up by one from zero, as
// every loop go/ssa builds over qd.Threads(n) does.
func (tl *threadLoop) linearIndex(x ssa.Value) bool {
	for _, lv := range tl.levels {
		if !isConstInt(lv.init, 0) {
			return false
		}
	}
	if len(tl.levels) == 1 {
		return x == ssa.Value(tl.levels[0].phi)
	}
	if len(tl.levels) != 2 {
		return false
	}
	sum, ok := x.(*ssa.BinOp)
	if !ok || sum.Op != token.ADD {
		return false
	}
	outer, inner := ssa.Value(tl.levels[0].phi), ssa.Value(tl.levels[1].phi)
	for _, pair := range [2][2]ssa.Value{{sum.X, sum.Y}, {sum.Y, sum.X}} {
		if pair[1] != inner {
			continue
		}
		if m, ok := pair[0].(*ssa.BinOp); ok && m.Op == token.MUL &&
			(m.X == outer && isConstInt(m.Y, tl.extents[1]) || m.Y == outer && isConstInt(m.X, tl.extents[1])) {
			return true
		}
	}
	return false
}
