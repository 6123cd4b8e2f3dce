package kernels

// This file holds loops whose iterations the dependence check proves
// distinct by more than their indexes' form: a triangle's rows, the pairs
// of a bitonic sort's stage, and strides known only at launch, where the
// loop runs on one thread when the stride would make iterations meet.

// UpperTriangle adds to the upper triangle of an m×m matrix, row j1 in
// iteration j1.
//
//qd:kernel
func UpperTriangle(s []float32, m int) {
	for j1 := range m {
		for j2 := j1 + 1; j2 < m; j2++ {
			s[j1*m+j2] += float32(j1 - j2)
		}
	}
}

// UpperTriangleMax is UpperTriangle with its columns starting at max(j1+1, 0).
//
//qd:kernel
func UpperTriangleMax(s []float32, m int) {
	for j1 := range m {
		for j2 := max(j1+1, 0); j2 < m; j2++ {
			s[j1*m+j2] *= 2
		}
	}
}

// LowerTriangle updates the lower triangle of an m×m matrix from the
// upper one, row j1 in iteration j1.
//
//qd:kernel
func LowerTriangle(s []float32, m int) {
	for j1 := range m {
		for j2 := 0; j2 < j1; j2++ {
			s[j1*m+j2] -= s[j2*m+j1] * 0.5
		}
	}
}

// BitonicStage is one compare-and-swap stage of a bitonic sort of a, whose
// length is a power of two: iteration i owns the pair i, i^j when i^j > i.
//
//qd:kernel
func BitonicStage(a []int32, j, k int) {
	for i := range a {
		ixj := i ^ j
		if ixj > i {
			if (i&k == 0) == (a[i] > a[ixj]) {
				a[i], a[ixj] = a[ixj], a[i]
			}
		}
	}
}

// RuntimeStride updates every stride-th element: in parallel when stride
// is not 0, and on one thread, in Go's order, when it is.
//
//qd:kernel
func RuntimeStride(x []float32, stride int) {
	for i := range len(x) / 4 {
		x[i*stride] = x[i*stride]*2 + float32(i)
	}
}

// RuntimeStrideRows updates three elements of each row of a matrix with
// rows of stride elements: in parallel when the rows do not overlap,
// stride > 2.
//
//qd:kernel
func RuntimeStrideRows(x []float32, stride int) {
	for i := range len(x) / 8 {
		for j := range 3 {
			x[i*stride+j] = x[i*stride+j]*3 + float32(i-j)
		}
	}
}
