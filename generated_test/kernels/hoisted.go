package kernels

// Kernels whose index checks the compiler takes out of their loops: each
// checked index is on a line of its own, so that a fault's line names it
// on every backend.

// Offsets adds each point's neighbours at distances 1 and w, as a
// stencil does.
//
//qd:kernel
func Offsets(out, in []float32, w int) {
	for p := w; p < len(in)-w; p++ {
		a := in[p-w]
		b := in[p-1]
		c := in[p+1]
		d := in[p+w]
		out[p] = a + b + c + d
	}
}

// Reverse copies in backwards into out.
//
//qd:kernel
func Reverse(out, in []int32) {
	for i := range in {
		v := in[i]
		out[len(out)-1-i] = v
	}
}

// Strided reads indices that grow by 2 and by 3.
//
//qd:kernel
func Strided(out, in []int64, c int) {
	for i := range out {
		a := in[2*i+1]
		b := in[3*i+c]
		out[i] = a - b
	}
}

// RowWindows copies a window of each row of a matrix: in the inner loop the
// index grows with x from a start that is the same for the whole row.
//
//qd:kernel
func RowWindows(out, in []float64, w, stride, off int) {
	for y := range len(out) / w {
		for x := range w {
			v := in[y*stride+x+off]
			out[y*w+x] = v
		}
	}
}

// Columns sums each column of a matrix of n columns: the index grows by
// n, known only at run time.
//
//qd:kernel
func Columns(sums, m []float32, n, rows int) {
	for j := range sums {
		var s float32
		for k := range rows {
			s += m[k*n+j]
		}
		sums[j] = s
	}
}

// Span weighs in[lo:hi] by each output's index, through an inner loop
// from lo to hi.
//
//qd:kernel
func Span(out, in []int64, lo, hi int) {
	for i := range out {
		var s int64
		for k := lo; k < hi; k++ {
			s += in[k] * int64(i)
		}
		out[i] = s
	}
}

// TableLookup reads a table at bytes: indices below 256 whatever the data.
//
//qd:kernel
func TableLookup(out, table []uint16, data []uint8) {
	for i, b := range data {
		v := table[b]
		out[i] = v
	}
}

// Guarded reads where the data says: a check under a condition.
//
//qd:kernel
func Guarded(out, in []int32, d int) {
	for i := range out {
		if in[i] > 0 {
			v := in[i+d]
			out[i] = v
		}
	}
}

// Fixed reads one element in every iteration.
//
//qd:kernel
func Fixed(out, in []float32, k int) {
	for i := range out {
		v := in[k]
		out[i] = v * in[i]
	}
}

// Digits sums the digits of each value in a base known only at run time:
// the check of the divisor leaves the digit loop, which does not change it.
//
//qd:kernel
func Digits(out, in []int, base int) {
	for i := range out {
		x := in[i]
		s := 0
		for x > 0 {
			s += x % base
			x /= base
		}
		out[i] = s
	}
}
