// Package helpers holds functions that kernels of other packages call.
package helpers

// Integer is the constraint of Mix.
type Integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint
}

// Clamp limits x to [lo, hi].
func Clamp(x, lo, hi int32) int32 {
	return min(max(x, lo), hi)
}

// Mix exercises every integer operator on x and y.
func Mix[T Integer](x, y T) T {
	r := x*y + x - y
	r ^= x &^ y
	r |= (x & y) >> 1
	if y != 0 {
		r += x / y
		r ^= x % y
	}
	r += x/7 + x%5 + x/100 + x%16 + x/2 + x%127
	s := uint(y) & 15
	r ^= x<<s | x>>s
	r += x << uint(y) // counts at or above the width give 0 or the sign
	r -= x >> uint8(y)
	r += ^x + -y
	return r
}

// DivMod returns x/y and x%y, and 0, 0 for y == 0.
func DivMod(x, y int64) (int64, int64) {
	if y == 0 {
		return 0, 0
	}
	return x / y, x % y
}

// Sum adds the elements of s.
func Sum(s []float64) float64 {
	total := 0.0
	for _, v := range s {
		total += v
	}
	return total
}

// Pair is a struct of another package that kernels take in slices.
type Pair struct{ A, B int32 }

// Sum adds the fields of p; it has a value receiver.
func (p Pair) Sum() int64 { return int64(p.A) + int64(p.B) }
