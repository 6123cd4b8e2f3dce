package lower

import (
	"go/constant"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// This file finds the indices that a loop's own test keeps in range, whose
// bounds checks are redundant: s[i] in
//
//	for i := range s { ... s[i] ... }
//	for i := range len(s) { ... }
//	for i := 0; i < len(s); i++ { ... }
//	for i := range min(n, len(s)) { ... }
//
// in a top-level loop, whose index the grid-stride loop tests against the
// same bound, as in any inner loop.

// rangeFact says that v lies in [0, bound) in the blocks dominated by from,
// or in every block of lp when from is nil.
type rangeFact struct {
	v, bound ssa.Value
	from     *ssa.BasicBlock
	lp       *loop
}

// rangeFacts returns the range facts of fn's loops, computed once.
func (l *lowerer) rangeFacts(fn *ssa.Function) map[ssa.Value][]rangeFact {
	if facts, ok := l.facts[fn]; ok {
		return facts
	}
	facts := map[ssa.Value][]rangeFact{}
	for _, lp := range naturalLoops(fn) {
		for _, instr := range lp.header.Instrs {
			phi, ok := instr.(*ssa.Phi)
			if !ok {
				break
			}
			if f, ok := inductionRange(fn, lp, phi); ok {
				facts[f.v] = append(facts[f.v], f)
			}
		}
	}
	if l.facts == nil {
		l.facts = map[*ssa.Function]map[ssa.Value][]rangeFact{}
	}
	l.facts[fn] = facts
	return facts
}

// inductionRange finds the range of the induction variable phi of lp, or
// of phi+1 when the loop tests that: it starts at a constant that is not
// negative and goes up by 1 while the loop's exit test keeps it below its
// bound, so it never wraps around.
func inductionRange(fn *ssa.Function, lp *loop, phi *ssa.Phi) (rangeFact, bool) {
	init, ok := inductionInit(phi, lp)
	if !ok {
		return rangeFact{}, false
	}
	start, ok := constInt(init)
	if !ok {
		return rangeFact{}, false
	}
	for _, b := range fn.Blocks {
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok || !lp.contains(b) || !lp.contains(b.Succs[0]) || lp.contains(b.Succs[1]) {
			continue
		}
		x, bound, ok := indexTest(iff.Cond, phi)
		if !ok {
			continue
		}
		switch {
		case b == lp.header && x == ssa.Value(phi) && start >= 0:
			// The test comes first: the body sees phi < bound.
			return rangeFact{v: phi, bound: bound, from: b.Succs[0], lp: lp}, true
		case b == lp.header && x != ssa.Value(phi) && start >= -1:
			// Range over a slice: the body sees phi+1 < bound.
			return rangeFact{v: x, bound: bound, from: b.Succs[0], lp: lp}, true
		case x != ssa.Value(phi) && start >= 0 && onlyLatch(lp, b) && pretested(lp, init, bound):
			// A rotated loop: init < bound before the first iteration, and
			// phi+1 < bound before each next one.
			return rangeFact{v: phi, bound: bound, lp: lp}, true
		}
	}
	return rangeFact{}, false
}

// onlyLatch reports whether every back edge of lp comes from b.
func onlyLatch(lp *loop, b *ssa.BasicBlock) bool {
	for _, p := range lp.header.Preds {
		if lp.contains(p) && p != b {
			return false
		}
	}
	return true
}

// pretested reports whether lp is entered only through a test of
// init < bound.
func pretested(lp *loop, init, bound ssa.Value) bool {
	var pre *ssa.BasicBlock
	for _, p := range lp.header.Preds {
		if !lp.contains(p) {
			if pre != nil {
				return false
			}
			pre = p
		}
	}
	if pre == nil {
		return false
	}
	iff, ok := pre.Instrs[len(pre.Instrs)-1].(*ssa.If)
	if !ok || pre.Succs[0] != lp.header {
		return false
	}
	c, b, ok := indexTest(iff.Cond, nil)
	return ok && sameValue(c, init) && sameValue(b, bound)
}

func constInt(v ssa.Value) (int64, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
}

// inBounds reports whether the index of ia is known to lie in [0, len(s))
// of its slice s where ia is.
func (f *frame) inBounds(ia *ssa.IndexAddr) bool {
	l := f.tb.l
	for _, fact := range l.rangeFacts(ia.Parent())[ia.Index] {
		holds := fact.from == nil && fact.lp.contains(ia.Block()) || fact.from != nil && fact.from.Dominates(ia.Block())
		if holds && l.lenOf(fact.bound, ia.X) {
			return true
		}
	}
	return false
}

// lenOf reports whether bound is at most len(s): len(s) itself, or a min
// of which it is an operand.
func (l *lowerer) lenOf(bound, s ssa.Value) bool {
	call, ok := bound.(*ssa.Call)
	if !ok {
		return false
	}
	b, ok := call.Common().Value.(*ssa.Builtin)
	if !ok {
		return false
	}
	switch b.Name() {
	case "len":
		return l.sameSlice(call.Common().Args[0], s)
	case "min":
		for _, a := range call.Common().Args {
			if l.lenOf(a, s) {
				return true
			}
		}
	}
	return false
}

// sameSlice reports whether a and b hold the same slice: the same value,
// or loads of a captured variable that stands for it.
func (l *lowerer) sameSlice(a, b ssa.Value) bool {
	return l.underlying(a) == l.underlying(b)
}

// underlying sees through the cells of captured variables.
func (l *lowerer) underlying(v ssa.Value) ssa.Value {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		switch x := u.X.(type) {
		case *ssa.FreeVar:
			if w, ok := l.captured[x]; ok {
				return w
			}
		case *ssa.Alloc:
			if w, ok := l.cells[x]; ok {
				return w
			}
		}
	}
	return v
}
