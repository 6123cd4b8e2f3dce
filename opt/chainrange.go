package opt

import (
	"slices"

	"github.com/qdgo/qd/ir"
)

// largestAt returns the largest value an integer operand can hold at a
// site, when it is known not to be negative: from the assignments that
// reach the site along a chain of blocks with one predecessor each, as a
// fully unrolled loop's copies are. A sum of nine bytes, accumulated in
// one register through such a chain, is at most 2295.
func largestAt(t *ir.Task, preds [][]int, a ir.Arg, at site, depth int) (uint64, bool) {
	if a.Imm {
		return a.Bits, int64(a.Bits) >= 0
	}
	if depth > 64 {
		return 0, false
	}
	b, i := at.block, at.at
	for steps := 0; steps < 64; steps++ {
		for i--; i >= 0; i-- {
			x := &t.Blocks[b].Instrs[i]
			if x.Dst == a.Reg {
				return largestOf(t, preds, x, site{b, i}, depth+1)
			}
			if slices.Contains(x.Results, a.Reg) {
				return 0, false
			}
		}
		if len(preds[b]) != 1 {
			return 0, false
		}
		b = preds[b][0]
		i = len(t.Blocks[b].Instrs)
	}
	return 0, false
}

// largestOf is largestAt for the value instruction x computes.
func largestOf(t *ir.Task, preds [][]int, x *ir.Instr, at site, depth int) (uint64, bool) {
	if !x.Type.IsInteger() {
		return 0, false
	}
	arg := func(j int) (uint64, bool) { return largestAt(t, preds, x.Args[j], at, depth) }
	switch x.Op {
	case ir.OpMove:
		return arg(0)
	case ir.OpConvert:
		if !x.From.IsUnsigned() || x.From.Size() >= x.Type.Size() {
			return 0, false
		}
		if m, ok := arg(0); ok {
			return m, true
		}
		return 1<<x.From.Bits() - 1, true
	case ir.OpAdd:
		m0, ok0 := arg(0)
		m1, ok1 := arg(1)
		if ok0 && ok1 && m0 < 1<<62 && m1 < 1<<62 {
			return m0 + m1, true
		}
	case ir.OpAnd:
		m0, ok0 := arg(0)
		m1, ok1 := arg(1)
		switch {
		case ok0 && ok1:
			return min(m0, m1), true
		case ok1 && x.Args[1].Imm:
			return m1, true
		}
	}
	return 0, false
}
