package kernels

import "github.com/qdgo/qd"

// StreamAB fills a and b in two concurrent blocks, then adds them.
//
//qd:kernel
func StreamAB(a, b, c []float32, n int) {
	qd.StreamParallel(func() {
		for i := range n {
			a[i] = float32(i) * 0.5
		}
	})
	qd.StreamParallel(func() {
		for j := range n {
			b[j] = float32(j) + 1
		}
		for j := range n {
			b[j] *= 2
		}
	})
	for i := range n {
		c[i] = a[i] + b[i]
	}
}

// Mixed has a plain statement between two groups, and blocks that read
// one slice while writing others, which must not overlap.
//
//qd:kernel
func Mixed(a, b, c []int32, n int) {
	qd.StreamParallel(func() {
		for i := range n {
			a[i] = int32(i)
		}
	})
	qd.StreamParallel(func() {
		b[0] = 7
	})
	c[0] = a[0] + b[0]
	qd.StreamParallel(func() {
		for i := range n {
			b[i] = c[0] + 1
		}
	})
	qd.StreamParallel(func() {
		for i := range n {
			a[i] += 2
		}
	})
}

// Stride's iterations are distinct unless stride is 0: each thread tests
// that before its first iteration, and where it fails thread 0 runs them
// all, striding by 1, and the others leave.
//
//qd:kernel
func Stride(x []float32, stride int) {
	for i := range len(x) / 4 {
		x[i*stride] *= 2
	}
}
