package main

import (
	"log"

	"github.com/qdgo/qd/bench/suite"
	"github.com/qdgo/qd/rt"
)

// cases uploads the inputs of every kernel, drawn as suite.cu draws them,
// in the same order and with the same sizes.
func cases(dev *rt.Device, ks *suite.Kernels) []benchCase {
	u32 := func(seed uint64) func(uint64) float32 { return func(i uint64) float32 { return suite.Unit32(seed, i) } }
	u64 := func(seed uint64) func(uint64) float64 { return func(i uint64) float64 { return suite.Unit64(seed, i) } }
	var cs []benchCase
	add := func(name string, launch func() error, sum func() (uint64, error)) {
		cs = append(cs, benchCase{"suite", name, launch, sum})
	}
	{
		w, h := 4096, 4096
		in, out := upload(dev, suite.Fill(w*h, u32(1))), zeros[float32](dev, w*h)
		add("Stencil2D", func() error { return ks.Stencil2D(out, in, w, h) }, sum(out))
	}
	{
		w, h, d := 256, 256, 256
		in, out := upload(dev, suite.Fill(w*h*d, u32(2))), zeros[float32](dev, w*h*d)
		add("Stencil3D", func() error { return ks.Stencil3D(out, in, w, h, d) }, sum(out))
	}
	{
		n := 1024
		a, b, c := upload(dev, suite.Fill(n*n, u32(3))), upload(dev, suite.Fill(n*n, u32(4))), zeros[float32](dev, n*n)
		add("Matmul", func() error { return ks.Matmul(c, a, b, n) }, sum(c))
	}
	{
		w, h := 4096, 4096
		in := upload(dev, suite.Fill(w*h, func(i uint64) uint8 { return uint8(suite.Rand(5, i)) }))
		out := zeros[uint8](dev, w*h)
		add("Blur", func() error { return ks.Blur(out, in, w, h) }, sum(out))
	}
	{
		n := 1 << 24
		in := upload(dev, suite.Fill(n, func(i uint64) int { return int(suite.Rand(6, i) >> 24) }))
		out := zeros[int](dev, n)
		add("DigitSum", func() error { return ks.DigitSum(out, in, 10) }, sum(out))
	}
	{
		n := 1 << 24
		spot := upload(dev, suite.Fill(n, func(i uint64) float32 { return 50 + 100*suite.Unit32(7, i) }))
		out := zeros[float32](dev, n)
		add("Options", func() error { return ks.Options(out, spot, 100) }, sum(out))
	}
	{
		n := 16384
		px, py, pz := upload(dev, suite.Fill(n, u32(8))), upload(dev, suite.Fill(n, u32(9))), upload(dev, suite.Fill(n, u32(10)))
		ax, ay, az := zeros[float32](dev, n), zeros[float32](dev, n), zeros[float32](dev, n)
		sx, sy, sz := sum(ax), sum(ay), sum(az)
		add("NBody", func() error { return ks.NBody(ax, ay, az, px, py, pz) }, func() (uint64, error) {
			x, err1 := sx()
			y, err2 := sy()
			z, err3 := sz()
			return x ^ y*3 ^ z*5, firstError(err1, err2, err3)
		})
	}
	{
		w, h := 2048, 2048
		counts := zeros[int32](dev, w*h)
		add("Mandelbrot64", func() error { return ks.Mandelbrot64(counts, w, h, 256) }, sum(counts))
		add("Mandelbrot32", func() error { return ks.Mandelbrot32(counts, w, h, 256) }, sum(counts))
	}
	{
		n := 1 << 24
		seeds := upload(dev, suite.Fill(n, func(i uint64) uint32 { return uint32(suite.Rand(11, i)) }))
		out := zeros[uint32](dev, n)
		add("Xorshift", func() error { return ks.Xorshift(out, seeds, 256) }, sum(out))
	}
	{
		m, n := 16384, 4096
		a, x, y := upload(dev, suite.Fill(m*n, u32(12))), upload(dev, suite.Fill(n, u32(13))), zeros[float32](dev, m)
		add("MatVec", func() error { return ks.MatVec(y, a, x, n) }, sum(y))
	}
	{
		n := 1 << 25
		x, y := upload(dev, suite.Fill(n, u64(14))), upload(dev, suite.Fill(n, u64(15)))
		add("Daxpy", func() error { return ks.Daxpy(2.5, x, y) }, sum(y))
	}
	{
		n := 1 << 24
		keys := upload(dev, suite.Fill(n, func(i uint64) uint64 { return suite.Rand(16, i) }))
		out := zeros[uint64](dev, n)
		add("Hash", func() error { return ks.Hash(out, keys, 16) }, sum(out))
	}
	{
		w, h := 4096, 4096
		in, out := upload(dev, suite.Fill(w*h, u64(17))), zeros[float64](dev, w*h)
		add("Transpose", func() error { return ks.Transpose(out, in, w, h) }, sum(out))
	}
	return append(cs, nestCases(dev, ks)...)
}

func upload[T rt.Number](dev *rt.Device, s []T) *rt.Buffer[T] {
	b, err := rt.FromSlice(dev, s)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func zeros[T rt.Number](dev *rt.Device, n int) *rt.Buffer[T] {
	b, err := rt.Alloc[T](dev, n)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

// sum reads a buffer back and hashes it as suite.cu does.
func sum[T rt.Number](b *rt.Buffer[T]) func() (uint64, error) {
	return func() (uint64, error) {
		s, err := b.Read()
		return suite.FNV(s), err
	}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
