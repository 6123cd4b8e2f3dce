package suite

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qdgo/qd/rt"
)

// TestSuite runs every benchmark kernel on small inputs on the default
// backend (the GPU when there is one, else the CPU) and compares the
// output with the Go function's, bit for bit.
func TestSuite(t *testing.T) { testSuite(t, rt.Open) }

// TestSuiteGPU does the same on the GPU, and skips without one.
func TestSuiteGPU(t *testing.T) {
	testSuite(t, func(...rt.Option) (*rt.Device, error) { return rt.Open(rt.WithBackend(rt.CUDA)) })
}

func testSuite(t *testing.T, open func(...rt.Option) (*rt.Device, error)) {
	dev, err := open()
	if err != nil {
		t.Skipf("no device: %v", err)
	}
	defer dev.Close()
	ks, err := Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	f32 := func(n int) []float32 { return Fill(n, func(uint64) float32 { return float32(r.NormFloat64()) }) }
	w, h, d := 37, 23, 5
	check(t, dev, "Stencil2D", f32(w*h), make([]float32, w*h), func(in, out []float32) { Stencil2D(out, in, w, h) },
		func(in, out *rt.Buffer[float32]) error { return ks.Stencil2D(out, in, w, h) })
	check(t, dev, "Stencil3D", f32(w*h*d), make([]float32, w*h*d), func(in, out []float32) { Stencil3D(out, in, w, h, d) },
		func(in, out *rt.Buffer[float32]) error { return ks.Stencil3D(out, in, w, h, d) })
	bytes := Fill(w*h, func(uint64) uint8 { return uint8(r.Uint32()) })
	check(t, dev, "Blur", bytes, make([]uint8, w*h), func(in, out []uint8) { Blur(out, in, w, h) },
		func(in, out *rt.Buffer[uint8]) error { return ks.Blur(out, in, w, h) })
	ints := Fill(999, func(uint64) int { return int(r.Uint64() >> r.IntN(64)) })
	for _, base := range []int{10, 7, 1 << 33} {
		check(t, dev, "DigitSum", ints, make([]int, len(ints)), func(in, out []int) { DigitSum(out, in, base) },
			func(in, out *rt.Buffer[int]) error { return ks.DigitSum(out, in, base) })
	}
	spot := Fill(999, func(uint64) float32 { return 50 + 100*float32(r.Float64()) })
	check(t, dev, "Options", spot, make([]float32, len(spot)), func(in, out []float32) { Options(out, in, 100) },
		func(in, out *rt.Buffer[float32]) error { return ks.Options(out, in, 100) })
	n := 19
	check(t, dev, "Matmul", f32(2*n*n), make([]float32, n*n), func(in, out []float32) { Matmul(out, in[:n*n], in[n*n:], n) },
		func(in, out *rt.Buffer[float32]) error {
			return ks.Matmul(out, in.Slice(0, n*n), in.Slice(n*n, 2*n*n), n)
		})
	check(t, dev, "MatVec", f32(n*w+w), make([]float32, n), func(in, out []float32) { MatVec(out, in[:n*w], in[n*w:], w) },
		func(in, out *rt.Buffer[float32]) error {
			return ks.MatVec(out, in.Slice(0, n*w), in.Slice(n*w, n*w+w), w)
		})
	check(t, dev, "Mandelbrot32", []int32{0}, make([]int32, w*h), func(_, out []int32) { Mandelbrot32(out, w, h, 64) },
		func(_, out *rt.Buffer[int32]) error { return ks.Mandelbrot32(out, w, h, 64) })
	check(t, dev, "Mandelbrot64", []int32{0}, make([]int32, w*h), func(_, out []int32) { Mandelbrot64(out, w, h, 64) },
		func(_, out *rt.Buffer[int32]) error { return ks.Mandelbrot64(out, w, h, 64) })
	seeds := Fill(999, func(uint64) uint32 { return r.Uint32() })
	check(t, dev, "Xorshift", seeds, make([]uint32, len(seeds)), func(in, out []uint32) { Xorshift(out, in, 37) },
		func(in, out *rt.Buffer[uint32]) error { return ks.Xorshift(out, in, 37) })
	keys := Fill(999, func(uint64) uint64 { return r.Uint64() })
	check(t, dev, "Hash", keys, make([]uint64, len(keys)), func(in, out []uint64) { Hash(out, in, 5) },
		func(in, out *rt.Buffer[uint64]) error { return ks.Hash(out, in, 5) })
	f64 := Fill(w*h, func(uint64) float64 { return r.NormFloat64() })
	check(t, dev, "Transpose", f64, make([]float64, w*h), func(in, out []float64) { Transpose(out, in, w, h) },
		func(in, out *rt.Buffer[float64]) error { return ks.Transpose(out, in, w, h) })
	check(t, dev, "Daxpy", f64, slices.Clone(f64), func(in, out []float64) { Daxpy(-1.5, in, out) },
		func(in, out *rt.Buffer[float64]) error { return ks.Daxpy(-1.5, in, out) })
	p := f32(3 * 300)
	check(t, dev, "NBody", p, make([]float32, 3*300), func(in, out []float32) { NBody(out[:300], out[300:600], out[600:], in[:300], in[300:600], in[600:]) },
		func(in, out *rt.Buffer[float32]) error {
			return ks.NBody(out.Slice(0, 300), out.Slice(300, 600), out.Slice(600, 900), in.Slice(0, 300), in.Slice(300, 600), in.Slice(600, 900))
		})
}

// check runs a kernel through its stub and as Go on the same input and
// compares the outputs bit for bit.
func check[T, U rt.Number](t *testing.T, dev *rt.Device, name string, in []T, out []U, goFn func(in []T, out []U), launch func(in *rt.Buffer[T], out *rt.Buffer[U]) error) {
	t.Helper()
	want := slices.Clone(out)
	goFn(slices.Clone(in), want)
	inBuf, err := rt.FromSlice(dev, in)
	if err != nil {
		t.Fatal(err)
	}
	defer inBuf.Free()
	outBuf, err := rt.FromSlice(dev, out)
	if err != nil {
		t.Fatal(err)
	}
	defer outBuf.Free()
	if err := launch(inBuf, outBuf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := outBuf.Read()
	if err != nil {
		t.Fatal(err)
	}
	if FNV(got) != FNV(want) {
		for i := range got {
			if FNV(got[i:i+1]) != FNV(want[i:i+1]) {
				t.Errorf("%s: element %d is %v, Go computes %v", name, i, got[i], want[i])
				return
			}
		}
	}
}
