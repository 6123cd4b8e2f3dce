package main

import (
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/internal/devtest"
	"github.com/qdgo/qd/rt"
)

// grids include partial tiles and grids too small to have an interior.
var grids = [][2]int{{32, 32}, {70, 45}, {3, 100}, {2, 5}, {65, 33}}

func input(nx, ny int) []float32 {
	r := rand.New(rand.NewPCG(uint64(nx), uint64(ny)))
	xs := make([]float32, nx*ny)
	for i := range xs {
		xs[i] = r.Float32()
	}
	return xs
}

// sentinel fills the output first, so that writes to the border show.
const sentinel = -1

func filled(n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = sentinel
	}
	return xs
}

// Both kernels run as Go equal the textbook double loop, and leave the
// border alone.
func TestStencilsEqualNaive(t *testing.T) {
	for _, g := range grids {
		nx, ny := g[0], g[1]
		in := input(nx, ny)
		want := filled(nx * ny)
		for y := range ny {
			for x := range nx {
				if y > 0 && y < ny-1 && x > 0 && x < nx-1 {
					c := y*nx + x
					want[c] = 0.5*in[c] + 0.125*(in[c-nx]+in[c+nx]+in[c-1]+in[c+1])
				}
			}
		}
		for name, k := range map[string]func(in, out []float32, nx, ny int){"StencilHalo": StencilHalo, "StencilFlat": StencilFlat} {
			got := filled(nx * ny)
			k(in, got, nx, ny)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s %dx%d: out[%d] = %v, want %v", name, nx, ny, i, got[i], want[i])
				}
			}
		}
	}
}

// The kernels on the GPU and in the interpreter equal them run as Go.
func TestStencilsDevice(t *testing.T) {
	devtest.Each(t, func(t *testing.T, dev *rt.Device) {
		ks, err := Load(dev)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range grids {
			nx, ny := g[0], g[1]
			xs := input(nx, ny)
			want := filled(nx * ny)
			StencilHalo(xs, want, nx, ny)
			in := devtest.Upload(t, dev, xs)
			for name, k := range map[string]func(in, out *rt.Buffer[float32], nx, ny int, opts ...rt.LaunchOption) error{
				"StencilHalo": ks.StencilHalo, "StencilFlat": ks.StencilFlat,
			} {
				out := devtest.Upload(t, dev, filled(nx*ny))
				if err := k(in, out, nx, ny); err != nil {
					t.Fatal(err)
				}
				got := devtest.Read(t, out)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s %dx%d: out[%d] = %v, Go's is %v", name, nx, ny, i, got[i], want[i])
					}
				}
			}
		}
	})
}
