// Command scan computes the inclusive prefix sum of int32 values on the
// GPU (or the CPU without one), by reduce-then-scan over tiles, and checks
// it against the same steps run as Go.
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
	n := flag.Int("n", 1<<24, "number of elements")
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

	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]int32, *n)
	for i := range xs {
		xs[i] = int32(r.Uint32())
	}
	x, err := rt.FromSlice(dev, xs)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Free()
	y, err := rt.Alloc[int32](dev, *n)
	if err != nil {
		log.Fatal(err)
	}
	defer y.Free()
	// Each level's tile sums and their prefix sums.
	var sums, scanned []*rt.Buffer[int32]
	for _, size := range levels(*n) {
		for _, list := range []*[]*rt.Buffer[int32]{&sums, &scanned} {
			b, err := rt.Alloc[int32](dev, size)
			if err != nil {
				log.Fatal(err)
			}
			defer b.Free()
			*list = append(*list, b)
		}
	}

	per, err := timing.Per(dev, *reps, func() error { return prefixSum(ks, x, y, *n, sums, scanned) })
	if err != nil {
		log.Fatal(err)
	}
	got, err := y.Read()
	if err != nil {
		log.Fatal(err)
	}
	// Each element is read twice (once per pass) and written once.
	fmt.Printf("PrefixSum: %.3f ms per run, %.1f GB/s of input and output, %d int32 on %s\n",
		timing.MS(per), 8*float64(*n)/per.Seconds()/1e9, *n, dev)

	// The oracle: the kernels are Go, so run the same steps on the host.
	want := make([]int32, *n)
	var hostSums, hostScanned [][]int32
	for _, size := range levels(*n) {
		hostSums = append(hostSums, make([]int32, size))
		hostScanned = append(hostScanned, make([]int32, size))
	}
	prefixSumGo(xs, want, *n, hostSums, hostScanned)
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

// levels returns the number of tiles of n elements, of those tiles' sums,
// and so on down to one tile: the lengths of the sums a scan of n
// elements needs, one slice per level.
func levels(n int) []int {
	var sizes []int
	for {
		n = (n + tile - 1) / tile
		sizes = append(sizes, max(n, 1))
		if n <= 1 {
			return sizes
		}
	}
}

// prefixSum sets y to the inclusive prefix sum of x's n elements: the sums
// of x's tiles, their prefix sum (the same steps one level down), then
// each tile scanned and added to the sum of the tiles before it. sums and
// scanned hold a buffer of each length levels(n) gives.
func prefixSum(ks *Kernels, x, y *rt.Buffer[int32], n int, sums, scanned []*rt.Buffer[int32]) error {
	if tiles := (n + tile - 1) / tile; tiles > 1 {
		if err := ks.TileSums(x, sums[0], n); err != nil {
			return err
		}
		if err := prefixSum(ks, sums[0], scanned[0], tiles, sums[1:], scanned[1:]); err != nil {
			return err
		}
	}
	return ks.ScanTiles(x, y, scanned[0], n)
}

// prefixSumGo is prefixSum with the kernels run as Go on slices.
func prefixSumGo(x, y []int32, n int, sums, scanned [][]int32) {
	if tiles := (n + tile - 1) / tile; tiles > 1 {
		TileSums(x, sums[0], n)
		prefixSumGo(sums[0], scanned[0], tiles, sums[1:], scanned[1:])
	}
	ScanTiles(x, y, scanned[0], n)
}
