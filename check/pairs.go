package check

import (
	"github.com/qdgo/qd/ir"
)

// This file accepts the accesses of iterations that own their elements in
// pairs, as a bitonic sort's compare-and-swap stage does:
//
//	ixj := i ^ j
//	if ixj > i {
//		a[i], a[ixj] = a[ixj], a[i]
//	}
//
// The partner p(i) = i^j, with j the same in every iteration, is its own
// inverse. An iteration that runs only when p(i) > i touches i and p(i);
// another, i', touches i' and p(i') > i'. They share no element: i = p(i')
// would make i' = p(i) > i and i' < p(i') = i; p(i) = p(i') makes i = i';
// p(i) = i' makes p(i') = i < i', which its own test excludes. The same
// holds with p(i) < i throughout, and for i+c in place of i.

// pairedAccesses returns the accesses of the slice parameters that every
// iteration touches only at b and p(b), for b = a·i+c, under the test
// p(b) > b in every one of them (or p(b) < b in every one).
func (ix *indexer) pairedAccesses(as []access) []*ir.Instr {
	if ix.loop == nil {
		return nil
	}
	byParam := map[int][]*access{}
	for i := range as {
		byParam[as[i].param] = append(byParam[as[i].param], &as[i])
	}
	var owned []*ir.Instr
	for _, accs := range byParam {
		if ix.pairsOwn(accs) {
			for _, a := range accs {
				owned = append(owned, a.in)
			}
		}
	}
	return owned
}

// pairsOwn reports whether accesses of one parameter touch only an
// iteration's pair of elements, under the test that orders the pair.
func (ix *indexer) pairsOwn(accs []*access) bool {
	var partner, base form
	for _, a := range accs {
		if a.index == nil {
			return false
		}
		if p, b, ok := ix.partnerOf(a.index); ok {
			if partner != nil && !partner.equal(p) {
				return false
			}
			partner, base = p, b
		}
	}
	if partner == nil {
		return false
	}
	up, down := true, true
	for _, a := range accs {
		if !a.index.equal(partner) && !a.index.equal(base) {
			return false
		}
		u, d := ix.ordered(a.block, partner, base)
		up, down = up && u, down && d
	}
	return up || down
}

// partnerOf recognizes f as p = b ^ j, with b = a·i+c for a constant a
// other than 0 and j and c the same in every iteration, and returns p's
// form and b's.
func (ix *indexer) partnerOf(f form) (p, b form, ok bool) {
	if len(f) != 1 || f.invariant() {
		return nil, nil, false
	}
	var sym string
	f.symbols(func(s string) bool { sym = s; return false })
	r, isReg := regOf(sym)
	if f[sym] != 1 || !isReg || !isVarying(sym) {
		return nil, nil, false
	}
	in := ix.single(r)
	if in == nil || in.Op != ir.OpXor || !in.Type.IsInteger() {
		return nil, nil, false
	}
	x, y := ix.formOfArg(in.Args[0], in.Type), ix.formOfArg(in.Args[1], in.Type)
	if x.invariant() {
		x, y = y, x
	}
	coeff, rest, split := x.split(indexSymbol)
	a, isConst := coeff.constant()
	if !split || !isConst || a == 0 || !rest.invariant() || !y.invariant() {
		return nil, nil, false
	}
	return f, x, true
}

// ordered reports whether block bi runs only where p > b (up), or only
// where p < b (down); p = b is allowed on either side.
func (ix *indexer) ordered(bi int, p, b form) (up, down bool) {
	for _, g := range ix.guards()[bi] {
		in := ix.single(g.cond)
		if in == nil || !in.Type.IsInteger() || len(in.Args) != 2 {
			continue
		}
		op := in.Op
		if !g.truth {
			op = map[ir.Op]ir.Op{ir.OpLt: ir.OpGe, ir.OpGe: ir.OpLt, ir.OpLe: ir.OpGt, ir.OpGt: ir.OpLe}[op]
		}
		x, y := ix.formOfArg(in.Args[0], in.Type), ix.formOfArg(in.Args[1], in.Type)
		if x.equal(b) && y.equal(p) {
			x, y = y, x
			op = map[ir.Op]ir.Op{ir.OpLt: ir.OpGt, ir.OpGe: ir.OpLe, ir.OpLe: ir.OpGe, ir.OpGt: ir.OpLt}[op]
		}
		if !x.equal(p) || !y.equal(b) {
			continue
		}
		switch op {
		case ir.OpGt, ir.OpGe:
			up = true
		case ir.OpLt, ir.OpLe:
			down = true
		}
	}
	return up, down
}
