package ir

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestParseBits reads back what FormatBits prints, for random values of
// every type: the bits are the same, NaNs aside, whose payload the printed
// form does not show.
func TestParseBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for typ := Bool; typ <= Ptr; typ++ {
		values := []uint64{0, 1, math.MaxUint64, 1 << 63, 0x80000000, math.Float64bits(math.Inf(-1)), math.Float64bits(math.Copysign(0, -1))}
		for range 2000 {
			values = append(values, r.Uint64()>>r.IntN(64))
		}
		for _, v := range values {
			bits := typ.Normalize(v)
			text := FormatBits(typ, bits)
			got, ok := parseBits(text, typ)
			nan := typ == Float32 && math.IsNaN(float64(math.Float32frombits(uint32(bits)))) ||
				typ == Float64 && math.IsNaN(math.Float64frombits(bits))
			if !ok || got != bits && !nan || nan && FormatBits(typ, got) != "NaN" {
				t.Errorf("%s %#x printed as %s reads back as %#x, %v", typ, bits, text, got, ok)
			}
		}
	}
}
