// Package depend holds the dependence check's cases: parallel loops whose
// iterations conflict through memory are reported, at the access; the
// precise cases that must stay accepted have no want comment.
package depend

import (
	"sync/atomic"

	"github.com/qdgo/qd"
)

// The three kernels of the issue.

//qd:kernel
func Sum(out, x []float32) {
	for i := range x {
		out[0] += x[i] // want `every iteration of this parallel loop writes out\[0\]: iterations run at the same time, so their updates race and all but one are lost; accumulate in a variable declared before the loop instead \(a reduction, such as sum \+= x\[i\]\), use an atomic`
	}
}

//qd:kernel
func Histogram(data []byte, bins []uint32) {
	for _, b := range data {
		bins[b]++ // want `bins\[b\] is read, changed and written back by iterations of this parallel loop that run at the same time, at an index read from memory: the check cannot prove that two iterations never use the same index, and where they do, updates would be lost; add with qd.AtomicAdd\(&bins\[b\], \.\.\.\) instead, which is exact even where indexes repeat \(or atomic.AddUint32\)`
	}
}

//qd:kernel
func PrefixSum(x []float32) {
	for i := 1; i < len(x); i++ {
		x[i] += x[i-1] // want `x\[i-1\] reads an element that another iteration writes \(x\[i\] at depend.go:\d+:\d+\): iterations run at the same time, in no order`
	}
}

// More writes to one element from every iteration.

//qd:kernel
func Overwrite(out []int32, k int) {
	for i := range out {
		out[k] = int32(i) // want `every iteration of this parallel loop writes out\[k\]`
	}
}

//qd:kernel
func Maximum(x, m []float32) {
	for i := range x {
		if x[i] > m[0] {
			m[0] = x[i] // want `every iteration of this parallel loop writes m\[0\]`
		}
	}
}

//qd:kernel
func SameElements(out []float32, n int) {
	for i := range n {
		for j := range 4 {
			out[j] = float32(i) // want `every iteration of this parallel loop writes out\[j\]`
		}
	}
}

// Read-modify-writes whose index is not distinct per iteration.

//qd:kernel
func Halves(out, x []float32) {
	for i := range x {
		out[i/2] += x[i] // want `out\[i/2\] is read, changed and written back by iterations`
	}
}

//qd:kernel
func Gathered(out []float32, idx []int) {
	for i := range idx {
		out[idx[i]] *= 2 // want `out\[idx\[i\]\] is read, changed and written back`
	}
}

// A scatter that adds cannot be shown to use each element once, even
// when idx is a permutation: the message names the atomic that makes it
// exact.
//
//qd:kernel
func ScatterAdd(dst, v []float32, idx []int) {
	for i := range idx {
		dst[idx[i]] += v[i] // want `dst\[idx\[i\]\] is read, changed and written back by iterations of this parallel loop that run at the same time, at an index read from memory: the check cannot prove that two iterations never use the same index, and where they do, updates would be lost; add with qd.AtomicAdd\(&dst\[idx\[i\]\], \.\.\.\) instead`
	}
}

//qd:kernel
func ScatterScale(dst []float32, idx []int32) {
	for i := range idx {
		dst[idx[i]] *= 2 // want `dst\[idx\[i\]\] is read, changed and written back by iterations of this parallel loop that run at the same time, at an index read from memory: .*; use an atomic where one makes this update \(qd.AtomicAdd, qd.AtomicMin or qd.AtomicMax\), or loop over the elements written, so that each iteration owns its element`
	}
}

//qd:kernel
func Overlapping(out []int64, n int) {
	for i := range n {
		for j := range 3 {
			out[2*i+j] += 1 // want `out\[2\*i\+j\] is read, changed and written back`
		}
	}
}

// Reads and writes of elements other iterations write.

//qd:kernel
func NextElement(x []float32) {
	for i := range len(x) - 1 {
		x[i] = x[i] + x[i+1] // want `x\[i\+1\] reads an element that another iteration writes \(x\[i\] at depend.go:\d+:\d+\)`
	}
}

//qd:kernel
func FirstElement(x []float32) {
	for i := range x {
		x[i] *= x[0] // want `x\[0\] reads an element that another iteration writes`
	}
}

//qd:kernel
func VerticalStencil(a []float32, w, h int) {
	for y := 1; y < h; y++ {
		for x := range w {
			a[y*w+x] += a[(y-1)*w+x] // want `a\[\(y-1\)\*w\+x\] reads an element that another iteration writes \(a\[y\*w\+x\] at`
		}
	}
}

//qd:kernel
func Neighbors(a []float32) {
	for i := range len(a) - 1 {
		a[i] = 1
		a[i+1] = 2 // want `a\[i\+1\] writes an element that another iteration writes \(a\[i\] at depend.go:\d+:\d+\): iterations run at the same time, in no order, so which write remains is not defined`
	}
}

//qd:kernel
func Helper(a []int32) {
	for i := 1; i < len(a); i++ {
		addPrevious(a, i)
	}
}

func addPrevious(a []int32, i int) {
	a[i] += a[i-1] // want `a\[i-1\] reads an element that another iteration writes`
}

//qd:kernel
func ReadWhatLastWrites(out, x []float32, n int) {
	for i := range n {
		x[i] = out[0] // want `out\[0\] reads an element that another iteration writes \(out\[0\] at depend.go:\d+:\d+\)`
		if i == n-1 {
			out[0] = 1
		}
	}
}

//qd:kernel
func PlainBesideAtomic(count, out []int32) {
	for i := range out {
		atomic.AddInt32(&count[0], 1)
		out[i] = count[0] // want `count\[0\] is not atomic, but other iterations update the element atomically \(atomic.AddInt32\(&count\[0\], 1\) at depend.go:\d+:\d+\): use atomics for every access`
	}
}

// A triangle's row whose columns run past the row's end.
//
//qd:kernel
func TriangleOverrun(s []float32, m int) {
	for j1 := range m {
		for j2 := j1; j2 <= m; j2++ {
			s[j1*m+j2] += 1 // want `s\[j1\*m\+j2\] is read, changed and written back by iterations`
		}
	}
}

// Swaps with the partner, without the test that gives each pair to one
// iteration: both iterations of a pair swap.
//
//qd:kernel
func PartnersUntested(a []int32, j int) {
	for i := range a {
		ixj := i ^ j
		a[i], a[ixj] = a[ixj], a[i] // want `a\[ixj\] is read, changed and written back`
	}
}

// What stays accepted.

//qd:kernel
func Saxpy(a float32, x, y []float32) {
	for i := range y {
		y[i] = a*x[i] + y[i]
	}
}

//qd:kernel
func Image(out, in []float32, w, h int) {
	for y := range h {
		for x := range w {
			out[y*w+x] += in[y*w+x] * 2
		}
	}
}

//qd:kernel
func ColumnMajor(out []float32, w, h int) {
	for y := range h {
		for x := range w {
			out[x*h+y] += 1
		}
	}
}

//qd:kernel
func Flat(out []int32, w, h int) {
	for p := range w * h {
		x, y := p%w, p/w
		out[p] += int32(x + y)
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
func Pairs(a []float32) {
	for i := range len(a) / 2 {
		a[2*i] += 1
		a[2*i+1] = a[2*i]
	}
}

//qd:kernel
func Reverse(a []int32) {
	for i := range a {
		a[len(a)-1-i] += 1
	}
}

//qd:kernel
func Gather(dst, src []float32, idx []int) {
	for i := range dst {
		dst[i] = src[idx[i]]
	}
}

// A plain overwrite through an index read from memory is a permutation's
// scatter; with duplicate indexes one of the writes remains.
//
//qd:kernel
func Scatter(dst, src []float32, idx []int) {
	for i := range src {
		dst[idx[i]] = src[i]
	}
}

//qd:kernel
func FromIndex(b []int32) {
	for i := 1; i < len(b); i++ {
		b[i] += b[0] // iteration 0 would write b[0], but the loop starts at 1
	}
}

//qd:kernel
func NeverTrue(a []int32, n int) {
	for i := range n {
		if i < 0 {
			a[0] = 1
		}
	}
}

//qd:kernel
func OneIteration(a, x []int32) {
	for i := range x {
		if i == 3 {
			a[0] += x[i]
		}
	}
}

//qd:kernel
func LastIteration(out, x []float32, n int) {
	for i := range n {
		x[i] *= 2
		if i == n-1 {
			out[0] = x[i]
		}
	}
}

//qd:kernel
func Windows(sums, f []float64) {
	for i := range sums {
		s := 0.0
		for j := range 3 {
			if i+j < len(f) {
				s += f[i+j]
			}
		}
		sums[i] = s
	}
}

//qd:kernel
func Atomics(data []byte, bins []uint32, count, slots []int32, total []float64, peak []float32) {
	for i, b := range data {
		atomic.AddUint32(&bins[b], 1)
		slot := atomic.AddInt32(&count[0], 1) - 1
		slots[slot] = int32(i)
		qd.AtomicAdd(&total[0], float64(b))
		qd.AtomicMax(&peak[0], float32(b))
	}
}

//qd:kernel
func Phases(a, b []int32) {
	a[0] = 5
	for i := range a {
		a[i] += int32(i)
	}
	b[0] = a[0] + a[len(a)-1]
	for i := 1; i < len(b); i++ {
		b[i] += b[0]
	}
}

// Row j1 of a triangle belongs to iteration j1: its columns j2 run from
// j1+1 to m-1, so j1*m+j2 stays in the row.
//
//qd:kernel
func Triangle(s []float32, m int) {
	for j1 := range m {
		for j2 := j1 + 1; j2 < m; j2++ {
			s[j1*m+j2] += float32(j1 + j2)
		}
	}
}

//qd:kernel
func TriangleMax(s []float32, m, k int) {
	for j1 := range m {
		for j2 := max(j1+1, 0); j2 < m; j2++ {
			s[j1*m+j2] *= 2
		}
	}
}

// The lower triangle: row j1's columns run below j1.
//
//qd:kernel
func LowerTriangle(s []float64, m int) {
	for j1 := range m {
		for j2 := 0; j2 < j1; j2++ {
			s[j1*m+j2] -= s[j2*m+j1]
		}
	}
}

// The lower triangle with its diagonal, summed in place as a symmetric
// rank-k update does: j2 <= j1 < m keeps row j1 to iteration j1.
//
//qd:kernel
func LowerTriangleDiagonal(s, a []float32, m, k int) {
	for j1 := range m {
		for j2 := 0; j2 <= j1; j2++ {
			for l := range k {
				s[j1*m+j2] += a[j1*k+l] * a[j2*k+l]
			}
		}
	}
}

// A bitonic sort's stage: iteration i owns the pair i, i^j when i^j > i.
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

// Distinct iterations unless stride is 0: the kernel tests that at launch
// and runs the loop on one thread when it is 0.
//
//qd:kernel
func Strided(x []float32, stride int) {
	for i := range len(x) / 4 {
		x[i*stride] *= 2
	}
}

// Rows of a matrix whose row length is a parameter: distinct when each row
// holds its three elements, stride > 2.
//
//qd:kernel
func StridedRows(x []float32, stride int) {
	for i := range len(x) / 8 {
		for j := range 3 {
			x[i*stride+j] += 1
		}
	}
}

// The element a range statement reads is reported at the ranged slice.
//
//qd:kernel
func RangeValueShifted(x []int32) {
	for i, v := range x { // want `the element range x gives reads an element that another iteration writes \(x\[i\+1\] at depend.go:\d+:\d+\)`
		x[i+1] = v
	}
}
