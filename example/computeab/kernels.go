package main

//go:generate go tool qdgen

import "github.com/qdgo/qd"

// ComputeAB fills a and b. Its two blocks run at the same time, each on a
// stream of its own, and both finish before the kernel's launch is done.
//
//qd:kernel
func ComputeAB(a, b []float32, n int) {
	qd.StreamParallel(func() {
		for i := range n {
			a[i] = computeA(i)
		}
	})
	qd.StreamParallel(func() {
		for j := range n {
			b[j] = computeB(j)
		}
	})
}

// ComputeABSerial is ComputeAB without blocks: its loops run one after the
// other, each on the whole GPU.
//
//qd:kernel
func ComputeABSerial(a, b []float32, n int) {
	for i := range n {
		a[i] = computeA(i)
	}
	for j := range n {
		b[j] = computeB(j)
	}
}

// Combine adds a and b into c.
//
//qd:kernel
func Combine(a, b, c []float32, n int) {
	for i := range n {
		c[i] = a[i] + b[i]
	}
}

// computeA and computeB iterate a little so that each block is real work.
func computeA(i int) float32 {
	x := float32(i%1000) * 0.5
	for range 64 {
		x = x*0.999 + 0.25
	}
	return x
}

func computeB(j int) float32 {
	x := float32(j % 777)
	for range 64 {
		x = x*x/(x+1) + 1
	}
	return x
}
