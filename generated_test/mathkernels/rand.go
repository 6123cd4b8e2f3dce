package mathkernels

import "github.com/qdgo/qd/rand"

// Random draws every kind of number of package rand at counter i.
//
//qd:kernel
func Random(seed uint64, u32 []uint32, u64 []uint64, f32 []float32, f64, norm []float64) {
	for i := range u32 {
		c := uint64(i)
		u32[i] = rand.Uint32(seed, c)
		u64[i] = rand.Uint64(seed, c)
		f32[i] = rand.Float32(seed, c)
		f64[i] = rand.Float64(seed, c)
		norm[i] = rand.NormFloat64(seed, c)
	}
}

// MonteCarloPi counts, for each element of hits, how many of samples
// random points of the unit square fall in the quarter circle: the four
// words of one block give two points.
//
//qd:kernel
func MonteCarloPi(seed uint64, samples int, hits []int) {
	for i := range hits {
		n := 0
		for j := 0; j < samples; j += 2 {
			a, b, c, d := rand.Block(seed, uint64(i*samples+j))
			x, y := float64(a)*0x1p-32, float64(b)*0x1p-32
			if x*x+y*y < 1 {
				n++
			}
			x, y = float64(c)*0x1p-32, float64(d)*0x1p-32
			if x*x+y*y < 1 && j+1 < samples {
				n++
			}
		}
		hits[i] = n
	}
}
