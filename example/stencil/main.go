// Command stencil applies a 5-point stencil to a float32 grid on the GPU
// (or the CPU without one), once with a shared tile and its halo per
// block and once as a plain loop nest, and checks both against the
// kernels run as Go.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/qdgo/qd/example/internal/timing"
	"github.com/qdgo/qd/rt"
)

func main() {
	nx := flag.Int("nx", 4096, "columns of the grid")
	ny := flag.Int("ny", 4096, "rows of the grid")
	reps := flag.Int("reps", 10, "timed runs after a first one")
	flag.Parse()
	log.SetFlags(0)

	dev, err := rt.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	ks, err := Load(dev)
	if err != nil {
		log.Fatal(err)
	}

	n := *nx * *ny
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = r.Float32()
	}
	in, err := rt.FromSlice(dev, xs)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Free()

	// The oracle: the kernels are Go, so run one on the host. Both give
	// the same grid, since they compute each point in the same order.
	want := make([]float32, n)
	StencilFlat(xs, want, *nx, *ny)

	kernels := []struct {
		name string
		run  func(in, out *rt.Buffer[float32], nx, ny int, opts ...rt.LaunchOption) error
	}{
		{"StencilHalo", ks.StencilHalo},
		{"StencilFlat", ks.StencilFlat},
	}
	bad := 0
	for _, k := range kernels {
		out, err := rt.Alloc[float32](dev, n)
		if err != nil {
			log.Fatal(err)
		}
		defer out.Free()
		per, err := timing.Per(dev, *reps, func() error { return k.run(in, out, *nx, *ny) })
		if err != nil {
			log.Fatal(err)
		}
		got, err := out.Read()
		if err != nil {
			log.Fatal(err)
		}
		mismatches := 0
		for i := range want {
			if got[i] != want[i] {
				mismatches++
			}
		}
		// Each point is read and written once, at best.
		fmt.Printf("%s: %.3f ms per run, %.1f GB/s, %dx%d on %s, %d mismatches\n",
			k.name, timing.MS(per), 8*float64(n)/per.Seconds()/1e9, *ny, *nx, dev, mismatches)
		bad += mismatches
	}
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}
