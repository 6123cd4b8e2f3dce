package analysis

import (
	"github.com/qdgo/qd/ir"
)

// The IR is not SSA: a register may be assigned in many places, and a loop
// carries its counters in registers that the loop reassigns. What a
// register holds at a site is therefore worked out from the assignments
// that reach the site: one that dominates it, whose value the form names
// by its operands' forms; or, for an induction variable, its loop's
// counter atom.

// AffineOf returns what a holds at s, read by the instruction or the
// terminator there, as an affine form; false when the value is not one
// value at s (two assignments of different values reach it, or one that
// does not dominate it).
func (a *Analysis) AffineOf(arg ir.Arg, s Site) (Affine, bool) {
	if arg.Imm {
		return Constant(int64(arg.Bits)), true
	}
	return a.regAt(arg.Reg, s)
}

func (a *Analysis) regAt(r ir.Reg, s Site) (Affine, bool) {
	if iv := a.ivAt(r, s); iv != nil {
		f := Of(iv.Atom())
		if a.pastUpdate(iv, r, s) {
			f = f.Add(iv.Step)
		}
		return f, true
	}
	reach := a.Reaching(r, s)
	if len(reach) == 0 {
		if len(a.defsOf[r]) == 0 { // a function's parameter, never assigned
			return Of(Atom{Kind: Value, Reg: r, Site: Site{-1, 0}}), true
		}
		return Affine{}, false
	}
	if len(reach) > 1 {
		// Assignments that all give the same form, such as the copies of
		// an invariant in two branches, give it here.
		var f Affine
		for i, d := range reach {
			g, ok := a.assigned(r, d, s)
			if !ok || i > 0 && !g.Equal(f) || g.Has(func(x Atom) bool { return x.Kind == Value }) {
				return Affine{}, false
			}
			f = g
		}
		return f, true
	}
	return a.assigned(r, reach[0], s)
}

// assigned returns the form the instruction at d gives r, as seen from s:
// d must dominate s, and every loop around d must hold s, so that d's
// last run before s is in the same iteration as s.
func (a *Analysis) assigned(r ir.Reg, d, s Site) (Affine, bool) {
	if !a.SiteDominates(d, s) || !a.loopsWithin(d.Block, s.Block) {
		return Affine{}, false
	}
	k := key{r, d}
	if m, ok := a.memo[k]; ok {
		return m.form, m.ok
	}
	if a.busy[k] {
		return Affine{}, false
	}
	a.busy[k] = true
	f, ok := a.compute(r, d)
	delete(a.busy, k)
	a.memo[k] = resolved{f, ok}
	return f, ok
}

// compute builds the form of the instruction at d.
func (a *Analysis) compute(r ir.Reg, d Site) (Affine, bool) {
	in := a.Instr(d)
	value := Of(Atom{Kind: Value, Reg: r, Site: d})
	if in.Op == ir.OpCall || !in.Type.IsInteger() && in.Op != ir.OpParamLen && in.Op != ir.OpThreadIndex && in.Op != ir.OpThreadCount {
		return value, true
	}
	operand := func(i int) (Affine, bool) { return a.AffineOf(in.Args[i], d) }
	var f Affine
	ok := true
	switch in.Op {
	case ir.OpConst:
		f = Constant(int64(in.Type.Normalize(in.Args[0].Bits)))
	case ir.OpParam:
		f = Of(Atom{Kind: Param, Index: int(in.Aux)})
	case ir.OpParamLen:
		f = Of(Atom{Kind: Len, Index: int(in.Aux)})
	case ir.OpThreadIndex:
		f = Of(Atom{Kind: ThreadIndex})
	case ir.OpThreadCount:
		f = Of(Atom{Kind: ThreadCount})
	case ir.OpMove:
		f, ok = operand(0)
	case ir.OpNeg:
		f, ok = operand(0)
		f = f.Scale(-1)
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		x, ok1 := operand(0)
		y, ok2 := operand(1)
		ok = ok1 && ok2
		switch in.Op {
		case ir.OpAdd:
			f = x.Add(y)
		case ir.OpSub:
			f = x.Sub(y)
		default:
			f, ok = x.Mul(y)
			ok = ok && ok1 && ok2
		}
	case ir.OpShl:
		x, ok1 := operand(0)
		c, isConst := a.constOf(in.Args[1], d)
		if !ok1 || !isConst || uint64(c) >= 64 {
			return value, true
		}
		f = x.Scale(int64(1) << c)
	case ir.OpConvert:
		if !in.From.IsInteger() {
			return value, true
		}
		f, ok = operand(0)
		if in.Type.Size() < in.From.Size() {
			// Narrowing keeps the value when it fits the new type.
			if !ok || !a.fits(f, in.Type, d) {
				return value, true
			}
		}
		if in.Type.Size() == in.From.Size() && in.Type.Size() < 8 && ok && !a.fits(f, in.Type, d) {
			return value, true
		}
	default:
		return value, true
	}
	if !ok {
		return value, true
	}
	// Below 64 bits the IR wraps at the type's width, which the form does
	// not: the form stands only when its value fits.
	if in.Type.Size() < 8 && !a.fits(f, in.Type, d) {
		return value, true
	}
	return f, true
}

// constOf returns arg's value at s when it is a constant.
func (a *Analysis) constOf(arg ir.Arg, s Site) (int64, bool) {
	f, ok := a.AffineOf(arg, s)
	if !ok {
		return 0, false
	}
	return f.IsConst()
}
