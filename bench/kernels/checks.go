package kernels

// The kernels of the bounds checks' benchmark: each comes twice, with its
// indices checked, as by default, and without (//qd:kernel nobounds). The
// indices are those a loop's test does not keep in range, whose checks
// stay.

// Gather reads table at the indices idx.
//
//qd:kernel
func Gather(out, table []float32, idx []int32) {
	for i := range idx {
		out[i] = table[idx[i]]
	}
}

// GatherUnchecked is Gather without bounds checks.
//
//qd:kernel nobounds
func GatherUnchecked(out, table []float32, idx []int32) {
	for i := range idx {
		out[i] = table[idx[i]]
	}
}

// Stencil averages each inner point of a w-wide grid with its four
// neighbours.
//
//qd:kernel
func Stencil(out, in []float32, w int) {
	for p := w; p < len(in)-w; p++ {
		out[p] = average5(in, p, w)
	}
}

// StencilUnchecked is Stencil without bounds checks.
//
//qd:kernel nobounds
func StencilUnchecked(out, in []float32, w int) {
	for p := w; p < len(in)-w; p++ {
		out[p] = average5(in, p, w)
	}
}

func average5(in []float32, p, w int) float32 {
	return (in[p-w] + in[p-1] + in[p] + in[p+1] + in[p+w]) * 0.2
}

// SaxpyUnchecked is Saxpy without bounds checks.
//
//qd:kernel nobounds
func SaxpyUnchecked(a float32, x, y []float32, n int) {
	for i := range n {
		y[i] = a*x[i] + y[i]
	}
}
