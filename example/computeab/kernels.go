package main

//go:generate go run github.com/qdgo/qd/cmd/qdgen

// ComputeAB fills a and b; its two top-level loops run one after the
// other, each on all the GPU's threads.
//
//qd:kernel
func ComputeAB(a, b []float32, n int) {
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

func computeA(i int) float32 { return float32(i%1000) * 0.5 }

func computeB(j int) float32 {
	x := float32(j % 777)
	return x*x/3 + 1
}
