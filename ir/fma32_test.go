package ir

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFMA32 compares fma32 with x*y+z computed exactly and rounded once,
// on random operands and on sums that land halfway between float32s,
// where rounding twice would go wrong.
func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	exact := func(x, y, z float32) float32 {
		p := new(big.Float).SetPrec(200).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		s, _ := p.Add(p, big.NewFloat(float64(z))).Float32()
		return s
	}
	for i := range 200000 {
		var x, y, z float32
		switch i % 3 {
		case 0: // anywhere
			x, y, z = math.Float32frombits(r.Uint32()), math.Float32frombits(r.Uint32()), math.Float32frombits(r.Uint32())
		case 1: // products near z, so the sum cancels
			x, y = float32(r.NormFloat64()), float32(r.NormFloat64())
			z = -x*y + float32(r.NormFloat64())*1e-7
		default: // 1 + 2^-24 + tiny: halfway cases
			x, y = 1+float32(r.IntN(1<<10))/(1<<23), float32(1+r.IntN(8))
			z = float32(r.NormFloat64()) * (1 << 24)
		}
		if math.IsNaN(float64(x)) || math.IsNaN(float64(y)) || math.IsNaN(float64(z)) || math.IsInf(float64(x*y), 0) || math.IsInf(float64(z), 0) {
			continue
		}
		want := exact(x, y, z)
		if got := fma32(x, y, z); math.Float32bits(got) != math.Float32bits(want) && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", x, y, z, got, want)
		}
	}
}
