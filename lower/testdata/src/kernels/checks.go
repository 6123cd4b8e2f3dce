package kernels

// Checked divides and slices: each division and bound is checked; the
// index of a loop over a slice needs no check.
//
//qd:kernel
func Checked(a, b []int64, lo, hi int) {
	s := a[lo:hi]
	for i := range s {
		s[i] /= b[i]
	}
}

// Unchecked gathers without bounds checks; its division is still checked.
//
//qd:kernel nobounds
func Unchecked(out, table []float32, idx []int32, d int32) {
	for i := range idx {
		out[i] = table[idx[i]/d]
	}
}
