package kernels

// SaxpyParams are the parameters of SaxpyP, passed by value.
type SaxpyParams struct {
	A     float32
	N     int
	Scale [4]float32
	Skip  bool
}

// SaxpyP computes y = a*x + y over the first p.N elements, scaling each by
// p.Scale[i%4], and leaves y alone when p.Skip is set: a struct parameter
// whose field bounds the parallel loop.
//
//qd:kernel
func SaxpyP(p SaxpyParams, x, y []float32) {
	for i := range p.N {
		if !p.Skip {
			y[i] = p.A*x[i]*p.Scale[i%4] + y[i]
		}
	}
}

// Taps4 applies a filter of four taps passed by value as an array.
//
//qd:kernel
func Taps4(w [4]float32, x, out []float32) {
	for i := range out {
		var acc float32
		for j := range w {
			if k := i + j; k < len(x) {
				acc += w[j] * x[k]
			}
		}
		out[i] = acc
	}
}
