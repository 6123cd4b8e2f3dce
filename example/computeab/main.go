// Command computeab is the example of the streams documentation of
// Quadrants, the Python GPU programming framework whose streams qd follows:
// compute_ab fills a and b in two qd.StreamParallel blocks that run at the
// same time, and combine adds them, seeing both blocks' results with no
// synchronization in between. It checks c against the same Go functions
// run on the host and times the kernels with and without blocks.
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/qdgo/qd/rt"
)

func main() {
	n := flag.Int("n", 1<<20, "number of elements")
	flag.Parse()
	log.SetFlags(0)

	dev, err := rt.Open()
	check(err)
	defer dev.Close()
	start := time.Now()
	ks, err := Load(dev)
	check(err)
	loaded := time.Since(start)

	a, err := rt.Alloc[float32](dev, *n)
	check(err)
	defer a.Free()
	b, err := rt.Alloc[float32](dev, *n)
	check(err)
	defer b.Free()
	c, err := rt.Alloc[float32](dev, *n)
	check(err)
	defer c.Free()

	run := func(withBlocks bool) time.Duration {
		best := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			if withBlocks {
				check(ks.ComputeAB(a, b, *n))
			} else {
				check(ks.ComputeABSerial(a, b, *n))
			}
			check(ks.Combine(a, b, c, *n)) // ordered after both blocks
			check(dev.Synchronize())
			best = min(best, time.Since(start))
		}
		return best
	}
	serial := run(false)
	parallel := run(true)
	got, err := c.Read()
	check(err)

	as, bs, cs := make([]float32, *n), make([]float32, *n), make([]float32, *n)
	ComputeAB(as, bs, *n)
	Combine(as, bs, cs, *n)
	bad := 0
	for i := range cs {
		if got[i] != cs[i] {
			bad++
		}
	}
	fmt.Printf("computeab on %s: %d elements, module load %v\n", dev, *n, loaded.Round(time.Microsecond))
	fmt.Printf("compute_ab + combine: blocks on two streams %v, the same loops one after the other %v, %d mismatches\n",
		parallel.Round(time.Microsecond), serial.Round(time.Microsecond), bad)
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
