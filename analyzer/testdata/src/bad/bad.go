package bad

import (
	"strings"
	"sync/atomic"

	"helperpkg"
)

var global int32

type pair struct{ a, b int32 }

//qd:kernel
func Goroutine(a []int32) {
	for i := range a {
		go work(a, i) // want `go statements are not supported in kernels`
	}
}

func work(a []int32, i int) { a[i] = 1 }

//qd:kernel
func Defer(a []int32) {
	defer work(a, 0) // want `defer is not supported in kernels`
	a[0] = 2
}

//qd:kernel
func Maps(a []int32) {
	m := map[int]int{} // want `maps are not supported in kernels`
	a[0] = int32(len(m))
}

//qd:kernel
func Channels(a []int32) {
	c := make(chan int32) // want `channels are not supported in kernels`
	a[0] = <-c
}

//qd:kernel
func Strings(a []int32) {
	a[0] = int32(len(strings.ToUpper("x"))) // want `strings.ToUpper is not supported in kernels: kernels may call functions of your own packages and of packages math, math/bits and math/cmplx`
}

//qd:kernel
func Globals(a []int32) {
	a[0] = global // want `package-level variable global cannot be used in a kernel: it may be changed at bad.go:49 \(it is written there, or its address is passed on\); kernels read only package-level variables that nothing changes after initialization \(constant tables\)`
	global = a[1] // want `package-level variable global is written in a kernel: kernels may only read package-level variables, as constant tables; write results into a slice parameter`
}

//qd:kernel
func Allocation(a []int32) {
	s := make([]int32, 4) // want `make allocates memory`
	a[0] = s[0]
	t := make([]int32, len(a)) // want `make allocates memory`
	a[1] = t[0]
}

//qd:kernel
func Append(a []int32) {
	a = append(a, 1) // want `append is not supported in kernels`
}

//qd:kernel
func Panics(a []int32) {
	if len(a) == 0 {
		panic(1) // want `panic is not supported in kernels`
	}
	a[0] = 1
}

//qd:kernel
func Prints(a []int32) {
	println(a) // want `println of slices of int32 is not supported in kernels`
}

//qd:kernel
func Closure(a []int32) {
	f := func() int32 { return 1 } // want `function literals are only supported as the argument of qd.StreamParallel`
	a[0] = f()
}

//qd:kernel
func Recursion(a []int32) {
	a[0] = fact(5)
}

func fact(n int32) int32 {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1) // want `recursive call of fact: kernels cannot recurse; use a loop`
}

type withSlice struct {
	N    int
	Data []float32
}

//qd:kernel
func SliceInStruct(p withSlice, a []float32) { // want `kernel parameter p has type withSlice, and p.Data has type \[\]float32: a struct or array parameter is passed by value and may hold only numbers, bools, and structs and arrays of these; pass a slice, pointer or string as a parameter of its own, and complex numbers as their real and imaginary parts`
	a[0] = p.Data[0]
}

//qd:kernel
func ComplexInArray(p [2]complex64, a []complex64) { // want `kernel parameter p has type \[2\]complex64, and p\[0\] has type complex64: a struct or array parameter`
	a[0] = p[0]
}

//qd:kernel
func Returns(a []int32) int32 { // want `kernel Returns returns results: kernels return nothing; write results into a slice parameter`
	return a[0]
}

//qd:kernel
func (p pair) Method(a []int32) { // want `kernel Method is a method: a kernel must be a plain function`
	a[0] = 1
}

//qd:kernel
func Break(a []int32) {
	for i := range a {
		if a[i] < 0 {
			break // want `break in a parallel loop is not supported`
		}
		a[i] = 1
	}
}

//qd:kernel
func Carried(a []int32) {
	sum := int32(0)
	for i := range a {
		sum += a[i]
		a[i] = sum // want `variable sum is carried from one iteration of this parallel loop to the next`
	}
}

//qd:kernel
func EarlyReturn(a []int32, n int) {
	if n == 0 {
		return // want `return before the end of a kernel is not supported: its top-level statements run as separate GPU launches that a return cannot skip; test the condition inside each loop that follows instead \(for i := range n \{ if !done \{ \.\.\. \} \}\), which keeps the loop parallel`
	}
	for i := range n {
		a[i] = 1
	}
}

//qd:kernel
func FromMemory(a []int32) {
	first := a[0] // want `this value is computed by an earlier top-level statement`
	for i := range a {
		a[i] = first
	}
}

//qd:kernel
func NotCounted(a []int32) {
	x := 1
	for x < 100 { // want `top-level loop cannot run in parallel: it has no index that starts at a value and goes up by 1`
		x *= 2
	}
	a[0] = int32(x)
}

//qd:kernel
func External(a []int32) {
	a[0] = int32(helperpkg.Allocates(3)) // want `helperpkg.Allocates cannot be called from a kernel: make allocates memory`
}

//qd:kernel
type notAFunction int // want `//qd:kernel must be in the doc comment of a function declaration, not of a type declaration`

//qd:kernel
func AtomicOnLocal(a []int32) {
	n := int32(0) // want `variable n is updated with an atomic, but local variables belong to one thread and need none; atomics update slice elements, as atomic.AddInt32\(&s\[i\], 1\)`
	atomic.AddInt32(&n, 1)
	a[0] = n
}

type params struct {
	N     int
	Scale [4]float32
}

// ParamsFromSlice copies its parameters out of a slice for two launches,
// which cannot load them again: a struct parameter is the way.
//
//qd:kernel
func ParamsFromSlice(ps []params, x, y []float32) {
	p := ps[0]           // want `local variable p is used by a later top-level statement, which runs as a separate GPU launch and so must build it again, but it is built from a value that depends on memory \(such as a slice element\) or on control flow, which a later launch cannot compute again: declare it inside each loop that uses it, or build it once, in straight-line code, from parameters and constants \(a struct or array parameter is passed by value\)`
	for i := range p.N { // want `this value is computed by an earlier top-level statement`
		y[i] = x[i] * p.Scale[i%4]
	}
	for i := range p.N { // want `this value is computed by an earlier top-level statement`
		x[i] = p.Scale[i%4]
	}
}
