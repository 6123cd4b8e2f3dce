package opt

import (
	"fmt"
	"math"
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// This file works out, for NarrowIndices, the test a thread runs before a
// loop to learn that every index value of the loop fits in int32: each
// value's affine form (analysis.AffineOf) is bounded by interval
// arithmetic over values known before the loop. Parameters and lengths
// are read as they are; a counter or another loop value is bounded by the
// comparisons that hold where it is read (analysis.Facts: the loop's own
// exit test gives i < n) or by its start, whose forms are bounded in turn.
//
// The test is computed in 64 bits and cannot be fooled by overflow: every
// end of every interval, and every product and partial sum of the
// arithmetic, must itself lie in int32, so each 64-bit operation of the
// test works on 32-bit values and is exact. The test is stricter than it
// need be only where a partial sum leaves int32 and comes back, which no
// index does that the 32-bit arithmetic would compute right anyway.
// Most of those comparisons follow from a few others (d-2 ≤ 2^31-1 from
// d ≤ 2^31-1, a partial sum of nonnegative terms from the whole sum):
// dropImplied (index32implied.go) keeps only the others, proving each
// one it drops without trusting a 64-bit operation it cannot show exact,
// and mergeNonnegative tests the values left that are never negative
// with one comparison.

const (
	minInt32 = math.MinInt32
	maxInt32 = math.MaxInt32
)

// launchInterval is a value's interval at a site: lo and hi are operands
// computed before the loop (immediates where they are constants), slo and
// shi the bounds known now, for choosing the ends of products.
type launchInterval struct {
	lo, hi   ir.Arg
	slo, shi int64
}

// boundsBuilder builds the test. Without a block it only decides whether
// the test can hold (dry): operands it would compute are placeholders,
// and only constants are checked.
type boundsBuilder struct {
	an    *analysis.Analysis
	t     *ir.Task
	b     *ir.Block // nil when dry
	conds []ir.Arg  // the comparisons that must all hold
	seen  map[string]ir.Arg
	depth int
	// For dropImplied: leaves are the values of the block that the test
	// reads as they are (parameters, lengths, the thread count, values
	// computed before the loop), each with what it holds; site is where
	// the value being bounded now is, and sites the places each test is
	// made for.
	leaves map[ir.Reg]analysis.Atom
	site   analysis.Site
	sites  map[ir.Reg][]analysis.Site
	// entry is the block at whose end the test runs.
	entry int
}

var placeholder = ir.Arg{Reg: ir.NoReg}

func newBoundsBuilder(an *analysis.Analysis, b *ir.Block, entry int) *boundsBuilder {
	return &boundsBuilder{an: an, t: an.Task, b: b, seen: map[string]ir.Arg{}, entry: entry,
		leaves: map[ir.Reg]analysis.Atom{}, sites: map[ir.Reg][]analysis.Site{}}
}

// fits adds to the test that f's value at s lies in int32, and reports
// false when it cannot.
func (bb *boundsBuilder) fits(f analysis.Affine, s analysis.Site) bool {
	if bb.depth == 0 {
		bb.site = s
	}
	_, ok := bb.form(f, s)
	return ok
}

// form bounds f at s; every end it makes is tested to fit.
func (bb *boundsBuilder) form(f analysis.Affine, s analysis.Site) (launchInterval, bool) {
	if bb.depth > 8 {
		return launchInterval{}, false
	}
	bb.depth++
	defer func() { bb.depth-- }()
	sum := constInterval(f.Const)
	if !fitsInt32(f.Const) {
		return launchInterval{}, false
	}
	for k, term := range f.Terms {
		if !fitsInt32(term.Coeff) {
			return launchInterval{}, false
		}
		x := constInterval(term.Coeff)
		for k, atom := range term.Factors {
			y, ok := bb.atom(atom, s)
			if !ok {
				return launchInterval{}, false
			}
			if k == 0 && term.Coeff == 1 {
				x = y
			} else if x, ok = bb.mul(x, y); !ok {
				return launchInterval{}, false
			}
		}
		if k == 0 && f.Const == 0 {
			sum = x
			continue
		}
		var ok bool
		if sum, ok = bb.add(sum, x); !ok {
			return launchInterval{}, false
		}
	}
	return sum, true
}

// atom bounds one unknown of a form at s.
func (bb *boundsBuilder) atom(x analysis.Atom, s analysis.Site) (launchInterval, bool) {
	static := bb.an.FormRange(analysis.Of(x), s)
	switch x.Kind {
	case analysis.Param:
		v, ok := bb.param(x.Index)
		if !ok {
			return launchInterval{}, false
		}
		bb.leaf(v, x)
		return bb.checked(launchInterval{v, v, static.Min, static.Max})
	case analysis.Len:
		v := bb.emit(ir.Instr{Op: ir.OpParamLen, Type: ir.Int64, Aux: int64(x.Index)})
		bb.leaf(v, x)
		return bb.checked(launchInterval{v, v, max(static.Min, 0), static.Max})
	case analysis.ThreadCount:
		v := bb.emit(ir.Instr{Op: ir.OpThreadCount, Type: ir.Int64})
		bb.leaf(v, x)
		return bb.checked(launchInterval{v, v, max(static.Min, 1), static.Max})
	case analysis.ThreadIndex:
		n := bb.emit(ir.Instr{Op: ir.OpThreadCount, Type: ir.Int64})
		bb.leaf(n, analysis.Atom{Kind: analysis.ThreadCount})
		last := bb.arith(ir.OpSub, n, ir.Imm(ir.Int64, 1))
		return bb.checked(launchInterval{ir.Imm(ir.Int64, 0), last, 0, static.Max})
	case analysis.Counter, analysis.Value:
		if bb.before(x) {
			// Computed before the loop, as a block-level task's counts
			// are: the test reads it as it is.
			v := ir.R(x.Reg)
			if bb.b == nil {
				v = placeholder
			}
			bb.leaf(v, x)
			return bb.checked(launchInterval{v, v, static.Min, static.Max})
		}
		lo, okLo := bb.lower(x, s, static)
		hi, okHi := bb.upper(x, s, static)
		if !okLo || !okHi {
			clo, chi, cokLo, cokHi := bb.clampBounds(x)
			if !okLo && cokLo {
				lo, okLo = clo, true
			}
			if !okHi && cokHi {
				hi, okHi = chi, true
			}
		}
		if !okLo || !okHi {
			if q, ok := bb.quotientBounds(x); ok {
				lo, hi, okLo, okHi = q.lo, q.hi, true, true
			}
		}
		if !okLo || !okHi {
			return launchInterval{}, false
		}
		return bb.checked(launchInterval{lo, hi, static.Min, static.Max})
	}
	return launchInterval{}, false
}

// leaf records that v holds x.
func (bb *boundsBuilder) leaf(v ir.Arg, x analysis.Atom) {
	if bb.b != nil && !v.Imm {
		bb.leaves[v.Reg] = x
	}
}

// clampBounds bounds a value x that a min or a max assigned by its
// operands' bounds: min(a, b) is at most either's upper bound and at
// least the smaller of their lower bounds, max(a, b) the other way round.
// One operand's bound serves where the other's is unknown, so that a
// clamped index, min(max(y+dy, 0), h-1), lies in [min(0, h-1), h-1]
// whatever y is. Each end is reported alone: okLo, okHi.
func (bb *boundsBuilder) clampBounds(x analysis.Atom) (lo, hi ir.Arg, okLo, okHi bool) {
	if x.Kind != analysis.Value || x.Site.Block < 0 || bb.depth > 8 {
		return
	}
	in := bb.an.Instr(x.Site)
	if in.Type != ir.Int64 {
		return
	}
	bb.depth++
	defer func() { bb.depth-- }()
	if in.Op != ir.OpMin && in.Op != ir.OpMax {
		return
	}
	isMin := in.Op == ir.OpMin
	// The end both operands must bound (min's lower, max's upper) and
	// the one either may.
	var all, any, anyLimit []ir.Arg
	allKnown := true
	for _, a := range in.Args {
		alo, ahi, aokLo, aokHi := bb.operandBounds(a, x.Site)
		both, one, okBoth, okOne := alo, ahi, aokLo, aokHi
		if !isMin {
			both, one, okBoth, okOne = ahi, alo, aokHi, aokLo
		}
		if okBoth {
			all = append(all, both)
		} else {
			allKnown = false
		}
		if okOne {
			any = append(any, one)
			if bb.launchValue(a, x.Site) {
				anyLimit = append(anyLimit, one)
			}
		}
	}
	// A clamp's limit, the same in every iteration, bounds it well enough
	// alone: min(max(x-1, 0), w-1) is at most w-1, which the test checks
	// anyway, where taking x's bound too costs a test per clamp.
	if len(anyLimit) > 0 {
		any = anyLimit
	}
	var b1, b2 ir.Arg
	var ok1, ok2 bool
	if allKnown && len(all) > 0 {
		b1, ok1 = all[0], true
		for _, e := range all[1:] {
			b1 = bb.arith(in.Op, b1, e)
		}
	}
	if len(any) > 0 {
		b2, ok2 = any[0], true
		for _, e := range any[1:] {
			b2 = bb.arith(in.Op, b2, e)
		}
	}
	if isMin {
		return b1, b2, ok1, ok2
	}
	return b2, b1, ok2, ok1
}

// quotientBounds bounds a value x that a 64-bit signed division or
// remainder assigned by its dividend's bounds, whatever the divisor: Go
// truncates, so a remainder has its dividend's sign and at most its size,
// and so has a quotient by a divisor that is not negative. By a divisor
// of either sign the quotient is at most the dividend's size either way.
// The index of a collapsed loop split in two, p/w and p%w with p < n,
// lies in [0, n-1] without a division at launch.
func (bb *boundsBuilder) quotientBounds(x analysis.Atom) (launchInterval, bool) {
	if x.Kind != analysis.Value || x.Site.Block < 0 || bb.depth > 8 {
		return launchInterval{}, false
	}
	in := bb.an.Instr(x.Site)
	if in.Op != ir.OpDiv && in.Op != ir.OpRem || in.Type != ir.Int64 {
		return launchInterval{}, false
	}
	f, ok := bb.an.AffineOf(in.Args[0], x.Site)
	if !ok {
		return launchInterval{}, false
	}
	n, ok := bb.form(f, x.Site)
	if !ok {
		return launchInterval{}, false
	}
	zero := ir.Imm(ir.Int64, 0)
	// A divisor known before the loop is tested not to be negative, as a
	// narrowed division needs anyway, rather than doubling the quotient's
	// range: p/w in [0, p] keeps (p%w)*h + p/w in int32.
	byNonNegative := bb.an.RangeOf(in.Args[1], x.Site).Min >= 0
	if !byNonNegative && bb.launchValue(in.Args[1], x.Site) {
		d, ok := bb.an.AffineOf(in.Args[1], x.Site)
		byNonNegative = ok && bb.notNegative(d, x.Site)
	}
	if in.Op == ir.OpRem || byNonNegative {
		// [min(lo, 0), max(hi, 0)], without the tests a sign known now makes
		// needless.
		lo, hi := bb.arith(ir.OpMin, n.lo, zero), bb.arith(ir.OpMax, n.hi, zero)
		switch {
		case n.slo >= 0:
			lo, hi = zero, n.hi
		case n.shi <= 0:
			lo, hi = n.lo, zero
		}
		return bb.checked(launchInterval{lo, hi, min(n.slo, 0), max(n.shi, 0)})
	}
	// |q| <= max(-lo, hi): lo fits in int32, so its negation in int64 does.
	size := bb.arith(ir.OpMax, bb.arith(ir.OpSub, zero, n.lo), n.hi)
	ssize := int64(math.MaxInt64)
	if n.slo > math.MinInt64 {
		ssize = max(-n.slo, n.shi)
	}
	return bb.checked(launchInterval{bb.arith(ir.OpSub, zero, size), size, -ssize, ssize})
}

// operandBounds bounds an operand a of a min or max at s, each end alone
// where a is itself a min or max.
func (bb *boundsBuilder) operandBounds(a ir.Arg, s analysis.Site) (lo, hi ir.Arg, okLo, okHi bool) {
	f, ok := bb.an.AffineOf(a, s)
	if !ok {
		return
	}
	if len(f.Terms) == 1 && f.Const == 0 && f.Terms[0].Coeff == 1 && len(f.Terms[0].Factors) == 1 {
		if x := f.Terms[0].Factors[0]; x.Kind == analysis.Value && x.Site.Block >= 0 {
			if op := bb.an.Instr(x.Site).Op; op == ir.OpMin || op == ir.OpMax {
				return bb.clampBounds(x)
			}
		}
	}
	iv, ok := bb.form(f, s)
	return iv.lo, iv.hi, ok, ok
}

// launchValue reports whether a at s is a value known before the loop:
// a constant, or an affine form of parameters, lengths and values
// computed before it.
func (bb *boundsBuilder) launchValue(a ir.Arg, s analysis.Site) bool {
	if a.Imm {
		return true
	}
	f, ok := bb.an.AffineOf(a, s)
	return ok && !f.Has(func(x analysis.Atom) bool {
		switch x.Kind {
		case analysis.Param, analysis.Len, analysis.ThreadCount:
			return false
		}
		return !bb.before(x)
	})
}

// before reports whether x is a 64-bit value that the test can read
// where it runs: its register's only assignment, in a block that
// dominates the test's, so that it holds there what it holds in the
// loop.
func (bb *boundsBuilder) before(x analysis.Atom) bool {
	if x.Kind != analysis.Value || bb.t.Regs[x.Reg] != ir.Int64 {
		return false
	}
	defs := bb.an.Defs(x.Reg)
	return len(defs) == 1 && defs[0] == x.Site && bb.an.Dominates(x.Site.Block, bb.entry)
}

// upper is an upper bound of a counter or loop value x at s: a constant
// when one in int32 is known now, else the comparison that holds at s
// with x on its left, else the start of a counter that goes down.
func (bb *boundsBuilder) upper(x analysis.Atom, s analysis.Site, static analysis.Range) (ir.Arg, bool) {
	if static.Max <= maxInt32 {
		return ir.Imm(ir.Int64, uint64(static.Max)), true
	}
	own := func(g analysis.Affine) bool { return g.Has(func(y analysis.Atom) bool { return y == x }) }
	for _, fact := range bb.an.Facts(s.Block) {
		strict, ok := factStrictness(fact.Op)
		if !ok || !fact.X.Equal(analysis.Of(x)) || own(fact.Y) {
			continue
		}
		y, ok := bb.form(fact.Y, s)
		if !ok {
			return placeholder, false
		}
		return bb.arith(ir.OpSub, y.hi, ir.Imm(ir.Int64, uint64(strict))), true
	}
	iv := bb.indVar(x)
	if iv != nil && iv.Down() && iv.NoWrap && iv.StartKnown {
		start, ok := bb.form(iv.Start, s)
		return start.hi, ok
	}
	if iv != nil && iv.Up() && iv.NoWrap && iv.StartKnown {
		return bb.exitBound(iv, s)
	}
	return placeholder, false
}

// exitBound bounds every value of a counter that goes up by its exit
// test (analysis.IndVar.Reach): the larger of its start and the bound
// plus how far past it the counter goes. A loop whose test is at its
// bottom has no comparison that holds in its body.
func (bb *boundsBuilder) exitBound(iv *analysis.IndVar, s analysis.Site) (ir.Arg, bool) {
	bound, past, ok := iv.Reach()
	if !ok || iv.Type != ir.Int64 || past < -1<<32 || past > 1<<32 {
		return placeholder, false
	}
	start, ok := bb.form(iv.Start, s)
	if !ok {
		return placeholder, false
	}
	b, ok := bb.form(bound, s)
	if !ok {
		return placeholder, false
	}
	last := bb.arith(ir.OpAdd, b.hi, ir.Imm(ir.Int64, uint64(past)))
	return bb.arith(ir.OpMax, start.hi, last), true
}

// lower is upper's mirror image.
func (bb *boundsBuilder) lower(x analysis.Atom, s analysis.Site, static analysis.Range) (ir.Arg, bool) {
	if static.Min >= minInt32 {
		return ir.Imm(ir.Int64, uint64(static.Min)), true
	}
	own := func(g analysis.Affine) bool { return g.Has(func(y analysis.Atom) bool { return y == x }) }
	for _, fact := range bb.an.Facts(s.Block) {
		strict, ok := factStrictness(fact.Op)
		if !ok || !fact.Y.Equal(analysis.Of(x)) || own(fact.X) {
			continue
		}
		y, ok := bb.form(fact.X, s)
		if !ok {
			return placeholder, false
		}
		return bb.arith(ir.OpAdd, y.lo, ir.Imm(ir.Int64, uint64(strict))), true
	}
	if iv := bb.indVar(x); iv != nil && iv.Up() && iv.StartKnown && (iv.NoWrap || bb.boundedExit(iv, s)) {
		start, ok := bb.form(iv.Start, s)
		return start.lo, ok
	}
	return placeholder, false
}

// boundedExit reports whether a counter that goes up cannot wrap once
// the test holds: a grid-stride loop's, whose step is the thread count.
// The test checks that its start and its exit test's bound fit in
// int32, below which it climbs without wrapping (ClimbsBelow).
func (bb *boundsBuilder) boundedExit(iv *analysis.IndVar, s analysis.Site) bool {
	return iv.Type == ir.Int64 && bb.an.ClimbsBelow(iv, maxInt32) && bb.fits(iv.Exit.Bound, s)
}

// factStrictness is what a fact X Op Y subtracts from Y to bound X.
func factStrictness(op ir.Op) (int64, bool) {
	switch op {
	case ir.OpLt:
		return 1, true
	case ir.OpLe, ir.OpEq:
		return 0, true
	}
	return 0, false
}

func (bb *boundsBuilder) indVar(x analysis.Atom) *analysis.IndVar {
	if x.Kind != analysis.Counter || x.Index >= len(bb.an.Loops) {
		return nil
	}
	return bb.an.Loops[x.Index].IndVar(x.Reg)
}

// param reads scalar parameter i as an int64.
func (bb *boundsBuilder) param(i int) (ir.Arg, bool) {
	for _, b := range bb.t.Blocks {
		for _, in := range b.Instrs {
			if in.Op != ir.OpParam || int(in.Aux) != i {
				continue
			}
			if !in.Type.IsInteger() {
				return placeholder, false
			}
			v := bb.emit(ir.Instr{Op: ir.OpParam, Type: in.Type, Aux: in.Aux})
			if in.Type != ir.Int64 {
				v = bb.emit(ir.Instr{Op: ir.OpConvert, Type: ir.Int64, From: in.Type, Args: []ir.Arg{v}})
			}
			return v, true
		}
	}
	return placeholder, false
}

// mul is the interval of x·y, both of whose ends fit in int32.
func (bb *boundsBuilder) mul(x, y launchInterval) (launchInterval, bool) {
	slo, shi := staticProduct(x, y)
	if y.lo == y.hi && x.lo != x.hi {
		x, y = y, x
	}
	if x.lo == x.hi && !x.lo.Imm && y.lo != y.hi {
		// A value known at launch times an interval: its sign picks the ends.
		a, b := bb.arith(ir.OpMul, x.lo, y.lo), bb.arith(ir.OpMul, x.lo, y.hi)
		if x.slo >= 0 {
			return bb.checked(launchInterval{a, b, slo, shi})
		}
		return bb.checked(launchInterval{bb.arith(ir.OpMin, a, b), bb.arith(ir.OpMax, a, b), slo, shi})
	}
	switch {
	case x.slo >= 0 && y.slo >= 0:
		return bb.checked(launchInterval{bb.arith(ir.OpMul, x.lo, y.lo), bb.arith(ir.OpMul, x.hi, y.hi), slo, shi})
	case x.shi <= 0 && y.shi <= 0:
		return bb.checked(launchInterval{bb.arith(ir.OpMul, x.hi, y.hi), bb.arith(ir.OpMul, x.lo, y.lo), slo, shi})
	case x.slo >= 0 && y.shi <= 0:
		return bb.checked(launchInterval{bb.arith(ir.OpMul, x.hi, y.lo), bb.arith(ir.OpMul, x.lo, y.hi), slo, shi})
	case x.shi <= 0 && y.slo >= 0:
		return bb.checked(launchInterval{bb.arith(ir.OpMul, x.lo, y.hi), bb.arith(ir.OpMul, x.hi, y.lo), slo, shi})
	}
	p := []ir.Arg{bb.arith(ir.OpMul, x.lo, y.lo), bb.arith(ir.OpMul, x.lo, y.hi), bb.arith(ir.OpMul, x.hi, y.lo), bb.arith(ir.OpMul, x.hi, y.hi)}
	lo := bb.arith(ir.OpMin, bb.arith(ir.OpMin, p[0], p[1]), bb.arith(ir.OpMin, p[2], p[3]))
	hi := bb.arith(ir.OpMax, bb.arith(ir.OpMax, p[0], p[1]), bb.arith(ir.OpMax, p[2], p[3]))
	return bb.checked(launchInterval{lo, hi, slo, shi})
}

func (bb *boundsBuilder) add(x, y launchInterval) (launchInterval, bool) {
	return bb.checked(launchInterval{bb.arith(ir.OpAdd, x.lo, y.lo), bb.arith(ir.OpAdd, x.hi, y.hi),
		saturate(float64(x.slo) + float64(y.slo)), saturate(float64(x.shi) + float64(y.shi))})
}

// staticProduct bounds x·y now, saturating at the ends of int64.
func staticProduct(x, y launchInterval) (int64, int64) {
	p := []float64{float64(x.slo) * float64(y.slo), float64(x.slo) * float64(y.shi), float64(x.shi) * float64(y.slo), float64(x.shi) * float64(y.shi)}
	lo, hi := p[0], p[0]
	for _, v := range p[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return saturate(lo), saturate(hi)
}

// saturate rounds a bound outwards to int64; a float64 bound that is
// inexact is off by far less than the margin the int32 tests leave.
func saturate(v float64) int64 {
	switch {
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

func constInterval(c int64) launchInterval {
	return launchInterval{ir.Imm(ir.Int64, uint64(c)), ir.Imm(ir.Int64, uint64(c)), c, c}
}

func fitsInt32(c int64) bool { return c >= minInt32 && c <= maxInt32 }

// checked tests that both ends of x fit in int32: an end whose bound
// known now fits is that constant, a constant end is tested now, and
// the others at run time. Once they fit, so does every value between.
func (bb *boundsBuilder) checked(x launchInterval) (launchInterval, bool) {
	if x.lo.Imm {
		x.lo = ir.Imm(ir.Int64, uint64(max(int64(x.lo.Bits), x.slo)))
	} else if fitsInt32(x.slo) {
		x.lo = ir.Imm(ir.Int64, uint64(x.slo))
	}
	if x.hi.Imm {
		x.hi = ir.Imm(ir.Int64, uint64(min(int64(x.hi.Bits), x.shi)))
	} else if fitsInt32(x.shi) {
		x.hi = ir.Imm(ir.Int64, uint64(x.shi))
	}
	for i, end := range []ir.Arg{x.lo, x.hi} {
		if end.Imm {
			if !fitsInt32(int64(end.Bits)) {
				return x, false
			}
			continue
		}
		// lo <= value <= hi: a side the value's own bound keeps in int32
		// needs no test.
		if i == 0 || x.slo < minInt32 {
			bb.test(ir.OpGe, end, minInt32)
		}
		if i == 1 || x.shi > maxInt32 {
			bb.test(ir.OpLe, end, maxInt32)
		}
	}
	if x.lo.Imm {
		x.slo = max(x.slo, int64(x.lo.Bits))
	}
	if x.hi.Imm {
		x.shi = min(x.shi, int64(x.hi.Bits))
	}
	return x, true
}

// notNegative adds to the test that f's value at s is not negative, and
// reports false when it cannot be.
func (bb *boundsBuilder) notNegative(f analysis.Affine, s analysis.Site) bool {
	x, ok := bb.form(f, s)
	switch {
	case !ok:
		return false
	case x.lo.Imm:
		return int64(x.lo.Bits) >= 0
	case x.slo < 0:
		bb.test(ir.OpGe, x.lo, 0)
	}
	return true
}

// test adds "v op c" to the conditions.
func (bb *boundsBuilder) test(op ir.Op, v ir.Arg, c int64) {
	if bb.b == nil {
		return
	}
	r := bb.emit(ir.Instr{Op: op, Type: ir.Int64, Args: []ir.Arg{v, ir.Imm(ir.Int64, uint64(c))}})
	if !slices.Contains(bb.sites[r.Reg], bb.site) {
		bb.sites[r.Reg] = append(bb.sites[r.Reg], bb.site)
	}
	if !slices.Contains(bb.conds, r) {
		bb.conds = append(bb.conds, r)
	}
}

// arith computes x op y in int64, folding constants.
func (bb *boundsBuilder) arith(op ir.Op, x, y ir.Arg) ir.Arg {
	if x.Imm && y.Imm {
		a, b := int64(x.Bits), int64(y.Bits)
		var v int64
		switch op {
		case ir.OpAdd:
			v = a + b
		case ir.OpSub:
			v = a - b
		case ir.OpMul:
			v = a * b
		case ir.OpMin:
			v = min(a, b)
		case ir.OpMax:
			v = max(a, b)
		}
		return ir.Imm(ir.Int64, uint64(v))
	}
	if (op == ir.OpMin || op == ir.OpMax) && x == y {
		return x
	}
	if op == ir.OpMul && (x.Imm && x.Bits == 0 || y.Imm && y.Bits == 0) {
		return ir.Imm(ir.Int64, 0)
	}
	if op == ir.OpMul && (y.Imm && y.Bits == 1) {
		return x
	}
	if op == ir.OpMul && (x.Imm && x.Bits == 1) {
		return y
	}
	if (op == ir.OpAdd || op == ir.OpSub) && y.Imm && y.Bits == 0 {
		return x
	}
	if op == ir.OpAdd && x.Imm && x.Bits == 0 {
		return y
	}
	return bb.emit(ir.Instr{Op: op, Type: ir.Int64, Args: []ir.Arg{x, y}})
}

// emit appends in to the block once, giving later requests for the same
// computation its result; dry, it gives a placeholder.
func (bb *boundsBuilder) emit(in ir.Instr) ir.Arg {
	if bb.b == nil {
		return placeholder
	}
	k := fmt.Sprint(in.Op, in.Type, in.From, in.Aux, in.Args)
	if v, ok := bb.seen[k]; ok {
		return v
	}
	result := in.Type
	if in.Op.Info().Result == ir.Fixed(ir.Bool) {
		result = ir.Bool
	}
	in.Dst = bb.t.NewReg(result)
	bb.b.Instrs = append(bb.b.Instrs, in)
	bb.seen[k] = ir.R(in.Dst)
	return ir.R(in.Dst)
}

// keepAllBoundsTests turns dropImplied and mergeNonnegative off, for
// tests that compare the test with and without them.
var keepAllBoundsTests = false

// condition is the conjunction of the tests, true when there are none.
// A long test folds each comparison in where it is made: fifty
// comparisons made first and combined at the end keep fifty predicates
// and their 64-bit operands live at once, which ptxas holds in more
// registers than the loop itself needs (example/stencil's StencilHalo
// took 62 a thread, 28 folded as made; Conv3D 61, 47). A short one is
// combined at the end, where ptxas did as well or better (Blur 32 a
// thread where folding as made took 37, Matmul 32 where 35).
func (bb *boundsBuilder) condition() ir.Arg {
	if !keepAllBoundsTests {
		bb.dropImplied()
		bb.mergeNonnegative()
	}
	if len(bb.conds) == 0 {
		return ir.Imm(ir.Bool, 1)
	}
	if len(bb.conds) <= foldAsMade {
		ok := bb.conds[0]
		for _, c := range bb.conds[1:] {
			ok = bb.emit(ir.Instr{Op: ir.OpAnd, Type: ir.Bool, Args: []ir.Arg{ok, c}})
		}
		return ok
	}
	// Fold each comparison in right after the instruction that makes it,
	// in the block's order; one made elsewhere joins at the end.
	pending := map[ir.Reg]bool{}
	for _, c := range bb.conds {
		pending[c.Reg] = true
	}
	ok := placeholder
	join := func(c ir.Arg) {
		delete(pending, c.Reg)
		if ok == placeholder {
			ok = c
			return
		}
		ok = bb.emit(ir.Instr{Op: ir.OpAnd, Type: ir.Bool, Args: []ir.Arg{ok, c}})
	}
	made := bb.b.Instrs
	bb.b.Instrs = nil
	for _, in := range made {
		bb.b.Instrs = append(bb.b.Instrs, in)
		if in.Dst != ir.NoReg && pending[in.Dst] {
			join(ir.R(in.Dst))
		}
	}
	for _, c := range bb.conds {
		if pending[c.Reg] {
			join(c)
		}
	}
	return ok
}

// foldAsMade is the most comparisons a test combines at its end.
const foldAsMade = 32
