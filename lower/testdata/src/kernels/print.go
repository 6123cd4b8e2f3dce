package kernels

import "fmt"

// PrintEach prints one line per element with println: each thread prints
// its own, in an order no one defines, and the loop stays parallel.
//
//qd:kernel
func PrintEach(a []int32, flags []bool, n int) {
	for i := range n {
		println("a[", i, "] =", a[i], flags[i], 2.5, "100%")
	}
}

// PrintNoNewline prints without spaces or a newline, as print does.
//
//qd:kernel
func PrintNoNewline(x uint8, y uint64) {
	print(x, y, "\n")
}

// Printf prints with the verbs device printf writes as Go does.
//
//qd:kernel
func Printf(a []float32, b []float64, u []uint32, n int) {
	for i := range n {
		fmt.Printf("%d: %8.3f %e %-10.2E|%05x %X %o %c %t %v %s %5.1f%%\n", i, a[i], b[i], a[i], u[i], u[i], u[i], 'A'+u[i]%26, a[i] > 0, i, "str", 2.25)
	}
}

// Println prints integers, bools and constants with fmt.Println.
//
//qd:kernel
func Println(a []int64, n int) {
	for i := range n {
		fmt.Println("a", i, a[i], a[i] < 0, 1.5)
	}
}

// PrintHelper prints from a helper, with no operands and without a
// newline of its own.
//
//qd:kernel
func PrintHelper(a []uint16) {
	fmt.Printf("start\n")
	println()
	for i := range a {
		report(i, a[i])
	}
}

func report(i int, v uint16) {
	if v > 100 {
		fmt.Printf("%d: %#o %c\n", i, v, v)
	}
}
