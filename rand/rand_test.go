package rand

import (
	"math"
	"testing"
)

// TestPhilox4x32KnownAnswers checks the block function against the known
// answers of Random123 (kat_vectors, "philox4x32 10"): counter, key, result.
func TestPhilox4x32KnownAnswers(t *testing.T) {
	for _, c := range [][10]uint32{
		{0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
		{^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
		{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
	} {
		r0, r1, r2, r3 := Philox4x32(c[0], c[1], c[2], c[3], c[4], c[5])
		if got := [4]uint32{r0, r1, r2, r3}; got != [4]uint32(c[6:]) {
			t.Errorf("Philox4x32(%x) = %x, want %x", c[:6], got, c[6:])
		}
	}
}

// TestWords checks how the numbers are taken from the block.
func TestWords(t *testing.T) {
	seed, counter := uint64(0x299f31d0a4093822), uint64(0x85a308d3243f6a88)
	r0, r1, r2, r3 := Block(seed, counter)
	if w0, w1, w2, w3 := Philox4x32(0x243f6a88, 0x85a308d3, 0, 0, 0xa4093822, 0x299f31d0); [4]uint32{r0, r1, r2, r3} != [4]uint32{w0, w1, w2, w3} {
		t.Errorf("Block does not encrypt the counter under the seed")
	}
	if Uint32(seed, counter) != r0 || Uint64(seed, counter) != uint64(r1)<<32|uint64(r0) {
		t.Error("Uint32 or Uint64 do not take the first words")
	}
	if f := Float64(seed, counter); f != float64(uint64(r1)<<21|uint64(r0)>>11)*0x1p-53 {
		t.Errorf("Float64 = %v", f)
	}
}

// TestDistributions checks the ranges, means and variances of the
// distributions over a million counters.
func TestDistributions(t *testing.T) {
	const n = 1 << 20
	var sum64, sum32, sumNorm, sumSquares float64
	for i := range uint64(n) {
		f := Float64(42, i)
		g := Float32(42, i)
		z := NormFloat64(42, i)
		if f < 0 || f >= 1 || g < 0 || g >= 1 || math.IsNaN(z) || math.Abs(z) > 9 {
			t.Fatalf("counter %d: Float64 %v, Float32 %v, NormFloat64 %v", i, f, g, z)
		}
		sum64 += f
		sum32 += float64(g)
		sumNorm += z
		sumSquares += z * z
	}
	const tolerance = 5 / 1024.0 // about five standard deviations of the means
	for name, d := range map[string]float64{
		"Float64 mean": sum64/n - 0.5, "Float32 mean": sum32/n - 0.5,
		"NormFloat64 mean": sumNorm / n, "NormFloat64 variance": sumSquares/n - 1,
	} {
		if math.Abs(d) > tolerance {
			t.Errorf("%s is off by %v", name, d)
		}
	}
	if Float64(1, 0) == Float64(2, 0) || Float64(1, 0) == Float64(1, 1) {
		t.Error("different seeds or counters give the same number")
	}
}

// TestNormExtremes checks NormFloat64 at the smallest and largest uniform
// values it inverts.
func TestNormExtremes(t *testing.T) {
	lo := math.Sqrt2 * math.Erfinv(2*(0.5*0x1p-53)-1)
	hi := math.Sqrt2 * math.Erfinv(2*((0x1p53-0.5)*0x1p-53)-1)
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > -8 || hi < 8 || lo != -hi {
		t.Errorf("extremes %v and %v", lo, hi)
	}
}
