package kernels

// The kernels of the non-coherent loads' tests: each has a variant that
// reads in through the non-coherent cache, which launches take only when
// out does not overlap in.

// Carry adds 1 along out, reading each previous element from in: when in
// and out are the same buffer, each iteration reads what the one before
// wrote, which a non-coherent load could miss. The loop is not at the
// top level, so it runs serially, as in Go.
//
//qd:kernel
func Carry(out, in []int32) {
	if len(out) > 0 && len(in) >= len(out) {
		for i := 1; i < len(out); i++ {
			out[i] = in[i-1] + 1
		}
	}
}

// Blend mixes in into out in parallel; each iteration reads and writes
// its own element, so any overlap of out and in gives Go's result.
//
//qd:kernel
func Blend(out, in []float32, a float32) {
	for i := range min(len(out), len(in)) {
		out[i] = out[i]*a + in[i]
	}
}
