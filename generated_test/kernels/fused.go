package kernels

import "math"

// Fused lets its float multiplies and adds fuse (//qd:kernel fma): on the
// GPU, out is FusedReference's, whose math.FMA calls round x*y+out once,
// and may differ from Go's two roundings in the last bit. The product
// that an explicit conversion rounds is rounded: rounded is Go's bit for
// bit. Each loop is a task of its own, so no product is shared.
//
//qd:kernel fma
func Fused(out, rounded, x, y []float64, out32, x32, y32 []float32) {
	for i := range min(len(out), len(x), len(y)) {
		out[i] = x[i]*y[i] + out[i]
	}
	for i := range min(len(rounded), len(x), len(y)) {
		rounded[i] = float64(x[i]*y[i]) + rounded[i]
	}
	for i := range min(len(out32), len(x32), len(y32)) {
		out32[i] = x32[i]*y32[i] - out32[i]
	}
}

// FusedReference is Fused with math.FMA where the GPU fuses, for float64;
// Go has no float32 FMA, so out32 is left to a tolerance.
func FusedReference(out, rounded, x, y []float64, out32, x32, y32 []float32) {
	for i := range min(len(out), len(x), len(y)) {
		out[i] = math.FMA(x[i], y[i], out[i])
	}
	for i := range min(len(rounded), len(x), len(y)) {
		rounded[i] = float64(x[i]*y[i]) + rounded[i]
	}
	for i := range min(len(out32), len(x32), len(y32)) {
		out32[i] = float32(math.FMA(float64(x32[i]), float64(y32[i]), -float64(out32[i])))
	}
}
