package mathkernels

import "math/cmplx"

// The functions of package math/cmplx.

//qd:kernel
func CmplxUnary(x []complex128, abs, phase []float64, sqrt, exp, log, log10 []complex128) {
	for i := range abs {
		abs[i] = cmplx.Abs(x[i])
		phase[i] = cmplx.Phase(x[i])
		sqrt[i] = cmplx.Sqrt(x[i])
		exp[i] = cmplx.Exp(x[i])
		log[i] = cmplx.Log(x[i])
		log10[i] = cmplx.Log10(x[i])
	}
}

//qd:kernel
func CmplxTrig(x []complex128, sin, cos, tan, cot, sinh, cosh, tanh []complex128) {
	for i := range sin {
		sin[i] = cmplx.Sin(x[i])
		cos[i] = cmplx.Cos(x[i])
		tan[i] = cmplx.Tan(x[i])
		cot[i] = cmplx.Cot(x[i])
		sinh[i] = cmplx.Sinh(x[i])
		cosh[i] = cmplx.Cosh(x[i])
		tanh[i] = cmplx.Tanh(x[i])
	}
}

//qd:kernel
func CmplxInverse(x []complex128, asin, acos, atan, asinh, acosh, atanh []complex128) {
	for i := range asin {
		asin[i] = cmplx.Asin(x[i])
		acos[i] = cmplx.Acos(x[i])
		atan[i] = cmplx.Atan(x[i])
		asinh[i] = cmplx.Asinh(x[i])
		acosh[i] = cmplx.Acosh(x[i])
		atanh[i] = cmplx.Atanh(x[i])
	}
}

//qd:kernel
func CmplxPow(x, y, pow []complex128) {
	for i := range pow {
		pow[i] = cmplx.Pow(x[i], y[i])
	}
}

//qd:kernel
func CmplxParts(x []complex128, r, theta []float64, rect, conj []complex128, class []uint8) {
	for i := range r {
		r[i], theta[i] = cmplx.Polar(x[i])
		rect[i] = cmplx.Rect(r[i], theta[i])
		conj[i] = cmplx.Conj(x[i])
		var c uint8
		if cmplx.IsNaN(x[i]) {
			c |= 1
		}
		if cmplx.IsInf(x[i]) {
			c |= 2
		}
		if cmplx.IsInf(cmplx.Inf()) && cmplx.IsNaN(cmplx.NaN()) {
			c |= 4
		}
		class[i] = c
	}
}
