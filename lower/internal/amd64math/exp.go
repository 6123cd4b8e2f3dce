package amd64math

import "math"

// The constants of math/exp_amd64.s.
const (
	log2e    = 1.4426950408889634073599246810018920                  // 1/ln(2)
	expLn2Hi = 0.69314718055966295651160180568695068359375           // upper half of ln(2)
	expLn2Lo = 0.28235290563031577122588448175013436025525412068e-12 // lower half
	overflow = 7.09782712893384e+02
	negInf   = 0xFFF0000000000000
	posInf   = 0x7FF0000000000000
)

// Exp is math.Exp on amd64 with FMA: x is reduced to r = x - k*ln(2), e^r
// is a Taylor series in r/16 squared four times, and the result is scaled
// by 2^k.
func Exp(x float64) float64 {
	b := math.Float64bits(x)
	if b&^(1<<63) >= posInf {
		if b == negInf {
			return 0
		}
		return x // NaN or +Inf
	}
	if x > overflow {
		return math.Inf(1)
	}
	k := roundToInt32(log2e * x)
	kf := float64(k)
	x = math.FMA(-kf, expLn2Hi, x)
	x = math.FMA(-kf, expLn2Lo, x)
	x *= 0.0625
	p := 2.4801587301587301587e-5
	p = math.FMA(p, x, 1.9841269841269841270e-4)
	p = math.FMA(p, x, 1.3888888888888888889e-3)
	p = math.FMA(p, x, 8.3333333333333333333e-3)
	p = math.FMA(p, x, 4.1666666666666666667e-2)
	p = math.FMA(p, x, 1.6666666666666666667e-1)
	p = math.FMA(p, x, 0.5)
	p = math.FMA(p, x, 1.0)
	x *= p
	x *= x + 2
	x *= x + 2
	x *= x + 2
	x = math.FMA(x, x+2, 1.0)
	// Scale by 2^k, in two steps where 2^k is subnormal.
	e := k + 0x3FF
	if e <= 0 {
		if e < -52 {
			return 0
		}
		x *= math.Float64frombits(uint64(e+0x3FE) << 52)
		e = 1
	} else if e >= 0x7FF {
		return math.Inf(1)
	}
	return x * math.Float64frombits(uint64(e)<<52)
}

// roundToInt32 converts x as CVTSD2SL does: to the nearest int32, ties to
// even, and to the most negative int32 when that is out of range.
func roundToInt32(x float64) int32 {
	r := math.RoundToEven(x)
	if r >= math.MinInt32 && r <= math.MaxInt32 {
		return int32(r)
	}
	return math.MinInt32
}
