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
	"time"

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
	per, err := timed(dev, *reps, func() error { return ks.Histogram(data, hist, *blocks) })
	if err != nil {
		log.Fatal(err)
	}
	got, err := hist.Read()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Histogram: %.3f ms per run, %.1f GB/s, %d bytes on %s\n",
		ms(per), float64(*n)/per.Seconds()/1e9, *n, dev)

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

// timed runs f once to warm up, then reps times, and returns the time of
// one run: by the GPU's clock, between events recorded around the runs,
// or by the host's on the CPU, whose events record no time.
func timed(dev *rt.Device, reps int, f func() error) (time.Duration, error) {
	reps = max(reps, 1)
	start, err := dev.NewEvent(rt.WithTiming())
	if err != nil {
		return 0, err
	}
	defer start.Close()
	end, err := dev.NewEvent(rt.WithTiming())
	if err != nil {
		return 0, err
	}
	defer end.Close()
	if err := f(); err != nil {
		return 0, err
	}
	if err := dev.Synchronize(); err != nil {
		return 0, err
	}
	host := time.Now()
	if err := start.Record(nil); err != nil {
		return 0, err
	}
	for range reps {
		if err := f(); err != nil {
			return 0, err
		}
	}
	if err := end.Record(nil); err != nil {
		return 0, err
	}
	if err := dev.Synchronize(); err != nil {
		return 0, err
	}
	elapsed, err := rt.ElapsedTime(start, end)
	if err != nil {
		return 0, err
	}
	if elapsed == 0 {
		elapsed = time.Since(host)
	}
	return elapsed / time.Duration(reps), nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
