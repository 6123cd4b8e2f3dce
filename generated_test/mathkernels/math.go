// Package mathkernels tests the functions of packages math, math/bits and
// qd's rand in kernels: each kernel applies one function to every element,
// and its results must equal Go's bit for bit.
package mathkernels

//go:generate go run github.com/qdgo/qd/cmd/qdgen

import "math"

//qd:kernel
func Abs(x, out []float64) {
	for i := range out {
		out[i] = math.Abs(x[i])
	}
}

//qd:kernel
func Acos(x, out []float64) {
	for i := range out {
		out[i] = math.Acos(x[i])
	}
}

//qd:kernel
func Acosh(x, out []float64) {
	for i := range out {
		out[i] = math.Acosh(x[i])
	}
}

//qd:kernel
func Asin(x, out []float64) {
	for i := range out {
		out[i] = math.Asin(x[i])
	}
}

//qd:kernel
func Asinh(x, out []float64) {
	for i := range out {
		out[i] = math.Asinh(x[i])
	}
}

//qd:kernel
func Atan(x, out []float64) {
	for i := range out {
		out[i] = math.Atan(x[i])
	}
}

//qd:kernel
func Atanh(x, out []float64) {
	for i := range out {
		out[i] = math.Atanh(x[i])
	}
}

//qd:kernel
func Cbrt(x, out []float64) {
	for i := range out {
		out[i] = math.Cbrt(x[i])
	}
}

//qd:kernel
func Ceil(x, out []float64) {
	for i := range out {
		out[i] = math.Ceil(x[i])
	}
}

//qd:kernel
func Cosh(x, out []float64) {
	for i := range out {
		out[i] = math.Cosh(x[i])
	}
}

//qd:kernel
func Erf(x, out []float64) {
	for i := range out {
		out[i] = math.Erf(x[i])
	}
}

//qd:kernel
func Erfc(x, out []float64) {
	for i := range out {
		out[i] = math.Erfc(x[i])
	}
}

//qd:kernel
func Erfcinv(x, out []float64) {
	for i := range out {
		out[i] = math.Erfcinv(x[i])
	}
}

//qd:kernel
func Erfinv(x, out []float64) {
	for i := range out {
		out[i] = math.Erfinv(x[i])
	}
}

//qd:kernel
func Exp(x, out []float64) {
	for i := range out {
		out[i] = math.Exp(x[i])
	}
}

//qd:kernel
func Exp2(x, out []float64) {
	for i := range out {
		out[i] = math.Exp2(x[i])
	}
}

//qd:kernel
func Expm1(x, out []float64) {
	for i := range out {
		out[i] = math.Expm1(x[i])
	}
}

//qd:kernel
func Floor(x, out []float64) {
	for i := range out {
		out[i] = math.Floor(x[i])
	}
}

//qd:kernel
func Log(x, out []float64) {
	for i := range out {
		out[i] = math.Log(x[i])
	}
}

//qd:kernel
func Log10(x, out []float64) {
	for i := range out {
		out[i] = math.Log10(x[i])
	}
}

//qd:kernel
func Log1p(x, out []float64) {
	for i := range out {
		out[i] = math.Log1p(x[i])
	}
}

//qd:kernel
func Log2(x, out []float64) {
	for i := range out {
		out[i] = math.Log2(x[i])
	}
}

//qd:kernel
func Logb(x, out []float64) {
	for i := range out {
		out[i] = math.Logb(x[i])
	}
}

//qd:kernel
func Round(x, out []float64) {
	for i := range out {
		out[i] = math.Round(x[i])
	}
}

//qd:kernel
func RoundToEven(x, out []float64) {
	for i := range out {
		out[i] = math.RoundToEven(x[i])
	}
}

//qd:kernel
func Sinh(x, out []float64) {
	for i := range out {
		out[i] = math.Sinh(x[i])
	}
}

//qd:kernel
func Sqrt(x, out []float64) {
	for i := range out {
		out[i] = math.Sqrt(x[i])
	}
}

//qd:kernel
func Trunc(x, out []float64) {
	for i := range out {
		out[i] = math.Trunc(x[i])
	}
}

//qd:kernel
func Atan2(x, y, out []float64) {
	for i := range out {
		out[i] = math.Atan2(x[i], y[i])
	}
}

//qd:kernel
func Copysign(x, y, out []float64) {
	for i := range out {
		out[i] = math.Copysign(x[i], y[i])
	}
}

//qd:kernel
func Dim(x, y, out []float64) {
	for i := range out {
		out[i] = math.Dim(x[i], y[i])
	}
}

//qd:kernel
func Hypot(x, y, out []float64) {
	for i := range out {
		out[i] = math.Hypot(x[i], y[i])
	}
}

//qd:kernel
func Max(x, y, out []float64) {
	for i := range out {
		out[i] = math.Max(x[i], y[i])
	}
}

//qd:kernel
func Min(x, y, out []float64) {
	for i := range out {
		out[i] = math.Min(x[i], y[i])
	}
}

//qd:kernel
func Mod(x, y, out []float64) {
	for i := range out {
		out[i] = math.Mod(x[i], y[i])
	}
}

//qd:kernel
func Nextafter(x, y, out []float64) {
	for i := range out {
		out[i] = math.Nextafter(x[i], y[i])
	}
}

//qd:kernel
func Pow(x, y, out []float64) {
	for i := range out {
		out[i] = math.Pow(x[i], y[i])
	}
}

//qd:kernel
func Remainder(x, y, out []float64) {
	for i := range out {
		out[i] = math.Remainder(x[i], y[i])
	}
}
