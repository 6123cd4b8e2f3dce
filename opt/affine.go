package opt

import (
	"math/bits"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// affine is coef·counter + base: a value that grows with a loop's counter
// by the same amount, coef, in every iteration. Both are forms of
// ir/analysis that the loop does not change.
type affine struct{ coef, base analysis.Affine }

// analysis returns ir/analysis's results for the task, made when first
// asked for: a loop's values are read before the pass changes the task.
// It takes no facts from the loop's own checks, which are what the bounds
// decide before it (analysed).
func (lv *loopValues) analysis() *analysis.Analysis {
	if lv.facts == nil {
		lv.facts = analysis.NewIgnoringChecks(lv.t, lv.lp.Has)
	}
	return lv.facts
}

// affineAt writes what a holds at p as an affine form of the loop's
// counter, if it is one: ir/analysis's form of it, split by the counter,
// whose coefficient and rest the loop does not change.
func (lv *loopValues) affineAt(a ir.Arg, p site) (affine, bool) {
	an := lv.analysis()
	lp := an.LoopAt(lv.lp.Header)
	f, ok := an.AffineOf(a, analysis.Site{Block: p.block, At: p.at})
	if !ok || lp == nil {
		return affine{}, false
	}
	form := affine{base: f}
	if iv := lp.IndVar(lv.counter); iv != nil {
		if form.coef, form.base, ok = f.Split(iv.Atom()); !ok {
			return affine{}, false
		}
	}
	return form, an.Invariant(form.coef, lp) && an.Invariant(form.base, lp)
}

// varies reports whether the form depends on the counter.
func (f affine) varies() bool { return len(f.coef.Terms) > 0 || f.coef.Const != 0 }

// rangeOf returns the largest value v can hold when v is known to lie in
// [0, that value], read as a 64-bit signed integer: an unsigned integer
// narrower than 64 bits, a mask, a remainder by a constant, a shift right,
// and what adds, ors and mins of such values make.
func rangeOf(v *expr) (uint64, bool) {
	if v.constant {
		return v.leaf.Bits, int64(v.leaf.Bits) >= 0
	}
	if v.op == ir.OpInvalid || !v.typ.IsInteger() {
		return 0, false
	}
	m, ok := derivedRange(v)
	if v.typ.IsUnsigned() && v.typ.Size() < 8 {
		byType := uint64(1)<<v.typ.Bits() - 1
		if !ok || m > byType {
			m, ok = byType, true
		}
	}
	return m, ok && m < 1<<63
}

// derivedRange is rangeOf from v's operation alone.
func derivedRange(v *expr) (uint64, bool) {
	m0, ok0 := uint64(0), false
	m1, ok1 := uint64(0), false
	if len(v.args) > 0 {
		m0, ok0 = rangeOf(v.args[0])
	}
	if len(v.args) > 1 {
		m1, ok1 = rangeOf(v.args[1])
	}
	c, isConst := uint64(0), len(v.args) > 1 && v.args[1].constant
	if isConst {
		c = v.args[1].leaf.Bits
	}
	switch v.op {
	case ir.OpMove:
		return m0, ok0
	case ir.OpConvert:
		// Widening keeps a value that is not negative, and an unsigned
		// one below its type's bound; narrowing keeps what fits in the
		// new type, which rangeOf bounds by the type.
		switch {
		case !v.from.IsInteger() || v.from.Size() > v.typ.Size():
			return 0, false
		case ok0:
			return m0, true
		}
		return uint64(1)<<v.from.Bits() - 1, v.from.IsUnsigned() && v.from.Size() < 8
	case ir.OpAnd:
		switch {
		case ok0 && ok1:
			return min(m0, m1), true
		case ok0:
			return m0, true
		}
		return m1, ok1
	case ir.OpMin:
		return min(m0, m1), ok0 && ok1
	case ir.OpMax:
		return max(m0, m1), ok0 && ok1
	case ir.OpAdd:
		return m0 + m1, ok0 && ok1 && m0 < 1<<62 && m1 < 1<<62
	case ir.OpOr, ir.OpXor:
		return 1<<bits.Len64(max(m0, m1)) - 1, ok0 && ok1
	case ir.OpRem:
		switch {
		case !isConst || c == 0:
			return 0, false
		case v.typ.IsUnsigned():
			return c - 1, true
		case ok0: // a signed remainder takes the dividend's sign
			if int64(c) < 0 {
				c = -c
			}
			return min(m0, c-1), true
		}
	case ir.OpShr:
		switch {
		case !isConst:
			return 0, false
		case ok0:
			return m0 >> min(c, 63), true
		case v.typ.IsUnsigned() && c > 0:
			return ^uint64(0) >> (64 - v.typ.Bits()) >> min(c, 63), true
		}
	}
	return 0, false
}
