// Package kernels holds the benchmark kernels; bench/baseline/baseline.cu
// has the same kernels in CUDA C.
package kernels

import (
	"sync/atomic"

	"github.com/qdgo/qd"
)

//go:generate go tool qdgen

// Empty launches one block that does nothing: it measures launch cost.
//
//qd:kernel
func Empty(a []int32, n int) {
	for i := range n {
		if i < 0 {
			a[0] = 1
		}
	}
}

// Saxpy computes y = a*x + y.
//
//qd:kernel
func Saxpy(a float32, x, y []float32, n int) {
	for i := range n {
		y[i] = a*x[i] + y[i]
	}
}

// Spin runs the Quadrants LCG spin loop in each of len(out) threads.
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

// spinEach runs the LCG spin loop in each of len(out) threads.
func spinEach(out []int64, iters int) {
	for t := range len(out) {
		x := int64(t)
		for range iters {
			x = (1664525*x + 1013904223) % 2147483647
		}
		out[t] = x
	}
}

// TwoSpins runs two one-thread spin loops as two concurrent blocks.
//
//qd:kernel
func TwoSpins(a, b []int64, iters int) {
	qd.StreamParallel(func() { spinEach(a, iters) })
	qd.StreamParallel(func() { spinEach(b, iters) })
}

// TwoSpinsSerial runs the same two loops one after the other.
//
//qd:kernel
func TwoSpinsSerial(a, b []int64, iters int) {
	for t := range len(a) {
		x := int64(t)
		for range iters {
			x = (1664525*x + 1013904223) % 2147483647
		}
		a[t] = x
	}
	for t := range len(b) {
		x := int64(t)
		for range iters {
			x = (1664525*x + 1013904223) % 2147483647
		}
		b[t] = x
	}
}

// EightSpins runs eight one-thread spin loops as eight concurrent blocks.
//
//qd:kernel
func EightSpins(a0, a1, a2, a3, a4, a5, a6, a7 []int64, iters int) {
	qd.StreamParallel(func() { spinEach(a0, iters) })
	qd.StreamParallel(func() { spinEach(a1, iters) })
	qd.StreamParallel(func() { spinEach(a2, iters) })
	qd.StreamParallel(func() { spinEach(a3, iters) })
	qd.StreamParallel(func() { spinEach(a4, iters) })
	qd.StreamParallel(func() { spinEach(a5, iters) })
	qd.StreamParallel(func() { spinEach(a6, iters) })
	qd.StreamParallel(func() { spinEach(a7, iters) })
}

// FourTiny runs four tiny blocks: it measures the cost of fork and join.
//
//qd:kernel
func FourTiny(a, b, c, d []int32) {
	qd.StreamParallel(func() { tiny(a) })
	qd.StreamParallel(func() { tiny(b) })
	qd.StreamParallel(func() { tiny(c) })
	qd.StreamParallel(func() { tiny(d) })
}

// Tiny is one tiny loop, launched four times for comparison.
//
//qd:kernel
func Tiny(a []int32) { tiny(a) }

func tiny(a []int32) {
	for i := range a {
		a[i]++
	}
}

// Scale multiplies x by a: a stage of the recorded pipeline benchmark.
//
//qd:kernel
func Scale(x []float32, a float32) {
	for i := range x {
		x[i] *= a
	}
}

// Add writes x+y into out: the pipeline's last kernel.
//
//qd:kernel
func Add(x, y, out []float32) {
	for i := range out {
		out[i] = x[i] + y[i]
	}
}

// Histogram counts bytes into 256 bins, with one atomic add per byte.
//
//qd:kernel
func Histogram(data []uint8, bins []uint32) {
	for _, b := range data {
		atomic.AddUint32(&bins[b], 1)
	}
}
