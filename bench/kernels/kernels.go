// Package kernels holds the benchmark kernels; bench/baseline/baseline.cu
// has the same kernels in CUDA C.
package kernels

//go:generate go run github.com/qdgo/qd/cmd/qdgen

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
