package main

//go:generate go tool qdgen

import "math"

// Transform computes y = sqrt(|x|)*3 + x/7 for each element, with a few
// rounds so that the kernel takes about as long as the copies.
//
//qd:kernel
func Transform(x, y []float32, rounds int) {
	for i := range x {
		v := x[i]
		for range rounds {
			v = float32(math.Sqrt(float64(v*v+1)))*0.5 + v/7
		}
		y[i] = v
	}
}
