package opt

import (
	"math"
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// The bounds test of a 2-D or 3-D stencil tests the same few sizes many
// times over: every end of every interval, product and partial sum is
// tested on its own, so that d ≤ 2^31-1, d-2 ≤ 2^31-1, w·h ≤ 2^31-1 and
// a dozen sums of w·h with smaller terms are all there. Conv3D's test
// had a hundred comparisons, all of which a thread held until the last,
// and its registers were the kernel's for its whole run. dropImplied
// keeps only the tests the others do not imply.
//
// Each 64-bit value of the test block is described by an interval and
// two exact forms over its leaves (parameters, lengths, the thread count,
// values computed before the loop, and whatever the block computes that
// is not a sum or a product): a polynomial, and a sum in which each
// product of variables is a term of its own. A form is the value itself,
// not modulo 2^64: an add, subtract or multiply takes its operands' forms
// only where their intervals show the 64-bit result does not wrap, and is
// a leaf of its own otherwise. The leaves' intervals are what the analysis
// knows of them where the values bounded are (so w ≥ 3 where x < w-1
// holds for an x ≥ 1), and every interval narrows by the tests kept,
// which hold whenever the test passes. A test goes when
//
//   - its value's interval satisfies it: d-2 ≤ 2^31-1 where d ≤ 2^31-1
//     is kept, or
//   - another test kept, s·u ≤ d, implies it, r·v ≤ c, because a form of
//     s·u - r·v is at least d - c over the leaves' intervals: a partial
//     sum of nonnegative terms where the whole sum is tested.
//
// Tests go one at a time, each on the strength of those left; so those
// left in the end imply every test dropped wherever it was made for (the
// tests that stand for a dropped one are made for its places too), and
// the test guarantees all it did. A test that max(a, b) ≤ d says a ≤ d
// and b ≤ d too (and min's lower bound likewise), which the start of a
// counter and its last value, tested together that way, use.

// boundTest is a test of the block as r·v ≤ c, r being ±1.
type boundTest struct {
	v     ir.Reg
	neg   bool
	c     int64
	cond  ir.Arg          // its result
	sites []analysis.Site // where what it bounds is
}

// valueFacts is what is known of one value of the block.
type valueFacts struct {
	// poly is the value as a polynomial over the leaves; lin as a sum
	// over leaves and products, each product of variables one term of
	// its own, which keeps the sign of a product that the polynomial
	// spreads over terms of either sign: w·(h-3) is at least 0 with w
	// and h at least 3, w·h - 3·w need not seem so.
	poly, lin analysis.Affine
	lo, hi    int64
}

// dropImplied removes from bb.conds the tests that the others imply,
// and from the block what only they read.
func (bb *boundsBuilder) dropImplied() {
	tests := bb.boundTests()
	if len(tests) < 2 {
		return
	}
	kept := make([]bool, len(tests))
	for i := range kept {
		kept[i] = true
	}
	ranges := map[rangeKey][2]int64{}
	factor := map[ir.Reg]bool{} // the operands of products of variables
	for _, in := range bb.b.Instrs {
		if in.Op == ir.OpMul && !in.Args[0].Imm && !in.Args[1].Imm {
			factor[in.Args[0].Reg], factor[in.Args[1].Reg] = true, true
		}
	}
	// Which tests go first decides which stay. A test whose value's own
	// interval is implied goes first; then sums, last to first, since a
	// later sum holds the earlier ones; the factors of products last,
	// since while they are tested their products are exact and the sums
	// of those products comparable.
	for phase := range 3 {
		for i := len(tests) - 1; i >= 0; i-- {
			if !kept[i] || phase == 1 && factor[tests[i].v] {
				continue
			}
			kept[i] = false
			if !bb.implied(tests, kept, tests[i], bb.leafRanges(tests[i].sites, ranges), phase > 0) {
				kept[i] = true
				continue
			}
			// The tests left now stand for this one wherever it was made for.
			for j := range tests {
				if kept[j] {
					for _, s := range tests[i].sites {
						if !slices.Contains(tests[j].sites, s) {
							tests[j].sites = append(tests[j].sites, s)
						}
					}
				}
			}
		}
	}
	var conds []ir.Arg
	for _, c := range bb.conds {
		i := slices.IndexFunc(tests, func(t boundTest) bool { return t.cond == c })
		if i < 0 || kept[i] {
			conds = append(conds, c)
		}
	}
	bb.conds = conds
	bb.removeUnread()
}

// boundTests lists the tests of bb.conds as boundTests, in order.
func (bb *boundsBuilder) boundTests() []boundTest {
	var out []boundTest
	for _, in := range bb.b.Instrs {
		if (in.Op != ir.OpLe && in.Op != ir.OpGe) || in.Type != ir.Int64 || in.Args[0].Imm || !in.Args[1].Imm {
			continue
		}
		cond := ir.R(in.Dst)
		if !slices.Contains(bb.conds, cond) {
			continue
		}
		c := int64(in.Args[1].Bits)
		t := boundTest{v: in.Args[0].Reg, c: c, cond: cond, sites: slices.Clone(bb.sites[in.Dst])}
		if len(t.sites) == 0 {
			t.sites = []analysis.Site{bb.an.End(bb.entry)}
		}
		if in.Op == ir.OpGe {
			if c == math.MinInt64 {
				continue
			}
			t.neg, t.c = true, -c
		}
		out = append(out, t)
	}
	return out
}

type rangeKey struct {
	r ir.Reg
	s analysis.Site
}

// leafRanges bounds each leaf by what holds of it at any of the sites.
func (bb *boundsBuilder) leafRanges(sites []analysis.Site, cache map[rangeKey][2]int64) map[ir.Reg][2]int64 {
	out := map[ir.Reg][2]int64{}
	for r, x := range bb.leaves {
		for k, s := range sites {
			at, ok := cache[rangeKey{r, s}]
			if !ok {
				f := bb.an.FormRange(analysis.Of(x), s)
				at = [2]int64{f.Min, f.Max}
				cache[rangeKey{r, s}] = at
			}
			if k == 0 {
				out[r] = at
			} else {
				out[r] = [2]int64{min(out[r][0], at[0]), max(out[r][1], at[1])}
			}
		}
	}
	return out
}

// implied reports whether the tests marked kept imply t where its leaves
// lie in the ranges given: by t's value's interval alone, or, with
// others, by another test.
func (bb *boundsBuilder) implied(tests []boundTest, kept []bool, t boundTest, ranges map[ir.Reg][2]int64, others bool) bool {
	var axioms []boundTest
	for i, k := range kept {
		if k {
			axioms = append(axioms, tests[i])
		}
	}
	axioms = bb.splitClamps(axioms)
	facts, prods := bb.valueFacts(axioms, ranges)
	f, ok := facts[t.v]
	if !ok {
		return false
	}
	if !t.neg && f.hi <= t.c || t.neg && f.lo >= -t.c {
		return true
	}
	if !others {
		return false
	}
	leaves := func(x analysis.Atom) (int64, int64) {
		if x.Site.Block == -2 {
			r := prods.ranges[x.Site.At]
			return r[0], r[1]
		}
		g := facts[x.Reg]
		return g.lo, g.hi
	}
	for _, a := range axioms {
		if a.v == t.v && a.neg == t.neg {
			if a.c <= t.c {
				return true
			}
			continue
		}
		u, ok := facts[a.v]
		if !ok || !coeffsBelow(u.poly, 1<<62) || !coeffsBelow(u.lin, 1<<62) || !coeffsBelow(f.poly, 1<<62) || !coeffsBelow(f.lin, 1<<62) {
			continue
		}
		// s·u - r·v ≥ d - c.
		need, ok := analysis.AddInt(a.c, -t.c)
		if !ok || t.c == math.MinInt64 {
			continue
		}
		for _, q := range []analysis.Affine{
			signed(u.lin, a.neg).Sub(signed(f.lin, t.neg)),
			signed(u.poly, a.neg).Sub(signed(f.poly, t.neg)),
		} {
			if lo, ok := polyMin(q, leaves); ok && lo >= need {
				return true
			}
		}
	}
	return false
}

func signed(f analysis.Affine, neg bool) analysis.Affine {
	if neg {
		return f.Scale(-1)
	}
	return f
}

// splitClamps adds to the axioms what a bound of a min or a max says of
// its operands: max(a, b) ≤ d gives a ≤ d and b ≤ d, min(a, b) ≥ d gives
// a ≥ d and b ≥ d.
func (bb *boundsBuilder) splitClamps(axioms []boundTest) []boundTest {
	def := bb.definitions()
	for i := 0; i < len(axioms); i++ {
		a := axioms[i]
		in, ok := def[a.v]
		if !ok || !(in.Op == ir.OpMax && !a.neg || in.Op == ir.OpMin && a.neg) {
			continue
		}
		for _, x := range in.Args {
			if !x.Imm {
				axioms = append(axioms, boundTest{v: x.Reg, neg: a.neg, c: a.c})
			}
		}
	}
	return axioms
}

func (bb *boundsBuilder) definitions() map[ir.Reg]*ir.Instr {
	def := map[ir.Reg]*ir.Instr{}
	for i := range bb.b.Instrs {
		def[bb.b.Instrs[i].Dst] = &bb.b.Instrs[i]
	}
	return def
}

// valueFacts describes every 64-bit integer value the block reads or
// computes, in order, given that the axioms hold.
func (bb *boundsBuilder) valueFacts(axioms []boundTest, ranges map[ir.Reg][2]int64) (map[ir.Reg]valueFacts, *products) {
	facts := map[ir.Reg]valueFacts{}
	prods := &products{index: map[string]int{}}
	narrow := func(r ir.Reg, f valueFacts) valueFacts {
		for _, a := range axioms {
			if a.v != r {
				continue
			}
			if a.neg {
				f.lo = max(f.lo, -a.c)
			} else {
				f.hi = min(f.hi, a.c)
			}
		}
		return f
	}
	leaf := func(r ir.Reg, lo, hi int64) valueFacts {
		atom := analysis.Atom{Kind: analysis.Value, Reg: r, Site: analysis.Site{Block: -1}}
		return narrow(r, valueFacts{poly: analysis.Of(atom), lin: analysis.Of(atom), lo: lo, hi: hi})
	}
	operand := func(a ir.Arg) (valueFacts, bool) {
		if a.Imm {
			c := int64(a.Bits)
			return valueFacts{poly: analysis.Constant(c), lin: analysis.Constant(c), lo: c, hi: c}, true
		}
		if f, ok := facts[a.Reg]; ok {
			return f, true
		}
		if bb.t.Regs[a.Reg] != ir.Int64 {
			return valueFacts{}, false
		}
		// A value computed before the block.
		r, ok := ranges[a.Reg]
		if !ok {
			r = [2]int64{math.MinInt64, math.MaxInt64}
		}
		f := leaf(a.Reg, r[0], r[1])
		facts[a.Reg] = f
		return f, true
	}
	for _, in := range bb.b.Instrs {
		if in.Type != ir.Int64 || in.Op.Info().Result == ir.Fixed(ir.Bool) {
			continue
		}
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch in.Op {
		case ir.OpConvert:
			if r, ok := typeBounds(in.From); ok {
				lo, hi = r[0], r[1]
			}
		case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpMin, ir.OpMax:
			x, okX := operand(in.Args[0])
			y, okY := operand(in.Args[1])
			if !okX || !okY {
				break
			}
			if f, product, ok := combineFacts(in.Op, x, y); ok {
				f = narrow(in.Dst, f)
				if product {
					f.lin = prods.term(f)
				}
				facts[in.Dst] = f
				continue
			}
			if in.Op == ir.OpMin || in.Op == ir.OpMax {
				lo, hi = min(x.lo, y.lo), max(x.hi, y.hi)
				if in.Op == ir.OpMin {
					hi = min(x.hi, y.hi)
				} else {
					lo = max(x.lo, y.lo)
				}
			}
		}
		if r, ok := ranges[in.Dst]; ok {
			lo, hi = max(lo, r[0]), min(hi, r[1])
		}
		facts[in.Dst] = leaf(in.Dst, lo, hi)
	}
	return facts, prods
}

// products are the terms of lin forms that stand for products of
// variables. Products that are multiples of one polynomial, w·h and
// (2·w)·h, are multiples of one term, whose interval is what every such
// product's says of it.
type products struct {
	index  map[string]int
	ranges [][2]int64
}

// term is the lin form of a product whose polynomial and interval f has.
func (p *products) term(f valueFacts) analysis.Affine {
	g := f.poly.Const
	for _, t := range f.poly.Terms {
		g = gcd(g, t.Coeff)
	}
	if g == 0 {
		return analysis.Constant(0)
	}
	if g < 0 {
		g = -g
	}
	if len(f.poly.Terms) > 0 && f.poly.Terms[0].Coeff < 0 {
		g = -g
	}
	prim := analysis.Affine{Const: f.poly.Const / g}
	for _, t := range f.poly.Terms {
		prim.Terms = append(prim.Terms, analysis.Term{Coeff: t.Coeff / g, Factors: t.Factors})
	}
	key := prim.String()
	k, ok := p.index[key]
	if !ok {
		k = len(p.ranges)
		p.index[key] = k
		p.ranges = append(p.ranges, [2]int64{math.MinInt64, math.MaxInt64})
	}
	// f = g·prim: prim lies in [lo/g, hi/g], rounded inwards.
	lo, hi := f.lo, f.hi
	if g < 0 {
		lo, hi = -hi, -lo
		if f.hi == math.MinInt64 || f.lo == math.MinInt64 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
	}
	m := max(g, -g)
	r := &p.ranges[k]
	r[0] = max(r[0], ceilDiv(lo, m))
	r[1] = min(r[1], floorDiv(hi, m))
	return analysis.Of(productAtom(k)).Scale(g)
}

func productAtom(k int) analysis.Atom {
	return analysis.Atom{Kind: analysis.Value, Site: analysis.Site{Block: -2, At: k}}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func floorDiv(a, m int64) int64 {
	q := a / m
	if a%m != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, m int64) int64 {
	q := a / m
	if a%m != 0 && a > 0 {
		q++
	}
	return q
}

// combineFacts is x op y as a polynomial, where the 64-bit operation is
// exact; product reports a product of variables, whose lin form is left
// to the caller.
func combineFacts(op ir.Op, x, y valueFacts) (f valueFacts, product, ok bool) {
	const small = 1 << 26 // coefficients whose products and sums cannot wrap
	switch op {
	case ir.OpAdd, ir.OpSub:
		if op == ir.OpSub {
			if y.lo == math.MinInt64 {
				return valueFacts{}, false, false
			}
			y = valueFacts{poly: y.poly.Scale(-1), lin: y.lin.Scale(-1), lo: -y.hi, hi: -y.lo}
		}
		lo, okLo := analysis.AddInt(x.lo, y.lo)
		hi, okHi := analysis.AddInt(x.hi, y.hi)
		if !okLo || !okHi {
			return valueFacts{}, false, false
		}
		for _, g := range []analysis.Affine{x.poly, y.poly, x.lin, y.lin} {
			if !coeffsBelow(g, 1<<61) {
				return valueFacts{}, false, false
			}
		}
		return valueFacts{poly: x.poly.Add(y.poly), lin: x.lin.Add(y.lin), lo: lo, hi: hi}, false, true
	case ir.OpMul:
		lo, hi, ok := mulRange(x.lo, x.hi, y.lo, y.hi)
		if !ok || !coeffsBelow(x.poly, small) || !coeffsBelow(y.poly, small) {
			return valueFacts{}, false, false
		}
		poly, ok := x.poly.Mul(y.poly)
		if !ok {
			return valueFacts{}, false, false
		}
		f := valueFacts{poly: poly, lo: lo, hi: hi}
		if c, ok := x.lin.IsConst(); ok && coeffsBelow(y.lin, small) {
			f.lin = y.lin.Scale(c)
		} else if c, ok := y.lin.IsConst(); ok && coeffsBelow(x.lin, small) {
			f.lin = x.lin.Scale(c)
		} else {
			product = true
		}
		return f, product, true
	}
	return valueFacts{}, false, false
}

func coeffsBelow(f analysis.Affine, limit int64) bool {
	if f.Const <= -limit || f.Const >= limit {
		return false
	}
	for _, t := range f.Terms {
		if t.Coeff <= -limit || t.Coeff >= limit {
			return false
		}
	}
	return true
}

// mulRange is the interval of the products of [xlo, xhi] and [ylo, yhi].
func mulRange(xlo, xhi, ylo, yhi int64) (lo, hi int64, ok bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, a := range []int64{xlo, xhi} {
		for _, b := range []int64{ylo, yhi} {
			p, ok := analysis.MulInt(a, b)
			if !ok {
				return 0, 0, false
			}
			lo, hi = min(lo, p), max(hi, p)
		}
	}
	return lo, hi, true
}

// polyMin is a lower bound of f over the leaves' intervals. A leaf
// squared (or to any even power) is nonnegative whatever its sign.
func polyMin(f analysis.Affine, leaf func(analysis.Atom) (int64, int64)) (int64, bool) {
	sum := f.Const
	for _, t := range f.Terms {
		lo, hi := t.Coeff, t.Coeff
		for i := 0; i < len(t.Factors); {
			j := i
			for j < len(t.Factors) && t.Factors[j] == t.Factors[i] {
				j++
			}
			alo, ahi := leaf(t.Factors[i])
			plo, phi, ok := powRange(alo, ahi, j-i)
			if !ok {
				return 0, false
			}
			if lo, hi, ok = mulRange(lo, hi, plo, phi); !ok {
				return 0, false
			}
			i = j
		}
		var ok bool
		if sum, ok = analysis.AddInt(sum, lo); !ok {
			return 0, false
		}
	}
	return sum, true
}

// powRange is the interval of x^k for x in [lo, hi], k ≥ 1.
func powRange(lo, hi int64, k int) (int64, int64, bool) {
	plo, phi := lo, hi
	for range k - 1 {
		var ok bool
		if plo, phi, ok = mulRange(plo, phi, lo, hi); !ok {
			return 0, 0, false
		}
	}
	if k%2 == 0 && lo < 0 && hi > 0 {
		plo = 0
	}
	if k%2 == 0 && lo >= 0 || k%2 == 0 && hi <= 0 {
		a, b := lo, hi
		if hi <= 0 {
			a, b = -hi, -lo
		}
		var ok bool
		if plo, ok = powExact(a, k); !ok {
			return 0, 0, false
		}
		if phi, ok = powExact(b, k); !ok {
			return 0, 0, false
		}
	}
	return plo, phi, true
}

func powExact(x int64, k int) (int64, bool) {
	p := int64(1)
	for range k {
		var ok bool
		if p, ok = analysis.MulInt(p, x); !ok {
			return 0, false
		}
	}
	return p, true
}

// typeBounds is the range of an integer type's values read as int64.
func typeBounds(t ir.Type) ([2]int64, bool) {
	switch t {
	case ir.Int8:
		return [2]int64{math.MinInt8, math.MaxInt8}, true
	case ir.Int16:
		return [2]int64{math.MinInt16, math.MaxInt16}, true
	case ir.Int32:
		return [2]int64{math.MinInt32, math.MaxInt32}, true
	case ir.Uint8:
		return [2]int64{0, math.MaxUint8}, true
	case ir.Uint16:
		return [2]int64{0, math.MaxUint16}, true
	case ir.Uint32:
		return [2]int64{0, math.MaxUint32}, true
	}
	return [2]int64{}, false
}

// removeUnread removes the block's computations that no test left reads.
func (bb *boundsBuilder) removeUnread() {
	live := map[ir.Reg]bool{}
	for _, c := range bb.conds {
		if !c.Imm {
			live[c.Reg] = true
		}
	}
	instrs := bb.b.Instrs
	keep := make([]bool, len(instrs))
	for i := len(instrs) - 1; i >= 0; i-- {
		if !live[instrs[i].Dst] {
			continue
		}
		keep[i] = true
		for _, a := range instrs[i].Args {
			if !a.Imm {
				live[a.Reg] = true
			}
		}
	}
	out := instrs[:0]
	for i, in := range instrs {
		if keep[i] {
			out = append(out, in)
		}
	}
	bb.b.Instrs = out
	for k, v := range bb.seen {
		if !v.Imm && !live[v.Reg] {
			delete(bb.seen, k)
		}
	}
}

// mergeNonnegative replaces the tests v ≤ MaxInt32 of values v that the
// other tests and the leaves' bounds keep nonnegative by one: the
// bitwise or of the values, read as unsigned, is at most MaxInt32 when
// and only when none has a bit above bit 30 set. A value that passes is
// in [0, MaxInt32], so the test implies what the tests it replaces did,
// and passes whenever they do where any narrowed value is (the leaves are
// bounded by what holds at the places the tests were made for). It costs
// an or a value instead of a comparison, and keeps one 64-bit value live
// instead of a predicate a test, of which a thread has 7.
func (bb *boundsBuilder) mergeNonnegative() {
	tests := bb.boundTests()
	var sites []analysis.Site
	for _, ss := range bb.sites {
		for _, s := range ss {
			if !slices.Contains(sites, s) {
				sites = append(sites, s)
			}
		}
	}
	facts, _ := bb.valueFacts(bb.splitClamps(tests), bb.leafRanges(sites, map[rangeKey][2]int64{}))
	merged := map[ir.Reg]ir.Reg{} // test result → value
	for _, t := range tests {
		if f, ok := facts[t.v]; ok && !t.neg && t.c == maxInt32 && f.lo >= 0 {
			merged[t.cond.Reg] = t.v
		}
	}
	if len(merged) < 2 {
		return
	}
	instrs := bb.b.Instrs
	bb.b.Instrs = nil
	acc := ir.Arg{}
	for _, in := range instrs {
		v, ok := merged[in.Dst]
		if !ok {
			bb.b.Instrs = append(bb.b.Instrs, in)
			continue
		}
		if acc == (ir.Arg{}) {
			acc = ir.R(v)
			continue
		}
		acc = bb.emit(ir.Instr{Op: ir.OpOr, Type: ir.Int64, Args: []ir.Arg{acc, ir.R(v)}})
	}
	u := bb.emit(ir.Instr{Op: ir.OpConvert, Type: ir.Uint64, From: ir.Int64, Args: []ir.Arg{acc}})
	test := bb.emit(ir.Instr{Op: ir.OpLe, Type: ir.Uint64, Args: []ir.Arg{u, ir.Imm(ir.Uint64, maxInt32)}})
	conds := []ir.Arg{test}
	for _, c := range bb.conds {
		if _, ok := merged[c.Reg]; !ok {
			conds = append(conds, c)
		}
	}
	bb.conds = conds
}
