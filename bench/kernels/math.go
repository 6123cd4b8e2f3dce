package kernels

import "math"

// The math benchmarks apply one function of package math to 2^26 float64
// inputs; bench/baseline applies CUDA's function of the same name. They
// check no bounds, as the CUDA C kernels do not: what is measured is the
// function.

// Fill sets x[i] to lo + (hi-lo)·u with u in [0, 1) from a multiplicative
// hash of i: the inputs of the math benchmarks, the same in bench/baseline.
//
//qd:kernel
func Fill(x []float64, lo, hi float64) {
	for i := range x {
		u := float64(uint64(i)*0x9E3779B97F4A7C15>>11) * 0x1p-53
		x[i] = lo + (hi-lo)*u
	}
}

//qd:kernel nobounds
func Exp(x, out []float64) {
	for i := range out {
		out[i] = math.Exp(x[i])
	}
}

//qd:kernel nobounds
func Log(x, out []float64) {
	for i := range out {
		out[i] = math.Log(x[i])
	}
}

//qd:kernel nobounds
func Pow(x, y, out []float64) {
	for i := range out {
		out[i] = math.Pow(x[i], y[i])
	}
}

//qd:kernel nobounds
func Sin(x, out []float64) {
	for i := range out {
		out[i] = math.Sin(x[i])
	}
}

//qd:kernel nobounds
func Cos(x, out []float64) {
	for i := range out {
		out[i] = math.Cos(x[i])
	}
}

//qd:kernel nobounds
func Tan(x, out []float64) {
	for i := range out {
		out[i] = math.Tan(x[i])
	}
}

//qd:kernel nobounds
func Atan2(y, x, out []float64) {
	for i := range out {
		out[i] = math.Atan2(y[i], x[i])
	}
}
