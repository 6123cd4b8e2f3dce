// Package kernels is the end-to-end test suite of qd: every kernel runs on
// each backend and is compared with its own Go function.
package kernels

//go:generate go tool qdgen

import (
	"math"

	"github.com/qdgo/qd/generated_test/helpers"
)

//qd:kernel
func Saxpy(a float32, x, y []float32) {
	for i := range min(len(x), len(y)) {
		y[i] = a*x[i] + y[i]
	}
}

//qd:kernel
func MixInt8(a, b, out []int8) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixInt16(a, b, out []int16) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixInt32(a, b, out []int32) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixInt64(a, b, out []int64) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixInt(a, b, out []int) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixUint8(a, b, out []uint8) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixUint16(a, b, out []uint16) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixUint32(a, b, out []uint32) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixUint64(a, b, out []uint64) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

//qd:kernel
func MixUint(a, b, out []uint) {
	for i := range len(out) {
		out[i] = helpers.Mix(a[i], b[i])
	}
}

// Shifts shifts by counts of every width, signed and unsigned.
//
//qd:kernel
func Shifts(x []int64, c []uint8, out []int64) {
	for i := range len(out) {
		n := c[i]
		v := x[i]
		r := v<<n ^ v>>n
		r ^= int64(int32(v)<<uint16(n)) + int64(uint16(v)>>uint32(n))
		r ^= int64(int8(v) >> uint64(n))
		r ^= int64(uint32(v) << n)
		r ^= v >> (n & 63) << (n & 7)
		out[i] = r
	}
}

// Conversions converts between every pair of numeric kinds in range.
//
//qd:kernel
func Conversions(i64 []int64, f64 []float64, u8 []uint8, i16 []int16, u32 []uint32, f32 []float32, out []int64) {
	for i := range len(out) {
		a := i64[i]
		f := f64[i]
		u8[i] = uint8(a) + uint8(int16(a)>>3)
		i16[i] = int16(a) - int16(uint8(a))
		u32[i] = uint32(a) ^ uint32(int8(a))
		f32[i] = float32(f) + float32(a) + float32(uint32(a)) + float32(uint64(a)>>1)
		out[i] = int64(float32(f)) + int64(f) + int64(int32(f/4)) + int64(uint16(f)) + int64(int8(f/1e4))
	}
}

// Floats uses float64 arithmetic, comparisons and the math functions
// kernels support, on values that include NaN, infinities and zeros.
//
//qd:kernel
func Floats(x, y, out []float64) {
	for i := range len(out) {
		a, b := x[i], y[i]
		r := a*b - a/b + (a + b)
		if a < b {
			r += 1
		} else if a == b {
			r -= 1
		}
		if a != b {
			r *= 0.5
		}
		r += math.Sqrt(math.Abs(a)) + math.Floor(b) + math.Ceil(a) + math.Trunc(-b)
		r += min(a, b) + 2*max(a, b, 0.25)
		out[i] = r + min(a, b)*0
	}
}

// Floats32 is Floats in float32, with the float32 forms of the math
// functions.
//
//qd:kernel
func Floats32(x, y, out []float32) {
	for i := range len(out) {
		a, b := x[i], y[i]
		r := a*b - a/b + (a + b)
		if a >= b {
			r -= a
		}
		r += float32(math.Sqrt(float64(a*a))) + float32(math.Floor(float64(b)))
		r += float32(math.Abs(float64(-a))) + float32(math.Ceil(float64(a))) + float32(math.Trunc(float64(b)))
		out[i] = r + min(a, b) - max(b, a)
	}
}

// MinMaxZeros checks min and max of signed zeros and NaN.
//
//qd:kernel
func MinMaxZeros(x, y, lo, hi []float64) {
	for i := range len(lo) {
		lo[i] = min(x[i], y[i])
		hi[i] = max(x[i], y[i])
	}
}

// MinMaxConstants checks min and max against constants, zeros of both
// signs among them, which compile differently from min and max of two
// variables.
//
//qd:kernel
func MinMaxConstants(x, hi, lo, hiNeg, loNeg, hiC, loC []float64, y, hi32, lo32 []float32) {
	for i := range len(x) {
		zero := 0.0
		negZero := -zero
		hi[i], lo[i] = max(x[i], 0), min(x[i], 0)
		hiNeg[i], loNeg[i] = max(x[i], negZero), min(negZero, x[i])
		hiC[i], loC[i] = max(x[i], 1.5), min(-2.5, x[i])
		hi32[i], lo32[i] = max(y[i], 0), min(y[i], 0.25)
	}
}

// Control uses switch, labeled loops with break and continue, and
// short-circuit operators inside each iteration.
//
//qd:kernel
func Control(a, out []int32, limit int32) {
	for i := range len(out) {
		v := a[i]
		switch {
		case v < 0 && v > -100:
			v = -v
		case v >= 0 || v < -1000:
			v /= 3
		default:
			v = 7
		}
		count := int32(0)
	outer:
		for j := int32(0); j < 40; j++ {
			for k := range 10 {
				if int32(k)+j > limit {
					break outer
				}
				if (v+int32(k))%3 == 0 {
					continue outer
				}
				count++
			}
		}
		switch v % 4 {
		case 0, 1:
			count += 100
		case 2:
			count -= 100
		}
		out[i] = v + count
	}
}

// Phases mixes serial statements and parallel loops; each top-level
// statement sees what the earlier ones wrote.
//
//qd:kernel
func Phases(a, b []int32, n int) {
	a[0] = 5
	for i := range len(a) {
		a[i] += int32(i)
	}
	b[0] = a[0] + a[len(a)-1]
	for i := 1; i < len(b); i++ {
		b[i] += b[0]
	}
	if n > 3 {
		// A loop that is not at the top level runs serially, in order.
		for i := 1; i < len(a); i++ {
			a[i] += a[i-1]
		}
	}
}

// Spin runs the Quadrants LCG loop on each element.
//
//qd:kernel
func Spin(out []int64, iters int) {
	for t := range len(out) {
		x := int64(t)
		for range iters {
			x = (1664525*x + 1013904223) % 2147483647
		}
		out[t] = x
	}
}

// Helpers calls helpers of its own and another package, with several
// results, sub-slices and generic instances.
//
//qd:kernel
func Helpers(a []int32, f, sums []float64, q, r []int64) {
	for i := range len(a) {
		a[i] = helpers.Clamp(a[i], -50, 50) + twice(a[i])
		q[i], r[i] = helpers.DivMod(int64(a[i])*1000, int64(i%7))
		if i+3 <= len(f) {
			sums[i] = helpers.Sum(f[i : i+3])
		}
	}
}

func twice(x int32) int32 { return add(x, x) }

func add(x, y int32) int32 { return x + y }

// Ranges uses every form of parallel loop and a bound computed from
// parameters.
//
//qd:kernel
func Ranges(a []int32, b []float32, n int, flag bool) {
	for i, v := range a {
		a[i] = v * 2
	}
	for i := range b {
		b[i] += 1
	}
	for i := uint32(0); i < uint32(len(a)); i++ {
		a[i] -= int32(i)
	}
	for i := range min(n, len(b)) / 2 {
		b[i] *= 3
	}
	for i := 2; i < len(a)-1; i++ {
		if flag {
			a[i] += 1000
		}
	}
}

// Narrow wraps narrow integers on purpose.
//
//qd:kernel
func Narrow(a []uint8, b []int16, c []int8) {
	for i := range len(a) {
		a[i] = a[i]*3 + 250
		b[i] = b[i]*b[i] + 30000
		c[i] = -c[i] * 2
		c[i] += int8(a[i])
	}
}

// Empty launches one block and does nothing; it measures launch cost.
//
//qd:kernel
func Empty(a []int32, n int) {
	for i := range n {
		if i < 0 {
			a[0] = 1
		}
	}
}

// Counted runs inner counted loops of several forms whose bounds lie near
// the limits of their types and whose trip counts straddle the unroll
// factor.
//
//qd:kernel
func Counted(out, lo, hi []int64, small []int8, u []uint32) {
	for t := range len(out) {
		s := int64(0)
		for j := lo[t]; j < hi[t]; j++ {
			s += j
		}
		for j := range int(hi[t] & 15) {
			s ^= int64(j) << 1
		}
		for j := small[t]; j < 127; j++ {
			s += int64(j)
		}
		for j := small[t]; j > -128; j-- {
			s += int64(j) * 3
		}
		for j := u[t]; j < u[t]+7 && j > 3; j++ {
			s -= int64(j)
		}
		for j := uint32(0); j < u[t]%13; j++ {
			s += int64(j) * 5
		}
		for j := 0; j < 20; j++ {
			if s%7 == int64(j) {
				break
			}
			s++
		}
		out[t] = s
	}
}

// Fill sets every element of a to v.
//
//qd:kernel
func Fill(a []float32, v float32) {
	for i := range a {
		a[i] = v
	}
}

// AddOne writes src+1 into dst.
//
//qd:kernel
func AddOne(dst, src []float32) {
	for i := range dst {
		dst[i] = src[i] + 1
	}
}

// Accumulate adds v to every element of a.
//
//qd:kernel
func Accumulate(a []float32, v float32) {
	for i := range a {
		a[i] += v
	}
}

// SlowFill spins for iters steps in each thread before setting a to v, so
// that work queued after it on another stream would overtake it unless
// ordered by an event.
//
//qd:kernel
func SlowFill(a []float32, v float32, iters int) {
	for i := range a {
		x := int64(i)
		for range iters {
			x = (1664525*x + 1013904223) % 2147483647
		}
		a[i] = v
		if x < 0 { // never true, but the GPU compiler cannot know: the loop stays
			a[i] = 0
		}
	}
}

// Scalars takes scalars of every width, so that their packing into the
// launch arguments is checked.
//
//qd:kernel
func Scalars(out []int64, a int8, b uint16, flag bool, c int16, d uint8, e int32, f float32, g uint32, h float64, k uint64) {
	for i := range out {
		v := int64(a)*3 + int64(b) - int64(c)*5 + int64(d) + int64(e) + int64(f*4) + int64(g>>3) + int64(h) + int64(k%1000)
		if flag {
			v = -v
		}
		out[i] = v + int64(i)
	}
}

// ClampedWindow sums a 3×3 window of bytes with clamping, its loops written as
// range 3, and a constant ladder of eight scenarios with range 8: the
// loops are unrolled fully, whatever their form.
//
//qd:kernel
func ClampedWindow(out []int32, in []uint8, ladder []float32, w, h int) {
	for p := range out {
		x, y := p%w, p/w
		sum := 0
		for dy := range 3 {
			yy := min(max(y+dy-1, 0), h-1)
			for dx := range 3 {
				xx := min(max(x+dx-1, 0), w-1)
				sum += int(in[yy*w+xx])
			}
		}
		var payoff float32
		for k := range 8 {
			payoff += max(ladder[p]*(1+float32(k-4)/16)-1, 0)
		}
		out[p] = int32(sum/9) + int32(payoff*4)
	}
}

// Rounds runs a loop of a constant 100 rounds, which counts in 32 bits.
//
//qd:kernel
func Rounds(out, in []uint64) {
	for i := range out {
		h := in[i]
		for k := 0; k < 100; k++ {
			h = h*6364136223846793005 + uint64(k)
		}
		out[i] = h
	}
}
