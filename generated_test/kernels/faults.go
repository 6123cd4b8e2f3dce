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

// Tag writes the kinds of the bodies at the indices idx: an index outside
// bs is a fault, reported with bs's length in elements.
//
//qd:kernel
func Tag(bs []Body, idx []int32) {
	for i := range idx {
		bs[idx[i]].Kind = uint8(i)
	}
}

// Taps weights x by the element k of a local array, which lives in the
// thread's local memory: k outside the array is a fault.
//
//qd:kernel
func Taps(out, x []float32, k int) {
	taps := [4]float32{0.5, 1, 2, 4}
	for i := range min(len(out), len(x)) {
		out[i] = x[i] * taps[k]
	}
}

// Smoothed reads the constant table gauss5 at the indices idx: an index
// outside the table is a fault.
//
//qd:kernel
func Smoothed(out []float32, idx []int32) {
	for i := range min(len(out), len(idx)) {
		out[i] = gauss5[idx[i]]
	}
}

// Outer writes the outer product of a and b into out, row by row, in a
// loop nest whose own tests keep a and b's indices in range: out shorter
// than len(a)·len(b) is a fault.
//
//qd:kernel
func Outer(out, a, b []float32) {
	for y := range len(a) {
		for x := range len(b) {
			out[y*len(b)+x] = a[y] * b[x]
		}
	}
}
