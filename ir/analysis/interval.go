package analysis

import (
	"math"

	"github.com/qdgo/qd/ir"
)

// interval is a numeric range [lo, hi] of int64 values; arithmetic on
// intervals gives the full range where a bound would overflow, so a bound
// is never wrong.
type interval struct{ lo, hi int64 }

var full = interval{math.MinInt64, math.MaxInt64}

func point(c int64) interval { return interval{c, c} }

func (x interval) isFull() bool { return x == full }

func (x interval) meet(y interval) interval {
	out := interval{max(x.lo, y.lo), min(x.hi, y.hi)}
	if out.lo > out.hi { // contradictory facts: the site is not reached
		return x
	}
	return out
}

// AddInt is x+y and whether it did not wrap.
func AddInt(x, y int64) (int64, bool) {
	s := x + y
	return s, (s > x) == (y > 0)
}

// MulInt is x*y and whether it did not wrap.
func MulInt(x, y int64) (int64, bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	p := x * y
	if p/y != x || x == -1 && y == math.MinInt64 || y == -1 && x == math.MinInt64 {
		return 0, false
	}
	return p, true
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (x interval) addOK(y interval) (interval, bool) {
	lo, ok1 := AddInt(x.lo, y.lo)
	hi, ok2 := AddInt(x.hi, y.hi)
	return interval{lo, hi}, ok1 && ok2
}

func (x interval) mulOK(y interval) (interval, bool) {
	out := interval{math.MaxInt64, math.MinInt64}
	for _, a := range []int64{x.lo, x.hi} {
		for _, b := range []int64{y.lo, y.hi} {
			p, ok := MulInt(a, b)
			if !ok {
				return full, false
			}
			out.lo, out.hi = min(out.lo, p), max(out.hi, p)
		}
	}
	return out, true
}

func (x interval) add(y interval) interval {
	lo, ok1 := AddInt(x.lo, y.lo)
	hi, ok2 := AddInt(x.hi, y.hi)
	if !ok1 || !ok2 {
		return full
	}
	return interval{lo, hi}
}

func (x interval) mul(y interval) interval {
	out := interval{math.MaxInt64, math.MinInt64}
	for _, a := range []int64{x.lo, x.hi} {
		for _, b := range []int64{y.lo, y.hi} {
			p, ok := MulInt(a, b)
			if !ok {
				return full
			}
			out.lo, out.hi = min(out.lo, p), max(out.hi, p)
		}
	}
	return out
}

// typeRange is the range of values of an integer type, reading a 64-bit
// unsigned value as the int64 of the same bits.
func typeRange(t ir.Type) interval {
	switch {
	case !t.IsInteger() || t.Size() == 8:
		return full
	case t.IsUnsigned():
		return interval{0, int64(1)<<t.Bits() - 1}
	}
	return interval{-int64(1) << (t.Bits() - 1), int64(1)<<(t.Bits()-1) - 1}
}
