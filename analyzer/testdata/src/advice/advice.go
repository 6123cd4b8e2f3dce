// Package advice holds constructs whose diagnostic says what to do
// instead, reported once for each construct.
package advice

//qd:kernel
func MapLiteral(a []int32) {
	m := map[int]int32{1: 2, 3: 4} // want `^maps are not supported in kernels: index a slice or an array by the key, or make the map a constant table`
	a[0] = m[1]
}

//qd:kernel
func MapUpdate(a []int32) {
	m := map[int32]int32{} // want `^maps are not supported in kernels`
	m[a[0]] = 1            // reported where the map is made, not again here
	a[1] = m[2]
}

const digits = "0123456789"

//qd:kernel
func StringIndex(a []int32) {
	for i := range a {
		a[i] = int32(digits[i%10]) // want `^indexing strings is not supported in kernels: make the string a table of bytes \(var digits = \[\.\.\.\]byte\{'0', '1', \.\.\.\}\), or pass a \[\]byte parameter$`
	}
}

//qd:kernel
func AppendCarried(a, out []int32) {
	var r []int32
	for i := range a {
		r = append(r, a[i]) // want `^append is not supported in kernels: a kernel cannot grow a slice; pass a slice parameter of the length you need and write its elements by index \(out\[i\] = v\), or, to keep only some values, take the next index from a counter with atomic.AddInt32$`
	}
	out[0] = r[0]
}

//qd:kernel
func AppendTop(a, out []int32) {
	r := out[:0]
	r = append(r, a[0]) // want `^append is not supported in kernels: a kernel cannot grow a slice`
	out[1] = r[0]
}
