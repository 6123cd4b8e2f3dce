package kernels

// Gather reads table at the indices idx: an index outside the table is a
// fault. Each line has one check, so that the CPU backend, which knows
// lines, names the same column as the GPU.
//
//qd:kernel
func Gather(out, table []float32, idx []int32) {
	for i := range idx {
		v := table[idx[i]]
		out[i] = v
	}
}

// Ratio divides a by b: a zero in b is a fault.
//
//qd:kernel
func Ratio(q, a, b []int64) {
	for i := range q {
		q[i] = a[i] / b[i]
	}
}

// Window copies a[lo:hi] into out: bounds out of order or past a's end
// are a fault, found by a serial statement.
//
//qd:kernel
func Window(out, a []int32, lo, hi int) {
	w := a[lo:hi]
	for i := range w {
		out[i] = w[i]
	}
}

// Unsigned indexes with a uint, which a fault prints as unsigned.
//
//qd:kernel
func Unsigned(out []uint8, at uint) {
	out[0] = 1
	out[at] = 2
}
