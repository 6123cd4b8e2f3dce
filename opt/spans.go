package opt

import "github.com/qdgo/qd/ir"

// span bounds a 64-bit signed value in every iteration of a loop by
// expressions the loop does not change: lo ≤ v ≤ hi, nil where unknown.
// A clamped index, as in[min(max(y+dy, 0), h-1)*w + min(max(x+dx, 0), w-1)],
// is bounded this way whatever y and x are: its check is decided by a few
// comparisons before the loop.
type span struct{ lo, hi *expr }

// spanOf bounds v, adding to need the conditions, each a Bool expression,
// under which the bounds hold: that what is added or multiplied is not
// negative and that the bounds do not overflow.
func (lv *loopValues) spanOf(v *expr, need *[]*expr) span {
	var parts []*expr
	s := lv.structuralSpan(v, &parts)
	if s.lo != nil && s.hi != nil && lv.checkAt == nil {
		*need = append(*need, parts...)
		return s
	}
	// What the structure leaves unknown, ranges may bound: a max(e, 0)
	// keeps its lower bound 0 either way. At a check, a bound by the
	// parameters from a comparison that dominates it (y ≤ h-1 under if
	// y < h) is taken over the structure's, which knows only numbers
	// where the value is computed from a block's index.
	a := lv.analysed(v)
	if a.lo == nil {
		*need = append(*need, parts...)
		return s
	}
	if !a.lo.constant || !a.hi.constant || s.lo == nil && s.hi == nil {
		return a // the structure's conditions are not needed
	}
	if s.lo == nil {
		s.lo = a.lo
	}
	if s.hi == nil {
		s.hi = a.hi
	}
	*need = append(*need, parts...)
	return s
}

// structuralSpan bounds v through its operation and its operands' spans.
func (lv *loopValues) structuralSpan(v *expr, need *[]*expr) span {
	if v.invariant() {
		return span{v, v}
	}
	if v.counter && lv.below != nil && lv.step.Imm {
		return lv.counterSpan(need)
	}
	if v.division != nil && v.division.typ == ir.Int64 && lv.divide {
		return lv.quotientSpan(v.division, need)
	}
	if v.op == ir.OpMove && v.typ == ir.Int64 {
		// A copy is bounded as what it copies: ir/analysis knows a row
		// by*128+ty, copied, only by numbers, where its parts have
		// bounds by the nest's counts.
		return lv.spanOf(v.args[0], need)
	}
	if v.op == ir.OpInvalid || v.typ != ir.Int64 || len(v.args) != 2 {
		return lv.analysed(v)
	}
	a, b := v.args[0], v.args[1]
	if !a.invariant() && b.invariant() && v.op != ir.OpSub {
		a, b = b, a // the invariant operand first
	}
	switch v.op {
	case ir.OpSub:
		if !b.invariant() {
			return span{}
		}
		s := lv.spanOf(a, need)
		if s.lo == nil || s.hi == nil {
			return span{}
		}
		// Neither a nor b negative: the differences cannot overflow.
		*need = append(*need, lv.notNegative(s.lo), lv.notNegative(b))
		return span{lv.node(ir.OpSub, ir.Int64, ir.Invalid, 0, s.lo, b), lv.node(ir.OpSub, ir.Int64, ir.Invalid, 0, s.hi, b)}
	case ir.OpMax, ir.OpMin:
		if !a.invariant() {
			return span{}
		}
		s := lv.spanOf(b, need)
		if v.op == ir.OpMax { // at least a, and at least b's lower bound
			return span{lv.either(ir.OpMax, s.lo, a, a), lv.either(ir.OpMax, s.hi, a, nil)}
		}
		return span{lv.either(ir.OpMin, s.lo, a, nil), lv.either(ir.OpMin, s.hi, a, a)}
	case ir.OpAdd:
		if c := a.leaf; a.constant && c.Imm {
			// An index plus a constant, as x-1: only the sum's overflow
			// upwards needs a condition.
			s := lv.spanOf(b, need)
			if s.lo == nil || s.hi == nil {
				return span{}
			}
			lo, hi := lv.node(ir.OpAdd, ir.Int64, ir.Invalid, 0, s.lo, a), lv.node(ir.OpAdd, ir.Int64, ir.Invalid, 0, s.hi, a)
			*need = append(*need, lv.notNegative(s.lo))
			if int64(c.Bits) > 0 {
				*need = append(*need, lv.notNegative(hi))
			}
			return span{lo, hi}
		}
		sa, sb := lv.spanOf(a, need), lv.spanOf(b, need)
		if sa.lo == nil || sa.hi == nil || sb.lo == nil || sb.hi == nil {
			return span{}
		}
		// Bounds not negative, whose sum stays below 2^63.
		hi := lv.node(ir.OpAdd, ir.Int64, ir.Invalid, 0, sa.hi, sb.hi)
		*need = append(*need, lv.notNegative(sa.lo), lv.notNegative(sb.lo), lv.notNegative(hi))
		return span{lv.node(ir.OpAdd, ir.Int64, ir.Invalid, 0, sa.lo, sb.lo), hi}
	case ir.OpMul:
		if !a.invariant() {
			return span{}
		}
		s := lv.spanOf(b, need)
		if s.lo == nil || s.hi == nil {
			return span{}
		}
		// a ≥ 0 and b ≥ 0, with b's bound times a below 2^63.
		hi := lv.node(ir.OpMul, ir.Int64, ir.Invalid, 0, s.hi, a)
		high := lv.node(ir.OpMulHi, ir.Uint64, ir.Invalid, 0, lv.unsigned(s.hi), lv.unsigned(a))
		*need = append(*need, lv.notNegative(a), lv.notNegative(s.lo), lv.notNegative(hi),
			lv.node(ir.OpEq, ir.Uint64, ir.Invalid, 0, high, lv.constantOf(ir.Uint64, 0)))
		return span{lv.node(ir.OpMul, ir.Int64, ir.Invalid, 0, s.lo, a), hi}
	}
	return span{}
}

// quotientSpan bounds x/y and x%y for x not negative and y at least 1
// that the loop does not change: [lo/y, hi/y] and [0, y-1] where x lies
// in [lo, hi]. The index of a collapsed nest split in two, in[(p%h)*w +
// p/h], is then decided before the loop by one division. The guard
// computes every bound before it tests any condition, so it divides by
// max(y, 1), which is y wherever the bounds are used.
func (lv *loopValues) quotientSpan(v *expr, need *[]*expr) span {
	x, y := v.args[0], v.args[1]
	if !y.invariant() {
		return span{}
	}
	s := lv.spanOf(x, need)
	if s.lo == nil || s.hi == nil {
		return span{}
	}
	one := lv.constantOf(ir.Int64, 1)
	*need = append(*need, lv.notNegative(s.lo), lv.node(ir.OpGe, ir.Int64, ir.Invalid, 0, y, one))
	d := lv.node(ir.OpMax, ir.Int64, ir.Invalid, 0, y, one)
	if v.op == ir.OpRem {
		return span{lv.constantOf(ir.Int64, 0), lv.node(ir.OpSub, ir.Int64, ir.Invalid, 0, d, one)}
	}
	lo := s.lo
	if !lo.constant || lo.leaf.Bits != 0 { // 0/y is 0, as a counter from 0 starts
		lo = lv.node(ir.OpDiv, ir.Int64, ir.Invalid, 0, s.lo, d)
	}
	return span{lo, lv.node(ir.OpDiv, ir.Int64, ir.Invalid, 0, s.hi, d)}
}

// either is op(bound, a), or otherwise where the bound is unknown.
func (lv *loopValues) either(op ir.Op, bound, a, otherwise *expr) *expr {
	if bound == nil {
		return otherwise
	}
	return lv.node(op, ir.Int64, ir.Invalid, 0, bound, a)
}

func (lv *loopValues) notNegative(x *expr) *expr {
	return lv.node(ir.OpGe, ir.Int64, ir.Invalid, 0, x, lv.constantOf(ir.Int64, 0))
}

func (lv *loopValues) unsigned(x *expr) *expr {
	return lv.node(ir.OpConvert, ir.Uint64, ir.Int64, 0, x)
}

func (lv *loopValues) constantOf(typ ir.Type, bits uint64) *expr {
	return lv.resolve(ir.Imm(typ, bits), site{})
}

// spanned bounds the index of check c, a 64-bit signed integer a, by a
// span; the counter lies below l, when known, where c is.
func (lv *loopValues) spanned(c *hoistedCheck, a ir.Arg, l *limit) bool {
	if a.Imm || lv.t.Regs[a.Reg] != ir.Int64 {
		return false
	}
	var needs []*expr
	lv.below, lv.checkAt = l, &c.at
	s := lv.spanOf(c.index, &needs)
	if s.lo == nil || s.hi == nil {
		// Bounds that divide, at most once a thread, where nothing cheaper
		// bounds the index.
		needs, lv.divide = nil, true
		s = lv.spanOf(c.index, &needs)
		lv.divide, c.divided = false, true
	}
	lv.below, lv.checkAt = nil, nil
	if s.lo == nil || s.hi == nil {
		return false
	}
	c.bounds, c.needs = &s, needs
	return true
}

// counterSpan bounds the counter where it is below the limit lv.below:
// from its first value, since it only goes up, to the larger of that and
// the limit less one. The larger, because a loop tested at its end runs
// its first iteration whatever the bound, as
// for j := range n { ... a[max(i, j)*n+min(i, j)] } does once n > 0. As
// for lastStep, the limit must lie in [-2^62, 2^62]: the counter, below
// it and advancing by less than 2^42, then never wraps around. A
// grid-stride counter is left to ir/analysis, which bounds it by the
// tests of the nest's levels without these conditions.
func (lv *loopValues) counterSpan(need *[]*expr) span {
	l := lv.below
	first := &expr{counter: true, key: "counter", variant: true}
	bound := lv.node(ir.OpAdd, ir.Int64, ir.Invalid, 0, l.bound, lv.constantOf(ir.Int64, l.offset-1))
	*need = append(*need, lv.within62(l.bound))
	if step := lv.step.Bits; step > 1 {
		// The counter's last value is a whole number of steps from its
		// first: k0 < k by 8 ends at k-8 where 8 divides k, and a[k0+7]
		// stays below k there, as k-1+7 would not. With the first value
		// in [-2^62, 2^62] too, the difference cannot wrap around, and a
		// bound below the first value makes no step at all.
		by := lv.constantOf(ir.Int64, step)
		steps := lv.node(ir.OpDiv, ir.Int64, ir.Invalid, 0, lv.node(ir.OpSub, ir.Int64, ir.Invalid, 0, bound, first), by)
		bound = lv.node(ir.OpAdd, ir.Int64, ir.Invalid, 0, first, lv.node(ir.OpMul, ir.Int64, ir.Invalid, 0, steps, by))
		*need = append(*need, lv.within62(first))
	}
	return span{first, lv.node(ir.OpMax, ir.Int64, ir.Invalid, 0, first, bound)}
}

// within62 is the condition that x lies in [-2^62, 2^62].
func (lv *loopValues) within62(x *expr) *expr {
	return lv.node(ir.OpLe, ir.Uint64, ir.Invalid, 0,
		lv.node(ir.OpAdd, ir.Uint64, ir.Invalid, 0, lv.unsigned(x), lv.constantOf(ir.Uint64, 1<<62)),
		lv.constantOf(ir.Uint64, 1<<63))
}
