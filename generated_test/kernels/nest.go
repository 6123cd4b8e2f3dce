package kernels

// This file holds kernels whose loops are nested: perfectly nested loops
// run as one parallel loop, and the others as Go runs them.

// Grid2D writes a function of both indices of a 2-D range.
//
//qd:kernel
func Grid2D(out []float32, w int) {
	h := len(out) / w
	for y := range h {
		for x := range w {
			out[y*w+x] = float32(x) - 2*float32(y)
		}
	}
}

// Rows has three-clause loops and computes a value of the outer index
// between them.
//
//qd:kernel
func Rows(out, in []float64, w int, s float64) {
	h := min(len(out), len(in)) / w
	for y := 0; y < h; y++ {
		row := y * w
		for x := 0; x < w; x++ {
			out[row+x] += in[row+x] * s * float64(y+1)
		}
	}
}

// Volume is a 3-D stencil over the interior of a volume, each level
// starting at 1.
//
//qd:kernel
func Volume(out, in []float32, w, h int) {
	d := min(len(out), len(in)) / (w * h)
	for z := 1; z < d-1; z++ {
		for y := 1; y < h-1; y++ {
			for x := 1; x < w-1; x++ {
				i := (z*h+y)*w + x
				out[i] = in[i-1] + in[i+1] + in[i-w] + in[i+w] + in[i-w*h] + in[i+w*h] - 6*in[i]
			}
		}
	}
}

// NarrowIndices nests loops over indices of narrow types, signed and
// unsigned, that start below zero or end at the type's limit.
//
//qd:kernel
func NarrowIndices(out []int64, nx uint8, lo int16) {
	for y := int32(-3); y < int32(len(out)/(int(nx)+1))-3; y++ {
		for x := uint8(0); x < nx; x++ {
			out[int(y+3)*(int(nx)+1)+int(x)] = int64(y)*1000 + int64(x)
		}
	}
	for a := lo; a < lo+2; a++ {
		for b := range 3 {
			if i := int(a-lo)*3 + b; i < len(out) {
				out[i] += int64(a)
			}
		}
	}
}

// Triangle's inner loop depends on the outer index and carries a value:
// it runs serially in each parallel iteration.
//
//qd:kernel
func Triangle(out []int32, n int) {
	for y := range min(n, len(out)) {
		s := int32(0)
		for x := range y + 1 {
			s += int32(x)
		}
		out[y] = s
	}
}

// Before writes between the loops, so only the outer loop is parallel.
//
//qd:kernel
func Before(out []float32, w int) {
	h := len(out) / w
	for y := range h {
		out[y*w] = -1
		for x := 1; x < w; x++ {
			out[y*w+x] = out[y*w+x-1] + float32(x)
		}
	}
}

// FillAll and Scale2D are helpers whose loops run in parallel when a kernel
// calls them as statements of its own.
func FillAll(out []float32, v float32) {
	for i := range out {
		out[i] = v
	}
}

// Scale2D scales a 2-D range.
func Scale2D(out []float32, w int, s float32) {
	h := len(out) / w
	for y := range h {
		for x := range w {
			out[y*w+x] *= s * float32(x+1)
		}
	}
}

// countUp's loop is not a counted loop: it runs serially, as any loop of a
// helper that cannot run in parallel.
func countUp(out []float32) {
	n := 1
	for n < len(out) {
		out[n] += float32(n)
		n *= 2
	}
}

// HelperLoops calls helpers with loops at its top level.
//
//qd:kernel
func HelperLoops(out []float32, w int, v float32) {
	FillAll(out, v)
	Scale2D(out, w, 2)
	countUp(out)
	out[0] = -v
}

// RowPrefix's loops are perfectly nested, but each row's iterations
// depend on each other: the inner loop runs serially in each row, as in Go.
//
//qd:kernel
func RowPrefix(a []float32, w int) {
	h := len(a) / w
	for y := range h {
		for x := 1; x < w; x++ {
			a[y*w+x] += a[y*w+x-1]
		}
	}
}

// MatAcc sums products into c in memory, as the textbook loop does, with
// a three-clause inner loop that may run no iteration (k = 0): the inner
// loop keeps c[i*n+j] in a register where c overlaps neither a nor b.
//
//qd:kernel
func MatAcc(c, a, b []float32, n, k int) {
	for i := range n {
		for j := range n {
			for p := 0; p < k; p++ {
				c[i*n+j] += float32(a[i*k+p] * b[p*n+j])
			}
		}
	}
}

// SyrkTri is the lower triangle of c = alpha·a·aᵀ + beta·c: the j loop
// follows i (j <= i), so the (i, j) pairs run over the square around the
// triangle, those above the diagonal doing nothing, and k runs serially.
//
//qd:kernel
func SyrkTri(c, a []float32, n, m int, alpha, beta float32) {
	for i := range n {
		for j := 0; j <= i; j++ {
			c[i*n+j] *= beta
			for k := range m {
				c[i*n+j] += alpha * a[i*m+k] * a[j*m+k]
			}
		}
	}
}

// TriangleShapes writes below, on and above the diagonal of an n×n out
// through triangular nests of every form: j < i, j := i + 1, a
// three-level nest whose innermost bounds follow both levels outside it,
// and one whose innermost bound follows the outermost index.
//
//qd:kernel
func TriangleShapes(below, above []int32, cube []int64, n int) {
	for i := range n {
		for j := range i {
			below[i*n+j] = int32(i*1000 + j)
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			above[i*n+j] += int32(j - i)
		}
	}
	for i := range n {
		for j := range i + 1 {
			for k := j; k <= i; k++ {
				cube[(i*n+j)*n+k] = int64(i*100 + j*10 + k)
			}
		}
	}
	for i := range n {
		for j := range n {
			for k := range i {
				cube[(i*n+j)*n+k] += int64(k)
			}
		}
	}
}

// NarrowTriangles nests triangular loops over indices of narrow types,
// up to the types' limits: an int8 j <= i with i reaching 126, a uint8
// j := i + 1, and a uint8 j := i - 1 that wraps at i = 0 (where Go's
// inner loop runs no iteration, since j is then 255).
//
//qd:kernel
func NarrowTriangles(out []int32, lo int8, nx uint8) {
	for i := lo; i < 127; i++ {
		for j := int8(-128); j <= i; j++ {
			if k := (int(i)-int(lo))*256 + int(j) + 128; k < len(out) {
				out[k] = int32(j)
			}
		}
	}
	for i := uint8(0); i < nx; i++ {
		for j := i + 1; j < nx; j++ {
			if k := int(i)*int(nx) + int(j); k < len(out) {
				out[k] ^= int32(k)
			}
		}
	}
	for i := uint8(0); i < nx; i++ {
		for j := i - 1; j < nx; j++ {
			if k := int(i)*(int(nx)+1) + int(j); k < len(out) {
				out[k] += 7
			}
		}
	}
}

// TriangleSum sums the lower triangle of a into total[0], a reduction over
// a triangular nest, and writes the lower triangle of square ranging over
// the slice diag, whose loop tests its index plus 1.
//
//qd:kernel
func TriangleSum(total, a, diag, square []int64) {
	n := len(diag)
	var s int64
	for i := range n {
		for j := range i + 1 {
			s += a[i*n+j]
		}
	}
	total[0] = s
	for i := range diag {
		for j := 0; j <= i; j++ {
			square[i*len(diag)+j] = diag[i] + int64(j)
		}
	}
}
