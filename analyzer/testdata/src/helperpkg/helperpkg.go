package helperpkg

import "strings"

func Twice(x int32) int32 { return 2 * x } // want Twice:"qd: callable from kernels \\(pure\\)"

func Store(s []int32, i int, v int32) { s[i] = v } // want Store:"qd: callable from kernels"

func Upper(s string) string { return strings.ToUpper(s) } // want Upper:"not callable from kernels: parameter s has type string"

func Allocates(n int) int { // want Allocates:"not callable from kernels: make allocates memory"
	s := make([]int, n)
	return len(s)
}
