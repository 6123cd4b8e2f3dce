// Command histogram counts the byte values of random data on the GPU (or
// the CPU without one), with a histogram per block in shared memory, and
// checks the counts against the kernel run as Go.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"

	"github.com/qdgo/qd/example/internal/timing"
	"github.com/qdgo/qd/rt"
)

func main() {
	n := flag.Int("n", 1<<26, "bytes of data")
	blocks := flag.Int("blocks", 1024, "blocks of threads")
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
	bytes := make([]uint8, *n)
	for i := range bytes {
		bytes[i] = uint8(r.Uint32())
	}
	data, err := rt.FromSlice(dev, bytes)
	if err != nil {
		log.Fatal(err)
	}
	defer data.Free()
	hist, err := rt.Alloc[uint32](dev, bins)
	if err != nil {
		log.Fatal(err)
	}
	defer hist.Free()

	// Every run adds to hist: 1+reps histograms of the data.
	per, err := timing.Per(dev, *reps, func() error { return ks.Histogram(data, hist, *blocks) })
	if err != nil {
		log.Fatal(err)
	}
	got, err := hist.Read()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Histogram: %.3f ms per run, %.1f GB/s, %d bytes on %s\n",
		timing.MS(per), float64(*n)/per.Seconds()/1e9, *n, dev)

	// The oracle: the kernel is Go, so run it on the host, once: the
	// device ran it 1+reps times, adding to the same counts.
	want := make([]uint32, bins)
	Histogram(bytes, want, *blocks)
	for i := range want {
		want[i] *= uint32(1 + max(*reps, 1))
	}
	if !slices.Equal(got, want) {
		log.Fatalf("FAIL: the counts differ from Go's")
	}
	fmt.Println("ok")
}
