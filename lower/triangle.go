package lower

import (
	"go/token"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lets a level of a loop nest (nest.go) have bounds that follow
// the index of a level outside it, as the triangular nests of linear
// algebra do:
//
//	for i := range n {
//		for j := 0; j <= i; j++ {      // or j < i, or j := i + 1; j < n
//			c[i*n+j] = ...
//		}
//	}
//
// The nest runs over the rectangle that holds every row of the triangle,
// here j in [0, n), and each iteration first tests its own bounds, j <= i,
// doing nothing where they fail: what a CUDA programmer writes as
// "if (j > i) return" in a 2-D grid. A bound may be the index of a level
// outside, plus or minus a constant (coefficient 1, so that at most about
// half of the rectangle is wasted); the rectangle takes the lower bound at
// that index's smallest value and the upper bound at its largest, which
// is right only if the bound does not wrap around its type for any index
// Go runs. Every index of a level is below that level's bound, so index+1
// never wraps (index+2 where the level tests index+1, as go/ssa's range
// over a slice does); a negative constant needs the level's smallest
// index, known when its start is a constant. A test j <= bound is
// j < bound+1 only if bound is not the largest value of its type (else
// Go's loop never ends): the index of a level outside, which is below
// its own bound, is not.

// affineBound is a bound of an inner level of a nest: the index of the
// level outer (0 is the top-level loop) plus off, or, with outer < 0, a
// value the nest does not change.
type affineBound struct {
	outer int
	off   int64
}

// shape describes the bounds of inner, the level inside the nest's levels
// so far, and says why it cannot join them if it cannot.
func (l *lowerer) shape(levels []*parLoop, inner *parLoop) string {
	lower, okLower := l.affineBoundOf(levels, inner.init)
	upper, okUpper := l.affineBoundOf(levels, inner.bound)
	if !okLower || !okUpper {
		return "its bounds change with the index of the loop around it"
	}
	inner.lower, inner.upper = lower, upper
	inner.shaped = lower.outer >= 0 || upper.outer >= 0 || inner.inclusive
	if !inner.shaped {
		return ""
	}
	unbounded := "its bounds follow the index of a loop around it in a way qd cannot run over a rectangle of iterations (only an index plus or minus a constant that provably does not overflow)"
	if inner.delta != 0 {
		return unbounded
	}
	typ, _ := basicType(inner.phi.Type())
	for _, b := range []affineBound{lower, upper} {
		if b.outer < 0 {
			continue
		}
		if t, _ := basicType(levels[b.outer].phi.Type()); t != typ {
			return unbounded
		}
		// The index is below the level's bound, or its bound-1 where the
		// level tests index+1 (delta): index+off cannot wrap upwards
		// while off <= 1+delta.
		if b.off > 1+levels[b.outer].delta || b.off < 0 && !l.noWrapBelow(levels[b.outer], b.off, typ) {
			return unbounded
		}
	}
	if inner.inclusive {
		// bound+1 must not wrap: an index plus at most delta, or a
		// constant below the type's largest value.
		if upper.outer >= 0 && upper.off > levels[upper.outer].delta {
			return unbounded
		}
		if c, ok := constInt(inner.bound); upper.outer < 0 && (!ok || !belowMax(c, typ)) {
			return "its test is j <= bound where bound may be the largest value of its type, and then the loop would never end: write j < bound+1 or j < n"
		}
	}
	return ""
}

// affineBoundOf matches v, the start or bound of a level inside levels,
// as a value the nest does not change or the index of one of them plus a
// constant.
func (l *lowerer) affineBoundOf(levels []*parLoop, v ssa.Value) (affineBound, bool) {
	if l.invariant(v, levels[0].lp) {
		return affineBound{outer: -1}, true
	}
	x, off := v, int64(0)
	if bin, ok := v.(*ssa.BinOp); ok && (bin.Op == token.ADD || bin.Op == token.SUB) {
		if c, ok := constInt(bin.Y); ok && c > -1<<32 && c < 1<<32 {
			x, off = bin.X, c
			if bin.Op == token.SUB {
				off = -c
			}
		} else if c, ok := constInt(bin.X); ok && bin.Op == token.ADD && c > -1<<32 && c < 1<<32 {
			x, off = bin.Y, c
		}
	}
	for k, lv := range levels {
		if x == ssa.Value(lv.phi) {
			return affineBound{outer: k, off: off}, true
		}
	}
	return affineBound{}, false
}

// noWrapBelow reports whether the index of level lv plus off, which is
// negative, stays at or above the smallest value of typ: the level starts
// at a constant far enough above it.
func (l *lowerer) noWrapBelow(lv *parLoop, off int64, typ ir.Type) bool {
	if lv.shaped && lv.lower.outer >= 0 {
		return false
	}
	start, ok := constInt(lv.init)
	if !ok || start < -1<<62 {
		return false
	}
	lowest := int64(0)
	if typ.IsSigned() {
		lowest = -1 << (8*typ.Size() - 1)
	}
	return start+off >= lowest
}

// belowMax reports whether the constant c is below the largest value of
// the integer type typ.
func belowMax(c int64, typ ir.Type) bool {
	bits := 8 * typ.Size()
	if typ.IsSigned() {
		return bits == 64 && c < 1<<63-1 || bits < 64 && c < 1<<(bits-1)-1
	}
	return c >= 0 && (bits == 64 || c < 1<<bits-1)
}

// rectangle computes, in the setup block, the smallest start and the
// largest bound (of type wide) of the shaped level lv over the iterations
// of the levels outside it, whose ranges are done: the rectangle of its
// iterations.
func (f *frame) rectangle(lv *parLoop, ranges []levelRange, phiType, wide ir.Type) (init, bound ir.Arg) {
	tb := f.tb
	edge := func(b affineBound, v ssa.Value, upper bool) ir.Arg {
		if b.outer < 0 {
			return tb.convert(f.pureArg(v), phiType, wide)
		}
		m := ranges[b.outer]
		// The level's indexes run from init to bound-delta-1; the sum
		// wraps in wide as Go's does in the type, and no bound does.
		x, off := m.init, b.off
		if upper {
			x, off = m.bound, off-m.delta-1
		}
		if off == 0 {
			return x
		}
		return ir.R(tb.op(ir.OpAdd, wide, x, ir.Imm(wide, uint64(off))))
	}
	init = edge(lv.lower, lv.init, false)
	bound = edge(lv.upper, lv.bound, true)
	if lv.inclusive {
		bound = ir.R(tb.op(ir.OpAdd, wide, bound, ir.Imm(wide, 1)))
	}
	return init, bound
}

// guardLevels tests, in the index block of a nest, the bounds of each
// shaped level that follow the index of a level outside it, as Go's loops
// would, going to latch where one fails: an iteration of the rectangle
// outside the triangle does nothing. Every level's index is set.
func (f *frame) guardLevels(levels []*parLoop, latch *ir.Block) {
	tb := f.tb
	test := func(op ir.Op, lv *parLoop, b affineBound) {
		typ, _ := basicType(lv.phi.Type())
		x := ir.R(f.regsFor(levels[b.outer].phi)[0])
		switch {
		case b.off > 0:
			x = ir.R(tb.op(ir.OpAdd, typ, x, ir.Imm(typ, uint64(b.off))))
		case b.off < 0:
			x = ir.R(tb.op(ir.OpSub, typ, x, ir.Imm(typ, uint64(-b.off))))
		}
		ok := tb.op(op, typ, ir.R(f.regsFor(lv.phi)[0]), x)
		next := tb.t.NewBlock("guarded")
		tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(ok), Succs: [2]int{next.Index, latch.Index}}
		tb.cur = next
	}
	for _, lv := range levels[1:] {
		if !lv.shaped {
			continue
		}
		if lv.lower.outer >= 0 {
			test(ir.OpGe, lv, lv.lower)
		}
		if lv.upper.outer >= 0 {
			op := ir.OpLt
			if lv.inclusive {
				op = ir.OpLe
			}
			test(op, lv, lv.upper)
		}
	}
}

// guardedPretests returns the assumption that the entry test of each
// rotated shaped level of a nest, start < bound, passes: the index of an
// iteration that gets past the guards lies between them. Nil if there is
// no such level. A level whose exit merges values (a reduction's) keeps
// its test, whose edge to the exit is then the only one that sets them.
func guardedPretests(levels []*parLoop) func(*ssa.If) (int, bool) {
	pretests := map[*ssa.If]bool{}
	for _, lv := range levels[1:] {
		if _, merges := lv.exit.Instrs[0].(*ssa.Phi); lv.shaped && lv.pretest && !merges {
			pretests[lv.pre.Instrs[len(lv.pre.Instrs)-1].(*ssa.If)] = true
		}
	}
	if len(pretests) == 0 {
		return nil
	}
	return func(iff *ssa.If) (int, bool) { return 0, pretests[iff] }
}

// hostSpan is the host expressions of the first index of level k of a
// nest and of the end of its indexes (the last plus 1), those of its
// rectangle if it is shaped, or nil.
func (l *lowerer) hostSpan(levels []*parLoop, k int) (first, end *ir.Expr) {
	lv := levels[k]
	plus := func(e *ir.Expr, c int64) *ir.Expr {
		if e == nil || c == 0 {
			return e
		}
		return &ir.Expr{Op: ir.OpAdd, Type: ir.Int64, Args: []*ir.Expr{e, {Op: ir.OpConst, Type: ir.Int64, Bits: uint64(c)}}}
	}
	if k == 0 || !lv.shaped {
		first = hostConvert(l.hostExpr(lv.init), ir.Int64)
		return first, plus(hostConvert(l.hostExpr(lv.bound), ir.Int64), -lv.delta)
	}
	if lv.lower.outer < 0 {
		first = hostConvert(l.hostExpr(lv.init), ir.Int64)
	} else {
		outerFirst, _ := l.hostSpan(levels, lv.lower.outer)
		first = plus(outerFirst, lv.lower.off)
	}
	inclusive := int64(0)
	if lv.inclusive {
		inclusive = 1
	}
	if lv.upper.outer < 0 {
		return first, plus(hostConvert(l.hostExpr(lv.bound), ir.Int64), inclusive)
	}
	_, outerEnd := l.hostSpan(levels, lv.upper.outer)
	return first, plus(outerEnd, lv.upper.off-1+inclusive)
}
