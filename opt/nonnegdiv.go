package opt

import (
	"math/bits"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// nonNegativeDividends finds the divisions and remainders by a power of
// two whose dividend the analysis bounds to be at least zero, such as
// the thread index of a block-level task split into a 2-D thread loop's
// two indices. Their sign fix-up is dead weight, and without it the
// remainder is a mask whose range [0, c) the analysis sees, so the index
// checks it feeds are proven.
func nonNegativeDividends(t *ir.Task) map[site]bool {
	var an *analysis.Analysis
	found := map[site]bool{}
	for bi, b := range t.Blocks {
		for i, in := range b.Instrs {
			if _, ok := pow2Divisor(in); !ok {
				continue
			}
			if an == nil {
				an = analysis.New(t)
			}
			if an.RangeOf(in.Args[0], analysis.Site{Block: bi, At: i}).Min >= 0 {
				found[site{bi, i}] = true
			}
		}
	}
	return found
}

// pow2Divisor returns log2 of the divisor of in, an integer division or
// remainder of a register by a constant power of two above one.
func pow2Divisor(in ir.Instr) (int, bool) {
	if in.Op != ir.OpDiv && in.Op != ir.OpRem || !in.Type.IsInteger() || in.Args[0].Imm || !in.Args[1].Imm {
		return 0, false
	}
	c := in.Type.Normalize(in.Args[1].Bits)
	if in.Type.IsSigned() && int64(c) <= 1 || c <= 1 || c&(c-1) != 0 {
		return 0, false
	}
	return bits.TrailingZeros64(c), true
}

// nonNegativeDivision is in, a division or remainder by 2^k of a dividend
// at least zero, as a shift or a mask.
func nonNegativeDivision(in ir.Instr) []ir.Instr {
	k, _ := pow2Divisor(in)
	out := in
	if in.Op == ir.OpDiv {
		out.Op, out.From = ir.OpShr, ir.Uint32
		out.Args = []ir.Arg{in.Args[0], ir.Imm(ir.Uint32, uint64(k))}
	} else {
		out.Op = ir.OpAnd
		out.Args = []ir.Arg{in.Args[0], ir.Imm(in.Type, uint64(1)<<k-1)}
	}
	return []ir.Instr{out}
}
