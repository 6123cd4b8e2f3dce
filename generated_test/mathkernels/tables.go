package mathkernels

import "math"

// The functions of package math that read its package-level tables (the
// polynomial coefficients of Tan, Tanh, Gamma, Lgamma and the Bessel
// functions, Pow10's powers, the bits of 4/π that Sin, Cos and Tan reduce
// huge arguments with).

//qd:kernel
func Sin(x, out []float64) {
	for i := range out {
		out[i] = math.Sin(x[i])
	}
}

//qd:kernel
func Cos(x, out []float64) {
	for i := range out {
		out[i] = math.Cos(x[i])
	}
}

//qd:kernel
func Sincos(x, sin, cos []float64) {
	for i := range sin {
		sin[i], cos[i] = math.Sincos(x[i])
	}
}

//qd:kernel
func Tan(x, out []float64) {
	for i := range out {
		out[i] = math.Tan(x[i])
	}
}

//qd:kernel
func Tanh(x, out []float64) {
	for i := range out {
		out[i] = math.Tanh(x[i])
	}
}

//qd:kernel
func Gamma(x, out []float64) {
	for i := range out {
		out[i] = math.Gamma(x[i])
	}
}

//qd:kernel
func Lgamma(x, out []float64, sign []int) {
	for i := range out {
		out[i], sign[i] = math.Lgamma(x[i])
	}
}

//qd:kernel
func Pow10(n []int, out []float64) {
	for i := range out {
		out[i] = math.Pow10(n[i] % 400)
	}
}

//qd:kernel
func Bessel(x, j0, j1, y0, y1 []float64) {
	for i := range j0 {
		j0[i] = math.J0(x[i])
		j1[i] = math.J1(x[i])
		y0[i] = math.Y0(x[i])
		y1[i] = math.Y1(x[i])
	}
}

//qd:kernel
func BesselN(n []int, x, jn, yn []float64) {
	for i := range jn {
		jn[i] = math.Jn(n[i]%40, x[i])
		yn[i] = math.Yn(n[i]%40, x[i])
	}
}

//qd:kernel
func NarrowTrig(x []float32, sin, tan []float32) {
	for i := range sin {
		sin[i] = float32(math.Sin(float64(x[i])))
		tan[i] = float32(math.Tan(float64(x[i])))
	}
}
