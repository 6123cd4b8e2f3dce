package kernels

import (
	"math"

	"github.com/qdgo/qd"
)

// Sum adds the elements of x: a float reduction.
//
//qd:kernel
func Sum(x, out []float32) {
	var sum float32
	for i := range x {
		sum += x[i]
	}
	out[0] = sum
}

// IntStats combines x in every way a reduction may, in one loop: sums,
// a count under an if, a product, and, or, xor, and-not, min and max.
//
//qd:kernel
func IntStats(x []int32, out []int64) {
	var sum, positive int64
	diff := int16(100)
	prod := uint32(1)
	and, or, xor, clear := ^uint16(0), uint16(0), uint16(0), ^uint8(0)
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	for i, v := range x {
		sum += int64(v)
		diff -= int16(v)
		if v > 0 {
			positive++
		}
		prod *= uint32(v) | 1
		and &= uint16(v)
		or |= uint16(v)
		xor ^= uint16(i) * 3
		clear &^= uint8(v)
		lo = min(lo, v)
		hi = max(v, hi)
	}
	out[0], out[1], out[2], out[3] = sum, positive, int64(prod), int64(and)
	out[4], out[5], out[6], out[7] = int64(or), int64(xor), int64(lo), int64(hi)
	out[8], out[9] = int64(diff), int64(clear)
}

// Center subtracts the mean of x from each element: a reduction read by
// a later statement and a later loop.
//
//qd:kernel
func Center(x, centered []float64) {
	var sum float64
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(len(x))
	for i := range x {
		centered[i] = x[i] - mean
	}
}

// FloatRange finds the least and the greatest element of x, NaN if any
// is, exactly as Go's min and max do; its loop is tested at its end.
//
//qd:kernel
func FloatRange(x, out []float64, n int) {
	lo, hi := math.MaxFloat64, -math.MaxFloat64
	for i := range n {
		lo = min(lo, x[i])
		hi = max(hi, x[i])
	}
	out[0], out[1] = lo, hi
}

// ChunkSums sums x in two phases: each iteration sums a chunk into
// partial, then a reduction sums the partial sums, starting from a
// parameter.
//
//qd:kernel
func ChunkSums(x, partial, out []int64, chunk int, start int64) {
	for c := range partial {
		s := int64(0)
		for j := c * chunk; j < min((c+1)*chunk, len(x)); j++ {
			s += x[j]
		}
		partial[c] = s
	}
	total := start
	for c := range partial {
		total += partial[c]
	}
	out[0] = total
}

// BlockSums has a reduction in each of two concurrent blocks, and one
// whose result bounds a later loop.
//
//qd:kernel
func BlockSums(a, b, outA, outB []int32) {
	qd.StreamParallel(func() {
		var s int32
		for i := range a {
			s += a[i]
		}
		outA[0] = s
	})
	qd.StreamParallel(func() {
		m := int32(math.MinInt32)
		for i := range b {
			m = max(m, b[i]%int32(len(outB)))
		}
		for i := range max(m, 0) {
			outB[i] = m
		}
	})
}

// Dot is the dot product of the issue: a reduction of products, with an
// odd start.
//
//qd:kernel
func Dot(x, y, out []float32) {
	sum := float32(0.5)
	for i := range x {
		sum += x[i] * y[i]
	}
	out[0] = sum
}

// ScaleSum writes 2x into y and sums y as it goes: a reduction in a loop
// that also stores, with the loop run four iterations at a time.
//
//qd:kernel
func ScaleSum(x, y []int32, out []int32) {
	var s int32
	for i := range x {
		y[i] = 2 * x[i]
		s += y[i]
	}
	out[0] = s
}
