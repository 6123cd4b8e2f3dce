// Command saxpy runs y = a*x + y on the GPU (or the CPU without one) and
// checks the result against the same Go function run on the host.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"time"

	"github.com/qdgo/qd/rt"
)

func main() {
	n := flag.Int("n", 1<<20, "number of elements")
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

	xs := make([]float32, *n)
	ys := make([]float32, *n)
	for i := range xs {
		xs[i] = rand.Float32()
		ys[i] = rand.Float32()
	}
	x, err := rt.FromSlice(dev, xs)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Free()
	y, err := rt.FromSlice(dev, ys)
	if err != nil {
		log.Fatal(err)
	}
	defer y.Free()

	start := time.Now()
	if err := ks.Saxpy(2.5, x, y, *n); err != nil {
		log.Fatal(err)
	}
	if err := dev.Synchronize(); err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)
	got, err := y.Read()
	if err != nil {
		log.Fatal(err)
	}

	// The oracle: the kernel is Go, so run it on the host.
	Saxpy(2.5, xs, ys, *n)
	bad := 0
	for i := range ys {
		if got[i] != ys[i] {
			bad++
		}
	}
	fmt.Printf("saxpy on %s: %d elements in %v, %d mismatches\n", dev, *n, elapsed, bad)
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}
