package mathkernels

import "math"

//qd:kernel
func FMA(x, y, z, out []float64) {
	for i := range out {
		out[i] = math.FMA(x[i], y[i], z[i])
	}
}

//qd:kernel
func Frexp(x, frac []float64, exp []int) {
	for i := range frac {
		frac[i], exp[i] = math.Frexp(x[i])
	}
}

//qd:kernel
func Ldexp(x []float64, exp []int, out []float64) {
	for i := range out {
		out[i] = math.Ldexp(x[i], exp[i])
	}
}

//qd:kernel
func Modf(x, whole, frac []float64) {
	for i := range frac {
		whole[i], frac[i] = math.Modf(x[i])
	}
}

//qd:kernel
func Ilogb(x []float64, out []int) {
	for i := range out {
		out[i] = math.Ilogb(x[i])
	}
}

// Classify records IsNaN, IsInf and Signbit as the bits of out.
//
//qd:kernel
func Classify(x []float64, sign []int, out []uint8) {
	for i := range out {
		var c uint8
		if math.IsNaN(x[i]) {
			c |= 1
		}
		if math.IsInf(x[i], sign[i]) {
			c |= 2
		}
		if math.Signbit(x[i]) {
			c |= 4
		}
		out[i] = c
	}
}

// Specials records the bits of Inf and NaN, which the comparison of
// float results would not tell apart from other NaNs.
//
//qd:kernel
func Specials(sign []int, inf, nan []uint64) {
	for i := range inf {
		inf[i] = math.Float64bits(math.Inf(sign[i]))
		nan[i] = math.Float64bits(math.NaN())
	}
}

//qd:kernel
func Bits64(x []float64, bits []uint64, flipped []float64) {
	for i := range bits {
		bits[i] = math.Float64bits(x[i])
		flipped[i] = math.Float64frombits(bits[i] ^ 1<<63)
	}
}

//qd:kernel
func Bits32(x, y []float32, bits []uint32, flipped, next []float32) {
	for i := range bits {
		bits[i] = math.Float32bits(x[i])
		flipped[i] = math.Float32frombits(bits[i] ^ 1<<31)
		next[i] = math.Nextafter32(x[i], y[i])
	}
}

// Narrow computes float32 results through float64 functions: the
// conversions of Sqrt and Floor stay in float32, the others do not.
//
//qd:kernel
func Narrow(x, y []float32, sqrt, floor, exp, pow []float32) {
	for i := range sqrt {
		sqrt[i] = float32(math.Sqrt(float64(x[i])))
		floor[i] = float32(math.Floor(float64(x[i])))
		exp[i] = float32(math.Exp(float64(x[i])))
		pow[i] = float32(math.Pow(float64(x[i]), float64(y[i])))
	}
}

// Prologue computes a value from a parameter before its loop: the loop's
// task computes it again in its prologue.
//
//qd:kernel
func Prologue(a float64, x, out []float64) {
	s := math.Exp(a) * math.Log1p(math.Abs(a))
	for i := range out {
		out[i] = x[i] * s
	}
}
