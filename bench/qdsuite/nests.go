package main

import (
	"github.com/qdgo/qd/bench/suite"
	"github.com/qdgo/qd/rt"
)

// nestCases uploads the inputs of the loop nests of bench/suite/nests.go,
// drawn as bench/baseline/nests.cu draws them, in the same order and with
// the same sizes. Kernels that share an output run in the same order
// there, so that each checksum is of the same memory.
func nestCases(dev *rt.Device, ks *suite.Kernels) []benchCase {
	u32 := func(seed uint64) func(uint64) float32 { return func(i uint64) float32 { return suite.Unit32(seed, i) } }
	var cs []benchCase
	add := func(name string, launch func() error, sum func() (uint64, error)) {
		cs = append(cs, benchCase{"nests", name, launch, sum})
	}
	{
		w, h := 4096, 4096
		a, b := upload(dev, suite.Fill(w*h, u32(21))), zeros[float32](dev, w*h)
		add("Conv2D", func() error { return ks.Conv2D(b, a, w, h) }, sum(b))
		add("Stencil5", func() error { return ks.Stencil5(b, a, w, h) }, sum(b))
		add("Stencil9", func() error { return ks.Stencil9(b, a, w, h) }, sum(b))
	}
	{
		w, h, d := 256, 256, 256
		a, b := upload(dev, suite.Fill(w*h*d, u32(22))), zeros[float32](dev, w*h*d)
		add("Conv3D", func() error { return ks.Conv3D(b, a, w, h, d) }, sum(b))
	}
	{
		n := 4096
		a, b := upload(dev, suite.Fill(n*n, u32(23))), zeros[float32](dev, n*n)
		add("Jacobi2D", func() error {
			return firstError(ks.JacobiStep(b, a, n), ks.JacobiCopy(a, b, n))
		}, sums(sum(a), sum(b)))
	}
	{
		nx, ny := 4096, 4096
		ex, ey, hz := upload(dev, suite.Fill(nx*ny, u32(24))), upload(dev, suite.Fill(nx*ny, u32(25))), upload(dev, suite.Fill(nx*ny, u32(26)))
		add("FDTD2D", func() error {
			return firstError(ks.FDTDEy(ey, hz, nx, ny, 0.25), ks.FDTDEx(ex, hz, nx, ny), ks.FDTDHz(hz, ex, ey, nx, ny))
		}, sums(sum(ex), sum(ey), sum(hz)))
	}
	{
		n := 1024
		a, b := upload(dev, suite.Fill(n*n, u32(27))), upload(dev, suite.Fill(n*n, u32(28)))
		c0 := suite.Fill(n*n, u32(29))
		c1, c2, c3, c4 := upload(dev, c0), upload(dev, c0), zeros[float32](dev, n*n), upload(dev, c0)
		add("MatmulAcc", func() error { return ks.MatmulAcc(c1, a, b, n) }, sum(c1))
		add("Gemm", func() error { return ks.Gemm(c2, a, b, n, 1.5, 0.5) }, sum(c2))
		add("TriMul", func() error { return ks.TriMul(c3, a, b, n) }, sum(c3))
		add("SyrkLower", func() error { return ks.SyrkLower(c4, a, n, n, 1.5, 0.5) }, sum(c4))
	}
	{
		n := 8192
		a, x, y := upload(dev, suite.Fill(n*n, u32(30))), upload(dev, suite.Fill(n, u32(31))), zeros[float32](dev, n)
		add("SymvLower", func() error { return ks.SymvLower(y, a, x, n) }, sum(y))
	}
	{
		rows, cols := 4096, 4096
		a := upload(dev, suite.Fill(rows*cols, u32(32)))
		r, norms := zeros[float32](dev, rows*cols), zeros[float32](dev, cols)
		add("ColNorm", func() error { return ks.ColNorm(r, a, 7, rows, cols) }, sum(r))
		add("ColNorms", func() error { return ks.ColNorms(norms, a, rows) }, sum(norms))
	}
	return cs
}

// sums combines the checksums of several outputs as the CUDA C does:
// the first, xor the second times 3, xor the third times 5.
func sums(parts ...func() (uint64, error)) func() (uint64, error) {
	return func() (uint64, error) {
		var total uint64
		for i, part := range parts {
			s, err := part()
			if err != nil {
				return 0, err
			}
			total ^= s * uint64(2*i+1)
		}
		return total, nil
	}
}
