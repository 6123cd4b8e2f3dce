// Command transpose transposes a float32 matrix through shared tiles on
// the GPU (or the CPU without one) and checks the result against the
// kernel run as Go.
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
	height := flag.Int("height", 4096, "rows of the input")
	width := flag.Int("width", 4096, "columns of the input")
	reps := flag.Int("reps", 3, "timed runs after a first one")
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

	n := *height * *width
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
	out, err := rt.Alloc[float32](dev, n)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Free()

	per, err := timing.Per(dev, *reps, func() error { return ks.Transpose(in, out, *height, *width) })
	if err != nil {
		log.Fatal(err)
	}
	got, err := out.Read()
	if err != nil {
		log.Fatal(err)
	}
	// Each element is read once and written once.
	fmt.Printf("Transpose: %.3f ms per run, %.1f GB/s, %dx%d on %s\n",
		timing.MS(per), 8*float64(n)/per.Seconds()/1e9, *height, *width, dev)

	// The oracle: the kernel is Go, so run it on the host.
	want := make([]float32, n)
	Transpose(xs, want, *height, *width)
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			bad++
		}
	}
	fmt.Printf("%d mismatches\n", bad)
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}
