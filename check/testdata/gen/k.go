package gen

import "github.com/qdgo/qd"

//qd:kernel
func Sum(out, x []float32) {
	for i := range x {
		out[0] += x[i]
	}
}

//qd:kernel
func Histogram(data []byte, bins []uint32) {
	for _, b := range data {
		bins[b]++
	}
}

//qd:kernel
func PrefixSum(x []float32) {
	for i := 1; i < len(x); i++ {
		x[i] += x[i-1]
	}
}

//qd:kernel
func Saxpy(a float32, x, y []float32) {
	for i := range y {
		y[i] = a*x[i] + y[i]
	}
}

//qd:kernel
func Triples(out, x []float32) {
	for i := range len(x) / 3 {
		for j := range 3 {
			out[3*i+j] += x[i]
		}
	}
}

//qd:kernel
func Triangle(s []float32, m int) {
	for j1 := range m {
		for j2 := j1 + 1; j2 < m; j2++ {
			s[j1*m+j2] += 1
		}
	}
}

//qd:kernel
func Bitonic(a []int32, j int) {
	for i := range a {
		ixj := i ^ j
		if ixj > i {
			a[i], a[ixj] = a[ixj], a[i]
		}
	}
}

//qd:kernel
func Strided(x []float32, stride int) {
	for i := range len(x) {
		x[i*stride] *= 2
	}
}

//qd:kernel
func Scatter(dst, v []float32, idx []int) {
	for i := range idx {
		dst[idx[i]] += v[i]
	}
}

//qd:kernel
func Blocks(a, b []float32) {
	qd.StreamParallel(func() {
		for i := range a {
			a[i] += 1
		}
	})
	qd.StreamParallel(func() {
		for i := range a {
			b[i] = a[i]
		}
	})
}

//qd:kernel
func TriangleMax(s []float32, m int) {
	for j1 := range m {
		for j2 := max(j1+1, 0); j2 < m; j2++ {
			s[j1*m+j2] *= 2
		}
	}
}

//qd:kernel
func TriangleOverrun(s []float32, m int) {
	for j1 := range m {
		for j2 := j1; j2 <= m; j2++ {
			s[j1*m+j2] += 1
		}
	}
}

//qd:kernel
func PartnersUntested(a []int32, j int) {
	for i := range a {
		ixj := i ^ j
		a[i], a[ixj] = a[ixj], a[i]
	}
}

//qd:kernel
func StridedRows(x []float32, stride int) {
	for i := range len(x) / 8 {
		for j := range 3 {
			x[i*stride+j] += 1
		}
	}
}

//qd:kernel
func Overlapping(out []int64, n int) {
	for i := range n {
		for j := range 3 {
			out[2*i+j] += 1
		}
	}
}

//qd:kernel
func LowerTriangle(s []float64, m int) {
	for j1 := range m {
		for j2 := 0; j2 < j1; j2++ {
			s[j1*m+j2] -= s[j2*m+j1]
		}
	}
}
