package sp

import (
	"sync/atomic"

	"github.com/qdgo/qd"
)

func notAKernel(a []int32) {
	qd.StreamParallel(func() { a[0] = 1 }) // want `qd.StreamParallel can only be called at the top level of a //qd:kernel function; here it just runs its argument`
}

func helper(a []int32) {
	qd.StreamParallel(func() { a[0] = 1 }) // want `qd.StreamParallel can only be called at the top level of a //qd:kernel function, not in a function a kernel calls`
}

//qd:kernel
func CallsHelper(a []int32) {
	helper(a)
}

//qd:kernel
func InIf(a []int32, c bool) {
	if c {
		qd.StreamParallel(func() { a[0] = 1 }) // want `qd.StreamParallel must be a statement at the top level of the kernel, not inside if, for or switch`
	}
}

//qd:kernel
func InLoop(a []int32) {
	for i := range 3 {
		qd.StreamParallel(func() { a[i] = 1 }) // want `qd.StreamParallel must be a statement at the top level of the kernel, not inside if, for or switch`
	}
}

//qd:kernel
func Nested(a, b []int32) {
	qd.StreamParallel(func() {
		qd.StreamParallel(func() { a[0] = 1 }) // want `qd.StreamParallel blocks cannot be nested`
	})
	qd.StreamParallel(func() { b[0] = 1 })
}

//qd:kernel
func NotLiteral(a []int32) {
	f := func() { a[0] = 1 }
	qd.StreamParallel(f) // want `the argument of qd.StreamParallel must be a function literal`
}

func work() {}

//qd:kernel
func NamedFunction(a []int32) {
	qd.StreamParallel(work) // want `the argument of qd.StreamParallel must be a function literal`
	a[0] = 1
}

//qd:kernel
func Race(a, b []int32) {
	qd.StreamParallel(func() {
		for i := range a {
			a[i] = 1
		}
	})
	qd.StreamParallel(func() {
		for i := range a {
			a[i] += b[i] // want `data race on a between qd.StreamParallel blocks: a\[i\] writes elements that a\[i\] \(at sp.go:\d+:\d+\) writes in a block that runs at the same time`
		}
	})
}

//qd:kernel
func ReadWhileWritten(a, b []int32) {
	qd.StreamParallel(func() {
		b[0] = a[0]
	})
	qd.StreamParallel(func() {
		a[0] = 5 // want `data race on a between qd.StreamParallel blocks: a\[0\] writes elements that a\[0\] \(at sp.go:\d+:\d+\) reads`
	})
}

// Quadrants' own timing test: two blocks write different elements.
//
//qd:kernel
func DifferentElements(b []float32, n int) {
	qd.StreamParallel(func() {
		b[0] = spin(n)
	})
	qd.StreamParallel(func() {
		b[1] = spin(n)
	})
}

func spin(n int) float32 {
	x := float32(0)
	for j := range n {
		x += float32(j)
	}
	return x
}

// Two blocks share a slice split at one value.
//
//qd:kernel
func SplitRange(a []float32) {
	half := len(a) / 2
	qd.StreamParallel(func() {
		for i := range half {
			a[i] = 1
		}
	})
	qd.StreamParallel(func() {
		for i := half; i < len(a); i++ {
			a[i] = 2
		}
	})
}

// The ranges overlap at half.
//
//qd:kernel
func OverlappingRanges(a []float32, half int) {
	qd.StreamParallel(func() {
		for i := range half + 1 {
			a[i] = 1
		}
	})
	qd.StreamParallel(func() {
		for i := half; i < len(a); i++ {
			a[i] = 2 // want `data race on a between qd.StreamParallel blocks: a\[i\] writes elements that a\[i\] \(at sp.go:\d+:\d+\) writes`
		}
	})
}

// Blocks fill the two rows of a row-major matrix, and a block reads the
// element after the other's range.
//
//qd:kernel
func Rows(m, out []float32, w int) {
	qd.StreamParallel(func() {
		for x := range w {
			m[x] = 1
		}
		out[0] = m[2*w]
	})
	qd.StreamParallel(func() {
		for x := range w {
			m[w+x] = 2
		}
	})
}

// Atomics do not race with each other, even from two blocks; a plain
// read of what another block updates atomically does.
//
//qd:kernel
func AtomicBlocks(count []int32, out []int32, n int) {
	qd.StreamParallel(func() {
		for range n {
			atomic.AddInt32(&count[0], 1)
		}
	})
	qd.StreamParallel(func() {
		for i := range n {
			atomic.AddInt32(&count[0], int32(i))
		}
	})
	qd.StreamParallel(func() {
		out[0] = count[0] // want `data race on count between qd.StreamParallel blocks: count\[0\] reads elements that atomic.AddInt32\(&count\[0\], 1\) \(at sp.go:\d+:\d+\) writes`
	})
}

//qd:kernel
func AssignsKernelVariable(a []int32) {
	x := int32(0)
	qd.StreamParallel(func() {
		x = 5 // want `a qd.StreamParallel block cannot assign variables of its kernel`
	})
	a[0] = x
}

//qd:kernel
func Reassigned(a []int32, n int) {
	m := n // want `variable m is captured by a qd.StreamParallel block and assigned more than once`
	qd.StreamParallel(func() {
		for i := range m {
			a[i] = 1
		}
	})
	m = 3
	a[0] = int32(m)
}

// Separated blocks do not race: the plain statement between them orders
// them.
//
//qd:kernel
func Separated(a []int32, n int) {
	qd.StreamParallel(func() {
		for i := range n {
			a[i] = 1
		}
	})
	a[0] = 2
	qd.StreamParallel(func() {
		for i := range n {
			a[i] += 1
		}
	})
}

// Blocks race through what the helpers they call write, however large.
//
//qd:kernel
func RaceThroughFunction(a, b, c []int32) {
	qd.StreamParallel(func() {
		store6(a, 1)
		store6(b, 2)
	})
	qd.StreamParallel(func() {
		c[0] = a[0] // want `data race on a between qd.StreamParallel blocks: a\[0\] reads elements that dst\[0\] \(at sp.go:\d+:\d+\) writes in a block that runs at the same time`
	})
}

func store6(dst []int32, x int64) { dst[0] = int32(c4(c4(x)) + c4(c4(x+1))) }

func c0(x int64) int64 { return x*3 + 1 }
func c1(x int64) int64 { return c0(c0(x)) ^ 1 }
func c2(x int64) int64 { return c1(c1(x)) ^ 2 }
func c3(x int64) int64 { return c2(c2(x)) ^ 3 }
func c4(x int64) int64 { return c3(c3(x)) ^ 4 }

// The element a range statement reads has no index expression: the race
// is reported at the ranged slice.
//
//qd:kernel
func RaceRangeValue(a, b []int32) {
	qd.StreamParallel(func() {
		for i := range a {
			a[i] = 1
		}
	})
	qd.StreamParallel(func() {
		for i, x := range a { // want `data race on a between qd.StreamParallel blocks: the element range a gives reads elements that a\[i\] \(at sp.go:\d+:\d+\) writes in a block that runs at the same time`
			b[i] = x
		}
	})
}

// Pair is the element of RaceFieldAndCopy's slice.
type Pair struct {
	A int32
	B float64
}

// A field of an element, and an element copied whole, are named as the
// source writes them.
//
//qd:kernel
func RaceFieldAndCopy(a []Pair, b []int32) {
	qd.StreamParallel(func() {
		for i := range a {
			a[i].A = 1
		}
	})
	qd.StreamParallel(func() {
		for i := range b {
			p := a[i] // want `data race on a between qd.StreamParallel blocks: a\[i\] reads elements that a\[i\].A \(at sp.go:\d+:\d+\) writes`
			b[i] = p.A
		}
	})
}

// A struct built under a condition (its || is one) cannot be built again
// by the blocks that read its fields.
//
//qd:kernel
func BuiltUnderCondition(n int, a, b []int32) {
	s := Pair{A: int32(n), B: 1} // want `variable s is read by a qd.StreamParallel block, whose launches must build it again, but it is built under a condition or in a loop`
	if n%2 == 0 || n%3 == 0 {
		s.B = 2
	}
	qd.StreamParallel(func() {
		for i := range a {
			a[i] = s.A
		}
	})
	qd.StreamParallel(func() {
		b[0] = int32(s.B)
	})
}

// Flag is the struct of FieldUnderCondition.
type Flag struct {
	A int32
	D bool
}

// A field's value computed with || puts the whole struct under a
// condition.
//
//qd:kernel
func FieldUnderCondition(n int, a, b []int32) {
	s := Flag{A: int32(n), D: n%2 == 0 || n%3 == 0} // want `variable s is read by a qd.StreamParallel block`
	qd.StreamParallel(func() {
		for i := range a {
			a[i] = s.A
		}
	})
	qd.StreamParallel(func() {
		if s.D {
			b[0] = 1
		}
	})
}
