package kernels

// Saxpy computes y = a*x + y.
//
//qd:kernel
func Saxpy(a float32, x, y []float32, n int) {
	for i := range n {
		y[i] = a*x[i] + y[i]
	}
}

//qd:kernel
func ComputeAB(a, b []float32, n int) {
	for i := range n {
		a[i] = computeA(i)
	}
	for j := range n {
		b[j] = computeB(j)
	}
}

func computeA(i int) float32 { return float32(i) * 0.5 }

func computeB(j int) float32 {
	if j%2 == 0 {
		return float32(j)
	}
	return -float32(j)
}

//qd:kernel
func Forms(a []int64, n int) {
	m := n / 2
	a[0] = 7
	for i := range len(a) {
		a[i] += 1
	}
	for i, v := range a {
		a[i] = v * 3
	}
	for i := 0; i < m; i++ {
		if i == 3 {
			continue
		}
		a[i] -= int64(i)
	}
	if n > 3 {
		for i := range n {
			a[i] = a[i] + a[max(i-1, 0)]
		}
	}
}

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
