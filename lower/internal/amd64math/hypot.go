package amd64math

import "math"

// Hypot is math.Hypot on amd64: max * sqrt(1 + (min/max)²), with the
// special cases tested on the bits first.
func Hypot(p, q float64) float64 {
	pb, qb := math.Float64bits(p)&^(1<<63), math.Float64bits(q)&^(1<<63)
	if pb >= posInf || qb >= posInf {
		if pb == posInf || qb == posInf {
			return math.Inf(1)
		}
		return math.NaN()
	}
	if pb|qb == 0 {
		return 0
	}
	p, q = math.Float64frombits(pb), math.Float64frombits(qb)
	hi, lo := max(p, q), min(p, q)
	r := lo / hi
	return hi * math.Sqrt(r*r+1)
}
