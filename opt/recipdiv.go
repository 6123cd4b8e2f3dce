package opt

import (
	"math"

	"github.com/qdgo/qd/ir"
)

// MultiplyByReciprocals replaces a float division by a constant power of
// two with a multiplication by its reciprocal, where that reciprocal is
// exactly representable: both then round the same exact value, x·2^-k,
// once, so the results are the same bits, subnormal results, infinities,
// NaNs and signed zeros included. A divisor whose reciprocal overflows
// (the smallest subnormals) is left alone, and so is every other constant,
// whose reciprocal is inexact.
func MultiplyByReciprocals(t *ir.Task) {
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			x := &b.Instrs[i]
			if x.Op != ir.OpDiv || !x.Type.IsFloat() || !x.Args[1].Imm || x.Args[0].Imm {
				continue
			}
			if r, ok := exactReciprocal(x.Type, x.Args[1].Bits); ok {
				x.Op = ir.OpMul
				x.Args[1] = ir.Imm(x.Type, r)
			}
		}
	}
}

// exactReciprocal returns the bits of 1/c for a float constant c that is
// a power of two whose reciprocal is finite.
func exactReciprocal(t ir.Type, bits uint64) (uint64, bool) {
	c := math.Float64frombits(bits)
	if t == ir.Float32 {
		c = float64(math.Float32frombits(uint32(bits)))
	}
	frac, _ := math.Frexp(c)
	if c == 0 || math.IsInf(c, 0) || math.IsNaN(c) || math.Abs(frac) != 0.5 {
		return 0, false
	}
	r := 1 / c // exact in float64 for every float32 power of two
	if t == ir.Float32 {
		r32 := float32(r)
		if math.IsInf(float64(r32), 0) || float64(r32) != r {
			return 0, false
		}
		return uint64(math.Float32bits(r32)), true
	}
	if math.IsInf(r, 0) || r*c != 1 {
		return 0, false
	}
	return math.Float64bits(r), true
}
