package amd64math

import "math"

// The constants of math/log_amd64.s.
const (
	hSqrt2   = 7.07106781186547524401e-01 // sqrt(2)/2
	logLn2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	logLn2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
	l1       = 6.666666666666735130e-01   // 0x3FE5555555555593
	l2       = 3.999999999940941908e-01   // 0x3FD999999997FA04
	l3       = 2.857142874366239149e-01   // 0x3FD2492494229359
	l4       = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
	l5       = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
	l6       = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
	l7       = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244
)

// Log is math.Log on amd64: the algorithm of math/log.go, except that the
// fraction and exponent are taken from the bits without normalizing, so
// that subnormal x give about -709, and that f1 is doubled when it is
// sqrt(2)/2 itself.
func Log(x float64) float64 {
	b := math.Float64bits(x)
	switch {
	case b&^(1<<63) == 0:
		return math.Inf(-1)
	case int64(b) < 0:
		return math.NaN()
	case b >= posInf:
		return x // +Inf or NaN
	}
	f1 := math.Float64frombits(b&(1<<52-1) | 0x3FE0000000000000)
	k := float64(int32(b>>52&0x7FF) - 0x3FE)
	if f1 <= hSqrt2 {
		k -= 1
		f1 *= 2
	}
	f := f1 - 1
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (((l7*s4+l5)*s4+l3)*s4 + l1)
	t2 := s4 * ((l6*s4+l4)*s4 + l2)
	R := t1 + t2
	hfsq := 0.5 * f * f
	return k*logLn2Hi - ((hfsq - (s*(hfsq+R) + k*logLn2Lo)) - f)
}
