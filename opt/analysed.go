package opt

import (
	"fmt"
	"math"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// analysed bounds a value the loop computes by what ir/analysis proves
// where it is assigned: the comparisons that dominate it bound it by
// expressions of parameters and lengths, which the loop does not change.
// The indices of a collapsed loop nest are bounded so, by the tests of
// each level's offset against its count (lower/nest.go): y in [1, h-2]
// for a level for y := 1; y < h-1; y++, whatever iterations the thread
// runs.
func (lv *loopValues) analysed(v *expr) span {
	if v.origin == nil || v.typ != ir.Int64 && !v.unknown {
		return span{}
	}
	in := lv.instr(*v.origin)
	if in.Dst == ir.NoReg || lv.t.Regs[in.Dst] != ir.Int64 {
		return span{}
	}
	facts := lv.analysis()
	at := analysis.Site{Block: v.origin.block, At: v.origin.at + 1}
	if lv.holdsAtCheck(*v.origin) {
		// y < h in if y < h && x < w { s[y*w+x] } bounds y at the check,
		// not where y is computed.
		at = analysis.Site{Block: lv.checkAt.block, At: lv.checkAt.at}
	}
	r := facts.RangeOf(ir.R(in.Dst), at)
	// A numeric bound serves where it can pass the test before the loop,
	// which wants every bound of an index at least 0 and below 2^63.
	lo := lv.firstBound(r.Lower, r.Min, r.Min >= 0)
	hi := lv.firstBound(r.Upper, r.Max, r.Max >= 0 && r.Max < math.MaxInt64)
	if lo == nil || hi == nil {
		return span{}
	}
	return span{lo, hi}
}

// firstBound is the first of the symbolic bounds that can be computed
// before the loop, or else the numeric one if it serves.
func (lv *loopValues) firstBound(bounds []analysis.Affine, numeric int64, serves bool) *expr {
	for _, f := range bounds {
		if e := lv.formExpr(f); e != nil {
			return e
		}
	}
	if !serves {
		return nil
	}
	return lv.constantOf(ir.Int64, uint64(numeric))
}

// formExpr is the expression of an affine form of 64-bit parameters,
// lengths and values set once before the loop, computed with the IR's
// wrapping arithmetic as the form is; nil for a form of anything else.
func (lv *loopValues) formExpr(f analysis.Affine) *expr {
	var sum *expr
	for _, term := range f.Terms {
		var product *expr
		for _, x := range term.Factors {
			var atom *expr
			switch {
			case x.Kind == analysis.Param && lv.paramType(x.Index) == ir.Int64:
				atom = lv.node(ir.OpParam, ir.Int64, ir.Invalid, int64(x.Index))
			case x.Kind == analysis.Len:
				atom = lv.node(ir.OpParamLen, ir.Int64, ir.Invalid, int64(x.Index))
			case x.Kind == analysis.Value && lv.setBefore(x):
				atom = &expr{leaf: ir.R(x.Reg), key: fmt.Sprintf("r%d", x.Reg)}
			default:
				return nil
			}
			product = lv.combine(ir.OpMul, product, atom)
		}
		if term.Coeff != 1 {
			product = lv.combine(ir.OpMul, product, lv.constantOf(ir.Int64, uint64(term.Coeff)))
		}
		sum = lv.combine(ir.OpAdd, sum, product)
	}
	if sum == nil || f.Const != 0 {
		sum = lv.combine(ir.OpAdd, sum, lv.constantOf(ir.Int64, uint64(f.Const)))
	}
	return sum
}

// combine is x op y, or y where x is nil.
func (lv *loopValues) combine(op ir.Op, x, y *expr) *expr {
	if x == nil {
		return y
	}
	return lv.node(op, ir.Int64, ir.Invalid, 0, x, y)
}

// setBefore reports whether the value x is what its register holds
// wherever the loop runs: a 64-bit signed register that one instruction
// assigns, once in the task, outside the loop and before it. The counts
// of a collapsed nest's levels are such values, as m/128 is for the
// blocks of qd.Blocks(m / 128): the level's index is below the count,
// which only the division's register names.
func (lv *loopValues) setBefore(x analysis.Atom) bool {
	if lv.t.Regs[x.Reg] != ir.Int64 || len(lv.defs[x.Reg]) > 0 || len(lv.facts.Defs(x.Reg)) != 1 {
		return false
	}
	return !lv.lp.Has(x.Site.Block) && lv.dom[lv.lp.Header].Has(x.Site.Block)
}

// paramType is the type the task reads scalar parameter i as.
func (lv *loopValues) paramType(i int) ir.Type {
	for _, b := range lv.t.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpParam && int(in.Aux) == i {
				return in.Type
			}
		}
	}
	return ir.Invalid
}

// holdsAtCheck reports whether the register that the instruction at d
// assigns still holds, at the check spanOf bounds, the value that the
// check's index was computed from: d is its only assignment in the loop
// (an expression's origin), d dominates the check, and both are in the
// same innermost loop, so that no iteration of a loop around d alone
// assigns it again between the index's computation and the check.
func (lv *loopValues) holdsAtCheck(d site) bool {
	p := lv.checkAt
	if p == nil || !dominates(lv.dom, d, *p) {
		return false
	}
	return lv.facts.LoopOf(d.block) == lv.facts.LoopOf(p.block)
}
