package analysis

import (
	"math"
	"math/bits"

	"github.com/qdgo/qd/ir"
)

// Bounds the hardware puts on values known at launch: a slice holds at
// most MaxLen elements (GPUs address 48 bits of virtual memory), and a
// grid at most MaxThreads threads (2^31-1 blocks of 1024 threads).
const (
	MaxLen     = 1 << 48
	MaxThreads = 1 << 41
)

// Range is what is known of an integer value at a site: it lies in
// [Min, Max], read as int64 (a 64-bit unsigned value as the int64 of the
// same bits), and Lower[i] <= value <= Upper[j] for every bound listed,
// which are affine forms of values known at the site (outer counters,
// parameters, lengths).
type Range struct {
	Min, Max     int64
	Lower, Upper []Affine
}

// maxBounds bounds the symbolic bounds a range keeps on each side.
const maxBounds = 4

// RangeOf returns the range of what arg holds at s.
func (a *Analysis) RangeOf(arg ir.Arg, s Site) Range {
	f, ok := a.AffineOf(arg, s)
	if !ok {
		return Range{Min: math.MinInt64, Max: math.MaxInt64}
	}
	return a.FormRange(f, s)
}

// FormRange returns the range of the value of f at s.
func (a *Analysis) FormRange(f Affine, s Site) Range {
	num := a.numeric(f, s, true)
	r := Range{Min: num.lo, Max: num.hi}
	addBound := func(list *[]Affine, g Affine) {
		for _, h := range *list {
			if h.Equal(g) {
				return
			}
		}
		if len(*list) < maxBounds && !g.Equal(f) {
			*list = append(*list, g)
		}
	}
	// The bounds of the comparisons that hold here. A bound that adds c
	// to a side of a comparison needs that side, f and the bound not to
	// overflow.
	fExact := a.exact(f, s)
	shifted := func(c int64, side, bound Affine) bool {
		return c == 0 || fExact && a.exact(side, s) && a.exact(bound, s)
	}
	for _, fact := range a.Facts(s.Block) {
		strict := int64(0)
		if fact.Op == ir.OpLt {
			strict = 1
		}
		if fact.Op != ir.OpLt && fact.Op != ir.OpLe {
			if fact.Op == ir.OpEq {
				if c, ok := f.Sub(fact.X).IsConst(); ok && shifted(c, fact.X, fact.Y.Add(Constant(c))) {
					addBound(&r.Lower, fact.Y.Add(Constant(c)))
					addBound(&r.Upper, fact.Y.Add(Constant(c)))
				}
			}
			continue
		}
		if c, ok := f.Sub(fact.X).IsConst(); ok { // f = X + c <= Y - strict + c
			if b := fact.Y.Add(Constant(c - strict)); shifted(c, fact.X, b) {
				addBound(&r.Upper, b)
			}
		}
		if c, ok := f.Sub(fact.Y).IsConst(); ok { // f = Y + c >= X + strict + c
			if b := fact.X.Add(Constant(c + strict)); shifted(c, fact.Y, b) {
				addBound(&r.Lower, b)
			}
		}
	}
	// min(x, y) is at most x and y, max(x, y) at least.
	if len(f.Terms) == 1 && f.Const == 0 && f.Terms[0].Coeff == 1 && len(f.Terms[0].Factors) == 1 {
		if x := f.Terms[0].Factors[0]; x.Kind == Value && x.Site.Block >= 0 {
			if in := a.Instr(x.Site); in.Op == ir.OpMin || in.Op == ir.OpMax {
				for _, arg := range in.Args {
					g, ok := a.AffineOf(arg, x.Site)
					if !ok {
						continue
					}
					if in.Op == ir.OpMin {
						addBound(&r.Upper, g)
					} else {
						addBound(&r.Lower, g)
					}
				}
			}
		}
	}
	// Counters replaced by their own bounds.
	if fExact {
		for _, lo := range a.substitute(f, s, false) {
			if a.exact(lo, s) {
				addBound(&r.Lower, lo)
			}
		}
		for _, hi := range a.substitute(f, s, true) {
			if a.exact(hi, s) {
				addBound(&r.Upper, hi)
			}
		}
	}
	for _, g := range r.Upper {
		if c, ok := g.IsConst(); ok {
			r.Max = min(r.Max, c)
		} else if n := a.numeric(g, s, false); n.hi < r.Max {
			r.Max = n.hi
		}
	}
	for _, g := range r.Lower {
		if c, ok := g.IsConst(); ok {
			r.Min = max(r.Min, c)
		} else if n := a.numeric(g, s, false); n.lo > r.Min {
			r.Min = n.lo
		}
	}
	a.excludeEnds(f, s, &r)
	if r.Min > r.Max {
		r.Min, r.Max = num.lo, num.hi
	}
	return r
}

// excludeEnds narrows r by the facts f != e that hold at s, where e is an
// end of r: i is at least 1 in the else of if i == 0, where it is at
// least 0 by the loop's test. A bound equal to e becomes e+1 (e-1 for an
// upper one), which cannot overflow, since f lies strictly beyond e.
func (a *Analysis) excludeEnds(f Affine, s Site, r *Range) {
	for _, fact := range a.Facts(s.Block) {
		if fact.Op != ir.OpNe {
			continue
		}
		for _, side := range [2][2]Affine{{fact.X, fact.Y}, {fact.Y, fact.X}} {
			c, ok := f.Sub(side[0]).IsConst()
			if !ok {
				continue
			}
			e := side[1].Add(Constant(c)) // f != e
			for i, g := range r.Lower {
				if g.Equal(e) {
					r.Lower[i] = e.Add(Constant(1))
				}
			}
			for i, g := range r.Upper {
				if g.Equal(e) {
					r.Upper[i] = e.Add(Constant(-1))
				}
			}
			if v, ok := e.IsConst(); ok {
				if r.Min == v && v < math.MaxInt64 {
					r.Min++
				}
				if r.Max == v && v > math.MinInt64 {
					r.Max--
				}
			}
		}
	}
}

// substitute replaces the counters of f by their bounds at s, innermost
// loop first, upper (lower) bounds where a counter's coefficient is
// positive for an upper (lower) bound of f, and lists the forms it passes
// through: j - i with j >= i+1 gives (i+1) - i = 1. It stops at a counter
// without such a bound, or one that a term multiplies by another atom.
func (a *Analysis) substitute(f Affine, s Site, upper bool) []Affine {
	var out []Affine
	for range maxTerms {
		var x Atom
		depth := 0
		for _, t := range f.Terms {
			if len(t.Factors) != 1 {
				continue
			}
			if y := t.Factors[0]; y.Kind == Counter && a.Loops[y.Index].Depth > depth {
				x, depth = y, a.Loops[y.Index].Depth
			}
		}
		if depth == 0 {
			break
		}
		coeff, rest, ok := f.Split(x)
		c, isConst := coeff.IsConst()
		if !ok || !isConst {
			break
		}
		b, ok := a.counterBound(x, s, upper == (c > 0))
		if !ok {
			break
		}
		f = rest.Add(b.Scale(c))
		out = append(out, f)
	}
	return out
}

// counterBound is a bound of counter x at s that holds no counter of x's
// loop: from the facts at s, or its start for the side it moves away from.
func (a *Analysis) counterBound(x Atom, s Site, upper bool) (Affine, bool) {
	own := func(g Affine) bool {
		return !g.Has(func(y Atom) bool { return y.Kind == Counter && y.Index == x.Index })
	}
	for _, fact := range a.Facts(s.Block) {
		if fact.Op != ir.OpLt && fact.Op != ir.OpLe {
			continue
		}
		strict := int64(0)
		if fact.Op == ir.OpLt {
			strict = 1
		}
		if upper && own(fact.Y) {
			if c, ok := Of(x).Sub(fact.X).IsConst(); ok && (c == 0 || a.exact(fact.X, s) && a.exact(fact.Y, s)) {
				return fact.Y.Add(Constant(c - strict)), true
			}
		}
		if !upper && own(fact.X) {
			if c, ok := Of(x).Sub(fact.Y).IsConst(); ok && (c == 0 || a.exact(fact.X, s) && a.exact(fact.Y, s)) {
				return fact.X.Add(Constant(c + strict)), true
			}
		}
	}
	iv := a.indVar(x)
	if iv == nil || !iv.NoWrap {
		return Affine{}, false
	}
	if iv.Up() != upper {
		return iv.Start, own(iv.Start)
	}
	return Affine{}, false
}

// numeric bounds the value of f at s by interval arithmetic over its
// atoms' ranges; with facts, it uses the comparisons that hold at s.
func (a *Analysis) numeric(f Affine, s Site, facts bool) interval {
	r, _ := a.evaluate(f, s, facts)
	return r
}

// exact reports whether f's arithmetic cannot overflow at s: then the
// form's value as an integer is the register's value, and bounds on one
// are bounds on the other.
func (a *Analysis) exact(f Affine, s Site) bool {
	_, ok := a.evaluate(f, s, true)
	return ok
}

// evaluate is numeric, and whether no step of it overflowed.
func (a *Analysis) evaluate(f Affine, s Site, facts bool) (interval, bool) {
	sum := point(f.Const)
	for _, t := range f.Terms {
		if len(t.Factors) == 1 && t.Coeff == 1 && len(f.Terms) == 1 && f.Const == 0 {
			return a.atomRange(t.Factors[0], s, facts), true
		}
		x := point(t.Coeff)
		for _, atom := range t.Factors {
			var ok bool
			if x, ok = x.mulOK(a.atomRange(atom, s, facts)); !ok {
				return full, false
			}
		}
		var ok bool
		if sum, ok = sum.addOK(x); !ok {
			return full, false
		}
	}
	return sum, true
}

// atomRange bounds an atom's value at s.
func (a *Analysis) atomRange(x Atom, s Site, facts bool) interval {
	var r interval
	switch x.Kind {
	case Param:
		r = typeRange(a.paramType(x.Index))
	case Len:
		r = interval{0, MaxLen}
	case ThreadIndex:
		r = interval{0, MaxThreads - 1}
	case ThreadCount:
		r = interval{1, MaxThreads}
	case Counter:
		r = a.counterRange(x)
	case Value:
		r = a.valueRange(x)
	}
	if facts {
		for _, fact := range a.Facts(s.Block) {
			if fact.Op != ir.OpLt && fact.Op != ir.OpLe && fact.Op != ir.OpEq {
				continue
			}
			strict := int64(0)
			if fact.Op == ir.OpLt {
				strict = 1
			}
			if c, ok := Of(x).Sub(fact.X).IsConst(); ok {
				if hi, ok := AddInt(a.numeric(fact.Y, s, false).hi, c-strict); ok {
					r = r.meet(interval{math.MinInt64, hi})
				}
			}
			if c, ok := Of(x).Sub(fact.Y).IsConst(); ok {
				if lo, ok := AddInt(a.numeric(fact.X, s, false).lo, c+strict); ok {
					r = r.meet(interval{lo, math.MaxInt64})
				}
			}
		}
		// x != e at an end of what the comparisons leave: i > 0 in the
		// else of if i == 0 where i >= 0.
		for _, fact := range a.Facts(s.Block) {
			if fact.Op != ir.OpNe {
				continue
			}
			for _, side := range [2][2]Affine{{fact.X, fact.Y}, {fact.Y, fact.X}} {
				c, ok := Of(x).Sub(side[0]).IsConst()
				if !ok {
					continue
				}
				e, ok := side[1].IsConst()
				if !ok {
					continue
				}
				if e, ok = AddInt(e, c); !ok {
					continue
				}
				if r.lo == e && r.hi > e {
					r.lo++
				} else if r.hi == e && r.lo < e {
					r.hi--
				}
			}
		}
	}
	return r
}

// counterRange bounds a counter in every iteration of its loop.
func (a *Analysis) counterRange(x Atom) interval {
	iv := a.indVar(x)
	if iv == nil {
		return full
	}
	k := key{x.Reg, Site{-1 - x.Index, 0}}
	if r, ok := a.rangeMemo[k]; ok {
		return r
	}
	a.rangeMemo[k] = typeRange(iv.Type) // a guard against cycles
	r := a.counterInterval(iv)
	a.rangeMemo[k] = r
	return r
}

func (a *Analysis) counterInterval(iv *IndVar) interval {
	r := typeRange(iv.Type)
	if !iv.StartKnown && iv.LeastKnown {
		// Up from at least Least; above, the facts where it is read bound it.
		return r.meet(interval{a.numeric(iv.Least, a.End(iv.Loop.Header), true).lo, r.hi})
	}
	if !iv.NoWrap || iv.Exit == nil {
		return r
	}
	start := a.numeric(iv.Start, a.End(iv.Loop.Header), true)
	bound := a.numeric(iv.Exit.Bound.Sub(iv.Exit.Offset), a.End(iv.Loop.Header), false)
	step := a.numeric(iv.Step, a.End(iv.Loop.Header), false)
	// The counter runs from its start to the last value that passes the
	// test, and one step past it.
	switch op := iv.Exit.Op; {
	case op == ir.OpLt, op == ir.OpNe && iv.Up():
		bound.hi--
	case op == ir.OpGt, op == ir.OpNe && iv.Down():
		bound.lo++
	}
	if iv.Up() {
		hi, ok := AddInt(bound.hi, step.hi)
		if !ok {
			return r
		}
		return r.meet(interval{start.lo, max(hi, start.hi)})
	}
	lo, ok := AddInt(bound.lo, step.lo)
	if !ok {
		return r
	}
	return r.meet(interval{min(lo, start.lo), start.hi})
}

// valueRange bounds what the instruction of a Value atom assigns, from
// its operation.
func (a *Analysis) valueRange(x Atom) interval {
	if x.Site.Block < 0 {
		return full
	}
	k := key{x.Reg, x.Site}
	if r, ok := a.rangeMemo[k]; ok {
		return r
	}
	a.rangeMemo[k] = full // a guard against cycles
	in := a.Instr(x.Site)
	r := typeRange(in.ResultType()).meet(a.opRange(in, x.Site))
	if p, ok := a.pointwiseRange(x); ok {
		r = r.meet(p)
	}
	a.rangeMemo[k] = r
	return r
}

// opRange bounds the result of in, at d, by its operation: masks, shifts,
// remainders, min and max, xor and or of values of known width,
// conversions and bit counts.
func (a *Analysis) opRange(in *ir.Instr, d Site) interval {
	arg := func(i int) interval {
		r := a.RangeOf(in.Args[i], d)
		return interval{r.Min, r.Max}
	}
	constArg := func(i int) (int64, bool) { return a.constOf(in.Args[i], d) }
	switch in.Op {
	case ir.OpBlockThread, ir.OpLane, ir.OpWarpIndex:
		// A block-level task's blocks have its Threads threads; any
		// block has at most ir.MaxBlockThreads.
		threads := int64(ir.MaxBlockThreads)
		if a.Task.Kind == ir.BlockLevel && a.Task.Threads > 0 {
			threads = int64(a.Task.Threads)
		}
		return interval{0, threads - 1}
	case ir.OpAnd:
		x, y := arg(0), arg(1)
		switch {
		case x.lo >= 0 && y.lo >= 0:
			return interval{0, min(x.hi, y.hi)}
		case x.lo >= 0:
			return interval{0, x.hi}
		case y.lo >= 0:
			return interval{0, y.hi}
		}
	case ir.OpOr, ir.OpXor:
		x, y := arg(0), arg(1)
		if x.lo >= 0 && y.lo >= 0 {
			return interval{0, int64(1)<<bits.Len64(uint64(max(x.hi, y.hi))) - 1}
		}
	case ir.OpRem:
		c, ok := constArg(1)
		if !ok || c == 0 || c == math.MinInt64 {
			break
		}
		if in.Type.IsUnsigned() {
			if c > 0 {
				return interval{0, c - 1}
			}
			break
		}
		c = abs(c)
		if x := arg(0); x.lo >= 0 {
			return interval{0, min(x.hi, c-1)}
		}
		return interval{-(c - 1), c - 1}
	case ir.OpDiv:
		c, ok := constArg(1)
		x := arg(0)
		if ok && c > 0 && (x.lo >= 0 || in.Type.IsSigned()) {
			return interval{x.lo / c, x.hi / c}
		}
	case ir.OpShr:
		c, ok := constArg(1)
		if !ok || c < 0 {
			break
		}
		x := arg(0)
		switch {
		case c >= 64:
			return interval{min(x.lo, 0) >> 63, 0}
		case x.lo >= 0 || in.Type.IsSigned():
			return interval{x.lo >> c, x.hi >> c}
		case in.Type.Size() == 8 && c > 0:
			return interval{0, int64(^uint64(0) >> c)}
		}
	case ir.OpMin:
		x, y := arg(0), arg(1)
		return interval{min(x.lo, y.lo), min(x.hi, y.hi)}
	case ir.OpMax:
		x, y := arg(0), arg(1)
		return interval{max(x.lo, y.lo), max(x.hi, y.hi)}
	case ir.OpConvert:
		// A conversion to a type as wide keeps the value only where the
		// new type holds it: -1 becomes 255 as a u8, and 255 becomes -1
		// as an i8 (a u8 load seen through int8, then sign-extended).
		if x, r := arg(0), typeRange(in.Type); in.From.IsInteger() && in.From.Size() <= in.Type.Size() && x.lo >= r.lo && x.hi <= r.hi {
			return x
		}
	case ir.OpPopCount, ir.OpLeadingZeros, ir.OpTrailingZeros:
		return interval{0, int64(in.Type.Bits())}
	case ir.OpMove:
		return arg(0)
	}
	return full
}

// fits reports whether f's value at s is a value of type t.
func (a *Analysis) fits(f Affine, t ir.Type, s Site) bool {
	if t.Size() == 8 {
		return true
	}
	n := a.numeric(f, s, true)
	r := typeRange(t)
	return n.lo >= r.lo && n.hi <= r.hi
}

// paramType is the type of the scalar parameter i, as the task reads it.
func (a *Analysis) paramType(i int) ir.Type {
	for _, b := range a.Task.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpParam && int(in.Aux) == i {
				return in.Type
			}
		}
	}
	return ir.Invalid
}
