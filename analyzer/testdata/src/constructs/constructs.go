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
		a[i] = math.Sin(math.Cos(float64(i))) + math.Exp(1) // want `math.Sin is not supported` `math.Cos is not supported` `math.Exp is not supported`
		fmt.Println(i)                                      // want `fmt.Println is not supported in kernels: printing is not`
		a[i] += float64(len(strings.Repeat("y", 2)))        // want `strings.Repeat is not supported`
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
