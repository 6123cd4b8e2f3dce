package check

import (
	"sort"
	"strings"

	"github.com/qdgo/qd/ir"
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
	r, ok := regOf(s)
	in := ix.single(r)
	if !ok || in == nil || in.Op != ir.OpMin && in.Op != ir.OpMax || !in.Type.IsInteger() {
		return nil
	}
	// A bound of either operand bounds max from below and min from above;
	// the other side needs both operands', when they compare.
	a := ix.bound(ix.formOfArg(in.Args[0], in.Type), lower, depth+1)
	b := ix.bound(ix.formOfArg(in.Args[1], in.Type), lower, depth+1)
	if (in.Op == ir.OpMax) == lower {
		switch {
		case a == nil:
			return b
		case b == nil:
			return a
		}
		if d, ok := a.sub(b).constant(); ok && (d < 0) == lower {
			return b
		}
		return a
	}
	if a == nil || b == nil {
		return nil
	}
	d, ok := a.sub(b).constant()
	switch {
	case !ok:
		return nil
	case (d < 0) == lower:
		return a
	}
	return b
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
