// Package kernels holds two small kernels, which the examples of package
// rt's documentation launch: on the CPU backend they run as the Go
// functions below, so the examples run under go test on any machine.
package kernels

//go:generate go tool qdgen

// Saxpy computes y = a*x + y, one element per GPU thread.
//
//qd:kernel
func Saxpy(a float32, x, y []float32, n int) {
	for i := range n {
		y[i] = a*x[i] + y[i]
	}
}

// Scale multiplies each of the first n elements of x by a.
//
//qd:kernel
func Scale(a float32, x []float32, n int) {
	for i := range n {
		x[i] *= a
	}
}
