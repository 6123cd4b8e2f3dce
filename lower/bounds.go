package lower

import (
	"go/constant"
	"go/token"
	"go/types"

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
		// The test first, in a header that is not its own latch: the body
		// is entered only through the test.
		first := b == lp.header && b.Succs[0] != lp.header
		switch {
		case first && x == ssa.Value(phi) && start >= 0:
			// The test comes first: the body sees phi < bound.
			return rangeFact{v: phi, bound: bound, from: b.Succs[0], lp: lp}, true
		case first && x != ssa.Value(phi) && start >= -1:
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

// inBounds reports whether index is known to lie in [0, len(s)) of the
// slice s where b is.
func (f *frame) inBounds(s, index ssa.Value, b *ssa.BasicBlock) bool {
	return f.inRange(index, b, func(bound ssa.Value) bool { return f.tb.l.lenOf(bound, s) })
}

// inArray reports whether index is known to lie in [0, n), the length of
// an array, where b is: a loop's test keeps it below a constant at most n
// (len of an array is such a constant), it is a remainder by such a
// constant of a value known not to be negative, a mask below n, or its
// type has no larger values.
func (f *frame) inArray(index ssa.Value, b *ssa.BasicBlock, n int64) bool {
	if f.inRange(index, b, func(bound ssa.Value) bool { return atMost(bound, n) }) {
		return true
	}
	if x, ok := index.(*ssa.BinOp); ok {
		c, isConst := constInt(x.Y)
		switch {
		case x.Op == token.REM && isConst && c > 0 && c <= n:
			return f.notNegative(x.X, b)
		case x.Op == token.AND && isConst && c >= 0 && c < n:
			return true
		}
	}
	t, ok := index.Type().Underlying().(*types.Basic)
	return ok && t.Info()&types.IsUnsigned != 0 && hostSizes.Sizeof(t) < 8 && int64(1)<<(8*hostSizes.Sizeof(t)) <= n
}

// notNegative reports whether v is known not to be negative where b is: it
// is unsigned, a constant or a loop's index that counts up from 0.
func (f *frame) notNegative(v ssa.Value, b *ssa.BasicBlock) bool {
	if c, ok := constInt(v); ok {
		return c >= 0
	}
	if t, ok := v.Type().Underlying().(*types.Basic); ok && t.Info()&types.IsUnsigned != 0 {
		return true
	}
	return f.inRange(v, b, func(ssa.Value) bool { return true })
}

// inRange reports whether a loop's test keeps index in [0, bound) where b
// is, for a bound that within accepts.
func (f *frame) inRange(index ssa.Value, b *ssa.BasicBlock, within func(bound ssa.Value) bool) bool {
	for _, fact := range f.tb.l.rangeFacts(b.Parent())[index] {
		holds := fact.from == nil && fact.lp.contains(b) || fact.from != nil && fact.from.Dominates(b)
		if holds && within(fact.bound) {
			return true
		}
	}
	return false
}

// atMost reports whether bound is a constant at most n, or a min of which
// such a constant is an operand.
func atMost(bound ssa.Value, n int64) bool {
	if c, ok := constInt(bound); ok {
		return c <= n
	}
	if call, ok := bound.(*ssa.Call); ok {
		if b, ok := call.Common().Value.(*ssa.Builtin); ok && b.Name() == "min" {
			for _, a := range call.Common().Args {
				if atMost(a, n) {
					return true
				}
			}
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
