package check

import (
	"math"
	"sort"
	"strings"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// This file bounds values over all the iterations of the parallel loop,
// by forms that are the same in every iteration, and writes such forms as
// expressions the kernel computes at launch.

// bound returns a form the same in every iteration that is at most
// (lower) or at least (!lower) f in every iteration, or nil when f is not
// a sum of constant multiples of values the check can bound.
func (ix *indexer) bound(f form, lower bool, depth int) form {
	if f.invariant() {
		return f
	}
	if depth > 4 {
		return nil
	}
	var syms []string
	f.symbols(func(s string) bool {
		if isIteration(s) {
			syms = append(syms, s)
		}
		return true
	})
	sort.Strings(syms)
	out, rest := form{}, f
	for i, s := range syms {
		if i > 0 && syms[i-1] == s {
			continue
		}
		coeff, r, ok := rest.split(s)
		c, isConst := coeff.constant()
		if !ok || !isConst {
			return nil
		}
		v := ix.symbolBound(s, lower == (c > 0), depth)
		if v == nil {
			return nil
		}
		out, rest = out.add(v.scale(c)), r
	}
	if !rest.invariant() {
		return nil
	}
	return out.add(rest)
}

// symbolBound bounds one value that changes with the iteration.
func (ix *indexer) symbolBound(s string, lower bool, depth int) form {
	switch {
	case isIndex(s):
		if ix.loop == nil {
			return nil
		}
		lo, hi := ix.valueRange(s, everything)
		if lower {
			return lo
		}
		return hi
	case isCounter(s):
		if lower {
			return form{}
		}
		if r, ok := ix.ranges[s]; ok {
			// Below bound - init.
			hi, lo := ix.bound(r.bound, false, depth+1), ix.bound(r.init, true, depth+1)
			if hi == nil || lo == nil {
				return nil
			}
			return hi.sub(lo).sub(constForm(1))
		}
		if w := ix.widths[s]; w != nil && w.invariant() {
			return w.sub(constForm(1))
		}
		return nil
	}
	// Any other value: the bounds the loop analysis finds for it where
	// it is computed (max(j1+1, 0) is at least 0 and at least j1+1).
	r, ok := regOf(s)
	site, found := ix.siteOf(r)
	if !ok || !found {
		return nil
	}
	rng := ix.an.RangeOf(ir.R(r), site)
	candidates, extreme := rng.Upper, rng.Max
	if lower {
		candidates, extreme = rng.Lower, rng.Min
	}
	var best form
	if extreme != math.MinInt64 && extreme != math.MaxInt64 {
		best = constForm(extreme)
	}
	for _, c := range candidates {
		f := ix.fromAffine(c)
		if f == nil || f.has(func(x string) bool { return x == s }) {
			continue
		}
		b := ix.bound(f, lower, depth+1)
		if b == nil {
			continue
		}
		d, isConst := b.sub(best).constant()
		if best == nil || isConst && (d > 0) == lower {
			best = b
		}
	}
	return best
}

// siteOf returns the site just after the one definition of register r.
func (ix *indexer) siteOf(r ir.Reg) (analysis.Site, bool) {
	in := ix.single(r)
	if in == nil || len(ix.defs[r]) != 1 {
		return analysis.Site{}, false
	}
	b := ix.t.Blocks[ix.defs[r][0].block]
	for i := range b.Instrs {
		if &b.Instrs[i] == in {
			return analysis.Site{Block: b.Index, At: i + 1}, true
		}
	}
	return analysis.Site{}, false
}

// fromAffine writes a form of the loop analysis as the check's form, or
// returns nil when an atom has none: the parallel loop's counter is the
// loop index, other values are the forms of their registers.
func (ix *indexer) fromAffine(f analysis.Affine) form {
	out := constForm(f.Const)
	for _, t := range f.Terms {
		term := constForm(t.Coeff)
		for _, x := range t.Factors {
			var g form
			switch x.Kind {
			case analysis.Param:
				g = symbolForm(ix.k.Params[x.Index].Name)
			case analysis.Len:
				g = symbolForm("len(" + ix.k.Params[x.Index].Name + ")")
			case analysis.Counter, analysis.Value:
				if ix.loop != nil {
					if in := ix.single(ix.loop.Index); in != nil && in.Op == ir.OpMove && !in.Args[0].Imm && in.Args[0].Reg == x.Reg {
						g = symbolForm(indexSymbol)
						break
					}
				}
				if ix.single(x.Reg) != nil || x.Kind == analysis.Counter {
					g = ix.formOf(x.Reg)
				}
			}
			if g == nil {
				return nil
			}
			if term = term.mul(g); term == nil {
				return nil
			}
		}
		out = out.add(term)
	}
	return out
}

// launchKnown reports whether the kernel can compute f at launch: its
// symbols are integer parameters and lengths of slices.
func (ix *indexer) launchKnown(f form) bool {
	if !f.invariant() {
		return false
	}
	return !f.has(func(s string) bool { return ix.launchValue(s) == nil })
}

// launchValue is the expression of a symbol the kernel knows at launch,
// as an i64, or nil.
func (ix *indexer) launchValue(s string) *ir.Expr {
	if name, ok := strings.CutPrefix(s, "len("); ok {
		for i, p := range ix.k.Params {
			if p.Slice && p.Name+")" == name {
				return &ir.Expr{Op: ir.OpParamLen, Type: ir.Int64, Aux: int64(i)}
			}
		}
		return nil
	}
	for i, p := range ix.k.Params {
		if p.Slice || p.Name != s || !p.Type.IsInteger() || p.Type == ir.Uint64 {
			continue
		}
		e := &ir.Expr{Op: ir.OpParam, Type: p.Type, Aux: int64(i)}
		if p.Type != ir.Int64 {
			e = &ir.Expr{Op: ir.OpConvert, Type: ir.Int64, From: p.Type, Args: []*ir.Expr{e}}
		}
		return e
	}
	return nil
}

// expr writes a form the kernel knows at launch (launchKnown) as an i64
// expression.
func (ix *indexer) expr(f form) *ir.Expr {
	monomials := make([]string, 0, len(f))
	for m := range f {
		monomials = append(monomials, m)
	}
	sort.Strings(monomials)
	constant := func(c int64) *ir.Expr { return &ir.Expr{Op: ir.OpConst, Type: ir.Int64, Bits: uint64(c)} }
	binary := func(op ir.Op, a, b *ir.Expr) *ir.Expr {
		return &ir.Expr{Op: op, Type: ir.Int64, Args: []*ir.Expr{a, b}}
	}
	var sum *ir.Expr
	for _, m := range monomials {
		var e *ir.Expr
		if m != "" {
			for _, s := range strings.Split(m, sep) {
				if v := ix.launchValue(s); e == nil {
					e = v
				} else {
					e = binary(ir.OpMul, e, v)
				}
			}
		}
		switch c := f[m]; {
		case e == nil:
			e = constant(c)
		case c != 1:
			e = binary(ir.OpMul, constant(c), e)
		}
		if sum == nil {
			sum = e
		} else {
			sum = binary(ir.OpAdd, sum, e)
		}
	}
	if sum == nil {
		return constant(0)
	}
	return sum
}

// launchTest writes a condition as a bool expression.
func (ix *indexer) launchTest(c condition) *ir.Expr {
	op := ir.OpGt
	if c.nonzero {
		op = ir.OpNe
	}
	zero := &ir.Expr{Op: ir.OpConst, Type: ir.Int64}
	return &ir.Expr{Op: op, Type: ir.Int64, Args: []*ir.Expr{ix.expr(c.f), zero}}
}
