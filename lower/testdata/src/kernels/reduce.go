package kernels

// Sum is a float reduction over a slice, read by a later statement.
//
//qd:kernel
func Sum(x, out []float32) {
	var sum float32
	for i := range x {
		sum += x[i]
	}
	out[0] = sum
}

// Range has two reductions in a loop tested at its end, from a start that
// is a parameter, read by a later loop.
//
//qd:kernel
func Range(x []int32, n int, floor int32, out []int32) {
	lo, hi := floor, floor
	for i := range n {
		lo = min(lo, x[i])
		hi = max(hi, x[i])
	}
	for i := range out {
		out[i] = hi - lo
	}
}
