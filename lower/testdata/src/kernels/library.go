package kernels

import (
	"math"
	"math/bits"
)

// Library calls functions of math and math/bits: intrinsics, Go's source
// (Copysign) and the algorithm of the amd64 assembly (Exp).
//
//qd:kernel
func Library(x []float64, u []uint32, n []int) {
	for i := range len(x) {
		x[i] = math.FMA(math.Exp(x[i]), 2, math.Copysign(math.RoundToEven(x[i]), -1))
		u[i] = bits.ReverseBytes32(u[i]) + bits.Reverse32(u[i])
		n[i] = bits.OnesCount32(u[i]) + bits.Len32(u[i]) + bits.TrailingZeros64(math.Float64bits(x[i]))
	}
}

// TailCalls calls a helper that calls itself as its last act, which runs
// as a loop.
//
//qd:kernel
func TailCalls(a, b []int64) {
	for i := range len(a) {
		a[i] = gcd(a[i], b[i])
	}
}

func gcd(a, b int64) int64 {
	if b == 0 {
		return a
	}
	return gcd(b, a%b)
}

// Exponential calls math.Exp as Library does: the two kernels call one
// device function of the module.
//
//qd:kernel
func Exponential(x, y []float64) {
	for i := range len(y) {
		y[i] = math.Exp(x[i]) * 2
	}
}
