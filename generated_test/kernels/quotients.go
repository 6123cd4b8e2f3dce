package kernels

import "math/bits"

// Quotients divides with math/bits, which panics on a zero divisor and on
// a quotient that overflows: Div64 at the call, as Go's compiler checks it
// on amd64, Rem32 in Go's source.
//
//qd:kernel
func Quotients(hi, lo, y, q []uint64, r []uint32) {
	for i := range q {
		q[i], _ = bits.Div64(hi[i], lo[i], y[i])
		r[i] = bits.Rem32(uint32(hi[i]), uint32(lo[i]), uint32(y[i]))
	}
}
