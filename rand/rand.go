// Package rand provides counter-based random numbers that kernels and
// plain Go compute alike: each value is a pure function of a seed and a
// counter, so the iteration i of a parallel loop draws its numbers from
// counter i (or a range of counters of its own) with no state to share,
// and a Monte Carlo kernel gives the same results on the GPU as its Go
// function on the CPU, bit for bit.
//
//	x := rand.Float64(seed, uint64(i))
//
// The generator is Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011), the generator of Random123
// and of cuRAND's Philox_4x32_10: the seed is its 64-bit key and the
// counter the low half of its 128-bit counter. It passes BigCrush; it is not
// cryptographically secure.
package rand

import (
	"math"
	"math/bits"
)

// The multipliers and key increments of Philox4x32.
const (
	m0 = 0xD2511F53
	m1 = 0xCD9E8D57
	w0 = 0x9E3779B9 // golden ratio
	w1 = 0xBB67AE85 // sqrt(3) - 1
)

// Philox4x32 is the Philox4x32-10 block function: the four words of
// counter (c0, c1, c2, c3) encrypted under key (k0, k1), in the order of
// Random123's philox4x32.
func Philox4x32(c0, c1, c2, c3, k0, k1 uint32) (r0, r1, r2, r3 uint32) {
	for range 10 {
		hi0, lo0 := bits.Mul32(m0, c0)
		hi1, lo1 := bits.Mul32(m1, c2)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
		k0 += w0
		k1 += w1
	}
	return c0, c1, c2, c3
}

// Block returns the 128 random bits of counter under seed, as four words.
// Uint32, Uint64, Float32 and Float64 use its first words; a kernel that
// needs several numbers per counter may use all four.
func Block(seed, counter uint64) (r0, r1, r2, r3 uint32) {
	return Philox4x32(uint32(counter), uint32(counter>>32), 0, 0, uint32(seed), uint32(seed>>32))
}

// Uint32 returns a uniformly distributed uint32.
func Uint32(seed, counter uint64) uint32 {
	r0, _, _, _ := Block(seed, counter)
	return r0
}

// Uint64 returns a uniformly distributed uint64.
func Uint64(seed, counter uint64) uint64 {
	r0, r1, _, _ := Block(seed, counter)
	return uint64(r1)<<32 | uint64(r0)
}

// Float64 returns a uniformly distributed float64 in [0, 1): a multiple
// of 2⁻⁵³.
func Float64(seed, counter uint64) float64 {
	return float64(Uint64(seed, counter)>>11) * 0x1p-53
}

// Float32 returns a uniformly distributed float32 in [0, 1): a multiple
// of 2⁻²⁴.
func Float32(seed, counter uint64) float32 {
	return float32(Uint32(seed, counter)>>8) * 0x1p-24
}

// NormFloat64 returns a normally distributed float64 with mean 0 and
// standard deviation 1, by inverting the normal distribution at a uniform
// u in (0, 1): √2·erf⁻¹(2u-1), where 2u-1 is exact. Its values lie within
// about ±8.3.
func NormFloat64(seed, counter uint64) float64 {
	u := (float64(Uint64(seed, counter)>>11) + 0.5) * 0x1p-53
	return math.Sqrt2 * math.Erfinv(2*u-1)
}
