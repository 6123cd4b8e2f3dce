package kernels

// Fused may fuse its multiplies and adds (//qd:kernel fma): x*y + w and
// 3 - x*w fuse; the products that an explicit conversion rounds, or that
// are a call's only argument, stay rounded.
//
//qd:kernel fma
func Fused(out []float64, x, y, w []float64, u []float32) {
	for i := range out {
		out[i] = x[i]*y[i] + w[i] - float64(y[i]*w[i])
		out[i] += 3 - x[i]*w[i] + half(x[i]*x[i])
		u[i] = float32(u[i]*u[i]) + 1
	}
}

func half(v float64) float64 { return v / 2 }
