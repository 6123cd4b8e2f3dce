package constructs

import (
	"fmt"
	"iter"
	"math"
	"strings"
)

// Each unsupported construct is reported at the construct, in the user's
// words, however it is written; every one in a kernel is reported in one
// run.

//qd:kernel
func GoClosure(a []int32) {
	for i := range a {
		go func() { a[i] = 1 }() // want `go statements are not supported in kernels`
	}
}

//qd:kernel
func DeferClosure(a []int32) {
	defer func() { a[0] = 1 }() // want `defer is not supported in kernels`
	a[1] = 2
}

//qd:kernel
func CapturingClosure(a []int32) {
	f := func(x int32) int32 { return x + a[0] } // want `function literals are only supported as the argument of qd.StreamParallel: declare a function instead`
	for i := range a {
		a[i] = f(int32(i))
	}
}

//qd:kernel
func LiteralCalledTwice(a []int32) {
	g := func(x int32) int32 { return x + 1 } // want `function literals are only supported`
	a[0] = g(1) + g(2)
}

//qd:kernel
func LiteralInHelper(a []int32) {
	a[0] = viaLiteral(3)
}

func viaLiteral(x int32) int32 {
	h := func() int32 { return x } // want `function literals are only supported`
	return h()
}

//qd:kernel
func EveryCall(a []float64) {
	for i := range a {
		a[i] = math.Sin(math.Cos(float64(i))) + math.Tan(1)
		fmt.Println(a[i])                            // want `fmt.Println of a float64 that is not constant is not supported in kernels`
		a[i] += float64(len(strings.Repeat("y", 2))) // want `strings.Repeat is not supported`
	}
}

type N int32

func (n N) double() int32 { return int32(n) * 2 }

//qd:kernel
func MethodValue(a []int32, t int32) {
	g := N(t).double // want `method values are not supported in kernels: call the method directly`
	a[0] = g()
}

func seq(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

//qd:kernel
func RangeFunc(a []int32) {
	for i := range a {
		for j := range seq(3) { // want `range over a function is not supported in kernels: range over an int or a slice`
			a[i] += int32(j)
		}
	}
}

// Helpers that write slices are inlined at every call; a kernel they would
// make too large is reported at the call that goes past the limit.

func w0(s []int32, x int32) int32  { s[0] = x; return x + 1 }
func w1(s []int32, x int32) int32  { return w0(s, w0(s, x)) } // want `inlining w0 here makes the kernel larger than 50000 instructions: a helper that reads or writes slices is copied into each call of it`
func w2(s []int32, x int32) int32  { return w1(s, w1(s, x)) }
func w3(s []int32, x int32) int32  { return w2(s, w2(s, x)) }
func w4(s []int32, x int32) int32  { return w3(s, w3(s, x)) }
func w5(s []int32, x int32) int32  { return w4(s, w4(s, x)) }
func w6(s []int32, x int32) int32  { return w5(s, w5(s, x)) }
func w7(s []int32, x int32) int32  { return w6(s, w6(s, x)) }
func w8(s []int32, x int32) int32  { return w7(s, w7(s, x)) }
func w9(s []int32, x int32) int32  { return w8(s, w8(s, x)) }
func w10(s []int32, x int32) int32 { return w9(s, w9(s, x)) }
func w11(s []int32, x int32) int32 { return w10(s, w10(s, x)) }
func w12(s []int32, x int32) int32 { return w11(s, w11(s, x)) }
func w13(s []int32, x int32) int32 { return w12(s, w12(s, x)) }
func w14(s []int32, x int32) int32 { return w13(s, w13(s, x)) }

//qd:kernel
func TooLarge(s []int32) {
	s[1] = w14(s, 1)
}
