// Package pending holds kernels of the nests suite that qd rejects today
// although they are correct. Each names the diagnostic it gets; once qd
// accepts it, it moves into bench/suite/nests.go, beside its CUDA C in
// bench/baseline/nests.cu, which runs already.
package pending

// SyrkLower is the lower triangle of c = alpha·a·aᵀ + beta·c, for an n×m
// a, summed in c: row i of c belongs to iteration i alone. qd rejects it
// with "c[i*n+j] is read, changed and written back by iterations of this
// parallel loop that run at the same time and may use the same index":
// its dependence check does not see that j <= i < n keeps row i of c to
// iteration i.
//
//qd:kernel
func SyrkLower(c, a []float32, n, m int, alpha, beta float32) {
	for i := range n {
		for j := 0; j <= i; j++ {
			c[i*n+j] *= beta
			for k := range m {
				c[i*n+j] += alpha * a[i*m+k] * a[j*m+k]
			}
		}
	}
}
