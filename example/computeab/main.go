// Command computeab is the two-kernel example of the Quadrants streams
// documentation: compute_ab fills a and b, combine adds them; the second
// kernel sees the first one's results without any synchronization.
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/qdgo/qd/rt"
)

func main() {
	n := flag.Int("n", 1<<22, "number of elements")
	flag.Parse()
	log.SetFlags(0)

	dev, err := rt.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	start := time.Now()
	ks, err := Load(dev)
	if err != nil {
		log.Fatal(err)
	}
	loaded := time.Since(start)

	a, err := rt.Alloc[float32](dev, *n)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Free()
	b, err := rt.Alloc[float32](dev, *n)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Free()
	c, err := rt.Alloc[float32](dev, *n)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Free()

	start = time.Now()
	if err := ks.ComputeAB(a, b, *n); err != nil {
		log.Fatal(err)
	}
	if err := ks.Combine(a, b, c, *n); err != nil { // ordered after ComputeAB
		log.Fatal(err)
	}
	got, err := c.Read() // waits for both
	if err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)

	as, bs, cs := make([]float32, *n), make([]float32, *n), make([]float32, *n)
	ComputeAB(as, bs, *n)
	Combine(as, bs, cs, *n)
	bad := 0
	for i := range cs {
		if got[i] != cs[i] {
			bad++
		}
	}
	fmt.Printf("computeab on %s: %d elements, module load %v, kernels and copy %v, %d mismatches\n",
		dev, *n, loaded.Round(time.Microsecond), elapsed.Round(time.Microsecond), bad)
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}
