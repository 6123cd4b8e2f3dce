package main

//go:generate go tool qdgen

// Saxpy computes y = a*x + y, one element per GPU thread.
//
//qd:kernel
func Saxpy(a float32, x, y []float32, n int) {
	for i := range n {
		y[i] = a*x[i] + y[i]
	}
}
