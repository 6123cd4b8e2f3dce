package types

import (
	"math"

	"github.com/qdgo/qd/rt"
)

type Named struct {
	X    float32
	Name string
}

type Outer struct {
	N     int32
	Inner [2]Inner
}

type Inner struct {
	A float64
	P *int
}

//qd:kernel
func StringField(ps []Named) { // want `kernel parameter ps has type \[\]Named: field Name of Named has type string, and strings are not supported; slice parameters hold numbers, bools, complex numbers, and structs and arrays of these`
	for i := range ps {
		ps[i].X = 1
	}
}

//qd:kernel
func NestedPointer(os []Outer) { // want `kernel parameter os has type \[\]Outer: field P of Inner has type \*int, and pointers are not supported`
	for i := range os {
		os[i].N = 1
	}
}

//qd:kernel
func ComplexParam(out []complex128, c complex128) { // want `kernel parameter c has type complex128: kernel parameters must be slices, numbers, bools, or structs and arrays of numbers and bools; pass a complex value as its real and imaginary parts, or in a slice of one element`
	for i := range out {
		out[i] = c
	}
}

type withMap struct {
	M map[int]int
	X int
}

//qd:kernel
func LocalWithMap(a []int) {
	for i := range a {
		var v withMap // want `local variable v of type withMap is not supported in kernels: field M of withMap has type map\[int\]int, and maps are not supported`
		v.X = i
		a[i] = v.X
	}
}

var computed = math.Sqrt(2)

var lut = [4]float32{1, 2, 3, 4}

func init() {
	lut[0] = 9
}

//qd:kernel
func Tables(a []float32) {
	for i := range a {
		a[i] = float32(computed) // want `package-level variable computed cannot be used in a kernel: its initial value is not a constant expression, so it is computed at run time`
		a[i] += lut[i%4]         // want `package-level variable lut cannot be used in a kernel: it may be changed at types.go:64 \(it is written there, or its address is passed on\)`
	}
}

//qd:kernel
func MixedSpaces(a []float32, c bool) {
	for i := range a {
		var local float32
		p := &local
		if c {
			p = &a[i]
		}
		*p = 1 // want `this pointer points to a local variable on one path and to a slice or table on another`
		a[i] += local
	}
}

//qd:kernel
func HugeCopy(out []float32) {
	var big [2000]float32
	big[len(out)%2000] = 1
	c := big // want `value of type \[2000\]float32 is not supported in kernels: a value of type \[2000\]float32 has 2000 scalars, more than a thread holds in registers \(1024\); index it where it lies instead of copying it`
	out[0] = sum(c)
}

func sum(a [2000]float32) float32 { return a[0] + a[1999] }

//qd:kernel
func SliceLiteral(out []float32) {
	s := []float32{1, 2, 3} // want `slice literals allocate memory, which kernels cannot do: use an array literal`
	out[0] = s[1]
}

//qd:kernel
func Pointers(a []float32) {
	for i := range a {
		x, y := 1, 2
		p, q := &x, &y
		if p == q { // want `operator == on \*int is not supported in kernels: pointers are not supported`
			a[i] = 1
		}
	}
}

// Host code: buffers whose elements kernels could not read.
var (
	_ *rt.Buffer[Named]                  // want `rt.Buffer of types.Named: field Name of Named has type string, and strings are not supported; buffers hold numbers, bools, complex numbers, and structs and arrays of these`
	_ = rt.Alloc[*int]                   // want `rt.Alloc of \*int: pointers are not supported`
	_ *rt.Buffer[struct{ A, B float64 }] // fine
	_ *rt.HostBuffer[[3]complex64]       // fine
)

func generic[T rt.Element](d *rt.Device) (*rt.Buffer[T], error) { return rt.Alloc[T](d, 1) }

//qd:kernel
func SharedAccumulator(a []float32) {
	var acc [4]float32 // want `local variable acc is used by a later top-level statement, which runs as a separate GPU launch and so must build it again, but it is changed after it is built`
	for i := range a {
		acc[i%4] += a[i]
	}
}

//qd:kernel
func PointerToEarlierIteration(a []float32) {
	for i := range a {
		var first float32
		p := &first // want `a pointer to variable v is kept from one iteration of this loop to the next`
		for k := range 3 {
			v := float32(k)
			*p += v
			p = &v
		}
		a[i] = first
	}
}
