package kernels

import "fmt"

// Prints writes three lines for each element, with println, fmt.Printf
// and fmt.Println; what it prints, not its slices, is what the tests
// compare with Go's output, line for line in any order.
//
//qd:kernel
func Prints(a []int32, u []uint64, f []float64, n int) {
	for i := range n {
		println("i", i, "a", a[i], a[i] > 0, "u", u[i], 0.25)
		fmt.Printf("%3d|%-6d|%+d|%08.3f|%+.4e|%12.3E|%x|%X|%#o|%t|%-6t|%c|%s|%5.1f%%\n",
			i, a[i], a[i], f[i], f[i], f[i], uint32(a[i]), u[i], uint16(a[i]), a[i]%2 == 0, f[i] < 0, 'a'+i%26, "end", 99.95)
		fmt.Println(i, u[i], a[i] < 0, "x")
	}
}
