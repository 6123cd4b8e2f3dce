package suite

import "math"

// The kernels below are loop nests as a Go programmer first writes them:
// rows and columns as nested loops, arrays flattened row by row, sums
// accumulated in the output where the textbook does. Their CUDA C (in
// bench/baseline/nests.cu) gives each (row, column) to a thread of a
// 2-D grid, with 32-bit int indices.

// Conv2D is a 3×3 convolution with fixed weights over the interior of a
// w×h image; the border of b is left as it was.
//
//qd:kernel
func Conv2D(b, a []float32, w, h int) {
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			b[y*w+x] = 0.2*a[(y-1)*w+x-1] + 0.5*a[(y-1)*w+x] - 0.8*a[(y-1)*w+x+1] -
				0.3*a[y*w+x-1] + 0.6*a[y*w+x] - 0.9*a[y*w+x+1] +
				0.4*a[(y+1)*w+x-1] + 0.7*a[(y+1)*w+x] + 0.1*a[(y+1)*w+x+1]
		}
	}
}

// Conv3D is a 3-D convolution with fixed weights over the interior of a
// w×h×d volume; the border of b is left as it was.
//
//qd:kernel
func Conv3D(b, a []float32, w, h, d int) {
	for z := 1; z < d-1; z++ {
		for y := 1; y < h-1; y++ {
			for x := 1; x < w-1; x++ {
				b[(z*h+y)*w+x] = 2*a[((z-1)*h+y-1)*w+x-1] + 4*a[((z+1)*h+y-1)*w+x-1] +
					5*a[((z-1)*h+y-1)*w+x] + 7*a[((z+1)*h+y-1)*w+x] -
					8*a[((z-1)*h+y-1)*w+x+1] + 10*a[((z+1)*h+y-1)*w+x+1] -
					3*a[(z*h+y-1)*w+x] + 6*a[(z*h+y)*w+x] - 9*a[(z*h+y+1)*w+x] +
					2*a[((z-1)*h+y)*w+x+1] + 4*a[((z+1)*h+y+1)*w+x+1]
			}
		}
	}
}

// Stencil5 is one explicit step of the heat equation on the interior of
// a w×h grid: each point moves towards the mean of its four neighbours.
//
//qd:kernel
func Stencil5(out, in []float32, w, h int) {
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			c := in[y*w+x]
			out[y*w+x] = c + 0.2*(in[y*w+x-1]+in[y*w+x+1]+in[(y-1)*w+x]+in[(y+1)*w+x]-4*c)
		}
	}
}

// Stencil9 is a 3×3 weighted smoothing (1 2 1 / 2 4 2 / 1 2 1, over 16)
// of the interior of a w×h grid.
//
//qd:kernel
func Stencil9(out, in []float32, w, h int) {
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			corners := in[(y-1)*w+x-1] + in[(y-1)*w+x+1] + in[(y+1)*w+x-1] + in[(y+1)*w+x+1]
			edges := in[(y-1)*w+x] + in[y*w+x-1] + in[y*w+x+1] + in[(y+1)*w+x]
			out[y*w+x] = (corners + 2*edges + 4*in[y*w+x]) / 16
		}
	}
}

// JacobiStep is the first half of a Jacobi 2-D iteration on an n×n grid:
// b takes the mean of each interior point of a and its four neighbours.
//
//qd:kernel
func JacobiStep(b, a []float32, n int) {
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			b[i*n+j] = 0.2 * (a[i*n+j] + a[i*n+j-1] + a[i*n+j+1] + a[(i+1)*n+j] + a[(i-1)*n+j])
		}
	}
}

// JacobiCopy is the second half: the interior of b goes back into a.
//
//qd:kernel
func JacobiCopy(a, b []float32, n int) {
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			a[i*n+j] = b[i*n+j]
		}
	}
}

// FDTDEy is the first kernel of a time step of the 2-D finite-difference
// time-domain method on nx×ny fields: the first row of ey takes the
// source, the others the curl of hz.
//
//qd:kernel
func FDTDEy(ey, hz []float32, nx, ny int, source float32) {
	for i := range nx {
		for j := range ny {
			if i == 0 {
				ey[j] = source
			} else {
				ey[i*ny+j] -= 0.5 * (hz[i*ny+j] - hz[(i-1)*ny+j])
			}
		}
	}
}

// FDTDEx is the second kernel of the step: ex from the curl of hz.
//
//qd:kernel
func FDTDEx(ex, hz []float32, nx, ny int) {
	for i := range nx {
		for j := 1; j < ny; j++ {
			ex[i*ny+j] -= 0.5 * (hz[i*ny+j] - hz[i*ny+j-1])
		}
	}
}

// FDTDHz is the third kernel of the step: hz from the curls of ex and ey.
//
//qd:kernel
func FDTDHz(hz, ex, ey []float32, nx, ny int) {
	for i := range nx - 1 {
		for j := range ny - 1 {
			hz[i*ny+j] -= 0.7 * (ex[i*ny+j+1] - ex[i*ny+j] + ey[(i+1)*ny+j] - ey[i*ny+j])
		}
	}
}

// MatmulAcc is c += a·b for n×n matrices, summed in c as the textbook
// loop does.
//
//qd:kernel
func MatmulAcc(c, a, b []float32, n int) {
	for i := range n {
		for j := range n {
			for k := range n {
				c[i*n+j] += a[i*n+k] * b[k*n+j]
			}
		}
	}
}

// Gemm is c = alpha·a·b + beta·c for n×n matrices, summed in c.
//
//qd:kernel
func Gemm(c, a, b []float32, n int, alpha, beta float32) {
	for i := range n {
		for j := range n {
			c[i*n+j] *= beta
			for k := range n {
				c[i*n+j] += alpha * a[i*n+k] * b[k*n+j]
			}
		}
	}
}

// TriMul is c = l·b for a lower-triangular n×n l: row i of the product
// reads only the first i+1 columns of l.
//
//qd:kernel
func TriMul(c, l, b []float32, n int) {
	for i := range n {
		for j := range n {
			var sum float32
			for k := 0; k <= i; k++ {
				sum += l[i*n+k] * b[k*n+j]
			}
			c[i*n+j] = sum
		}
	}
}

// SyrkLower is the lower triangle of c = alpha·a·aᵀ + beta·c, for an n×m
// a, summed in c: row i of c belongs to iteration i alone, since j <= i < n.
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

// SymvLower is y = a·x for a symmetric n×n a of which only the lower
// triangle is read.
//
//qd:kernel
func SymvLower(y, a, x []float32, n int) {
	for i := range n {
		var sum float32
		for j := range n {
			sum += a[max(i, j)*n+min(i, j)] * x[j]
		}
		y[i] = sum
	}
}

// colNorm is the Euclidean norm of column k of a rows×cols matrix.
func colNorm(a []float32, k, rows, cols int) float32 {
	var sum float32
	for i := range rows {
		sum += a[i*cols+k] * a[i*cols+k]
	}
	return float32(math.Sqrt(float64(sum)))
}

// ColNorm stores the norm of column k in r[k*cols+k], as the first step
// of a Gram-Schmidt orthogonalization does: one thread's work.
//
//qd:kernel
func ColNorm(r, a []float32, k, rows, cols int) {
	r[k*cols+k] = colNorm(a, k, rows, cols)
}

// ColNorms is the norm of every column, one column an iteration.
//
//qd:kernel
func ColNorms(norms, a []float32, rows int) {
	for k := range len(norms) {
		norms[k] = colNorm(a, k, rows, len(norms))
	}
}
