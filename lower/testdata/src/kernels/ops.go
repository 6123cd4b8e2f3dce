package kernels

import "math"

// Ints uses the integer operators with Go's wraparound, shift and
// division rules.
//
//qd:kernel
func Ints(a []int8, b []uint16, c []int32, d []uint64, s []uint) {
	for i := range len(a) {
		a[i] = a[i]*3 - 100
		b[i] = b[i]<<s[i] | b[i]>>3
		c[i] = c[i]/7 + c[i]%-3 + c[i]>>s[i] + -c[i]
		d[i] = d[i]/10 ^ d[i]%1000&^0xff
	}
}

// FloatOps uses float conversions, comparisons and the math intrinsics.
//
//qd:kernel
func FloatOps(x []float32, y []float64, n []int64) {
	for i := range len(x) {
		y[i] = math.Sqrt(math.Abs(y[i])) + math.Floor(y[i]) - math.Ceil(float64(x[i]))
		x[i] = float32(math.Trunc(float64(x[i]))) + min(x[i], 2) + float32(math.Sqrt(float64(x[i])))
		if y[i] != y[i] {
			y[i] = 0
		}
		n[i] = int64(y[i]) + int64(x[i])
	}
}
