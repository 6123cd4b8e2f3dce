// Package print holds kernels that print: what device printf writes as Go
// does is accepted, and everything else is reported at the call, naming
// the verb or the operand and what to write instead.
package print

import "fmt"

//qd:kernel
func Good(a []int32, u []uint16, f []float32, n int) {
	for i := range n {
		println("a", i, a[i], a[i] > 0, 1.5, "100%")
		print(u[i], "\n")
		fmt.Printf("%d %5d %-5d %+d %05d %x %X %o %c %t %v %v %e %.3f %8.2E %s %% %g\n",
			i, a[i], a[i], a[i], a[i], u[i], u[i], u[i], u[i], a[i] > 0, a[i], a[i] < 0, f[i], f[i], f[i], "const", 2.5)
		fmt.Println("a", i, a[i], a[i] > 0, 2.5)
	}
}

//qd:kernel
func FloatPrintln(f []float64, n int) {
	for i := range n {
		println(f[i]) // want `^println of a float64 that is not constant is not supported in kernels: Go prints the shortest decimal that reads back as the value, which device printf cannot compute: print it with fmt.Printf and %e or %f`
	}
}

//qd:kernel
func ComplexPrint(c []complex64) {
	print(c[0]) // want `^print of a complex64 that is not constant is not supported in kernels`
}

//qd:kernel
func FloatV(f []float32) {
	fmt.Printf("%v\n", f[0]) // want `^fmt.Printf's %v of a float is not supported in kernels: %v prints the shortest decimal that reads back as the value, which device printf cannot compute; use %e or %f`
}

//qd:kernel
func FloatG(f []float64) {
	fmt.Printf("%8.3g\n", f[0]) // want `^fmt.Printf's %8.3g of a float is not supported in kernels`
}

//qd:kernel
func SignedHex(a []int32) {
	fmt.Printf("%x\n", a[0]) // want `^fmt.Printf's %x of a signed integer is not supported in kernels: Go writes a minus sign where device printf writes the two's complement; convert the value to an unsigned type`
}

//qd:kernel
func Quoted(a []int32) {
	fmt.Printf("%q\n", a[0]) // want `^fmt.Printf's %q of an integer is not supported in kernels: use %d, %x, %X, %o or %c`
}

//qd:kernel
func Binary(a []uint8) {
	fmt.Printf("%b\n", a[0]) // want `^fmt.Printf's %b of an integer is not supported in kernels`
}

//qd:kernel
func BoolD(a []bool) {
	fmt.Printf("%d\n", a[0]) // want `^fmt.Printf's %d of a bool is not supported in kernels: use %t`
}

//qd:kernel
func SharpHex(a []uint32) {
	fmt.Printf("%#x\n", a[0]) // want `^fmt.Printf's flag '#' in %#x is not supported in kernels: device printf writes it otherwise than Go`
}

//qd:kernel
func StarWidth(a []int32, w int) {
	fmt.Printf("%*d\n", w, a[0]) // want `^fmt.Printf's %\* in a kernel: widths and argument indexes must be written in the format`
}

//qd:kernel
func Results(a []int32) {
	n, _ := fmt.Printf("%d\n", a[0]) // want `^the results of fmt.Printf are not supported in kernels: call it as a statement`
	a[1] = int32(n)
}

//qd:kernel
func Sprintf(a []int32) {
	fmt.Print(a[0]) // want `^fmt.Print is not supported in kernels: use fmt.Printf or fmt.Println`
}

//qd:kernel
func FloatPrintlnFmt(f []float64) {
	fmt.Println(f[0]) // want `^fmt.Println of a float64 that is not constant is not supported in kernels`
}

// Level has a String method, which fmt calls and print does not.
type Level int32

func (l Level) String() string { return "level" } // want String:"not callable from kernels: String returns .string."

//qd:kernel
func Stringer(a []Level) {
	println(a[0])
	fmt.Printf("%d\n", a[0]) // want `^fmt.Printf of a print.Level is not supported in kernels: fmt calls its String method, which device printf cannot; print int32\(x\)`
}

//qd:kernel
func UnsignedPlus(a []uint32) {
	fmt.Printf("%+d\n", a[0]) // want `^fmt.Printf's flag '\+' in %\+d is not supported in kernels: device printf writes it otherwise than Go`
}
