package kernels

// Triangular nests: the inner loop's bounds follow the outer index, and
// the nest runs over the rectangle around the triangle, each iteration
// testing its own bounds.

// LowerInclusive writes the lower triangle, diagonal included: j <= i.
//
//qd:kernel
func LowerInclusive(c []float32, n int, s float32) {
	for i := range n {
		for j := 0; j <= i; j++ {
			c[i*n+j] *= s
		}
	}
}

// LowerStrict writes below the diagonal: j < i.
//
//qd:kernel
func LowerStrict(c []float32, n int) {
	for i := range n {
		for j := range i {
			c[i*n+j] = float32(i - j)
		}
	}
}

// UpperFrom writes above the diagonal: j starts at i+1.
//
//qd:kernel
func UpperFrom(c []int32, n int) {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c[i*n+j] = int32(i*n + j)
		}
	}
}

// BelowUnsigned's bound i-1 wraps at i = 0 in Go, where the inner loop
// runs to the largest uint: only the outer loop runs in parallel.
//
//qd:kernel
func BelowUnsigned(c []float32, n uint) {
	for i := uint(0); i < n; i++ {
		for j := uint(0); j < i-1; j++ {
			c[i*n+j] = 1
		}
	}
}
