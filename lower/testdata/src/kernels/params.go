package kernels

// Params are the parameters of SaxpyParams, passed by value.
type Params struct {
	A     float32
	N     int
	Scale [2]float32
}

// SaxpyParams computes y = a*x + y over the first p.N elements, each
// scaled by p.Scale[i%2]: a struct parameter whose field sizes the launch.
//
//qd:kernel
func SaxpyParams(p Params, x, y []float32) {
	for i := range p.N {
		y[i] = p.A*x[i]*p.Scale[i%2] + y[i]
	}
}
