// Command sgemm multiplies two n×n float32 matrices with a tiled kernel
// on the GPU (or the CPU without one), with and without fused
// multiply-adds, and checks the products against Go: the whole of them
// against the kernel run as Go when n is small, and sampled elements
// against a dot product in k's order when it is not.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/qdgo/qd/example/internal/timing"
	"github.com/qdgo/qd/rt"
)

func main() {
	n := flag.Int("n", 512, "matrix side, a multiple of 128")
	reps := flag.Int("reps", 3, "timed runs after a first one")
	flag.Parse()
	log.SetFlags(0)
	if *n <= 0 || *n%tile != 0 {
		log.Fatalf("-n %d: want a positive multiple of %d", *n, tile)
	}

	dev, err := rt.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	ks, err := Load(dev)
	if err != nil {
		log.Fatal(err)
	}

	m, k := *n, *n
	as, bs := random(m*k, 1), random(k**n, 2)
	a, err := rt.FromSlice(dev, as)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Free()
	b, err := rt.FromSlice(dev, bs)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Free()
	c, err := rt.Alloc[float32](dev, m**n)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Free()

	kernels := []struct {
		name  string
		run   func(a, b, c *rt.Buffer[float32], m, n, k int, opts ...rt.LaunchOption) error
		exact bool // whether it computes Go's bits
	}{
		{"Sgemm", ks.Sgemm, true},
		{"SgemmFMA", ks.SgemmFMA, false},
	}
	bad := 0
	for _, kern := range kernels {
		per, err := timing.Per(dev, *reps, func() error { return kern.run(a, b, c, m, *n, k) })
		if err != nil {
			log.Fatal(err)
		}
		got, err := c.Read()
		if err != nil {
			log.Fatal(err)
		}
		mismatches := check(got, as, bs, m, *n, k, kern.exact)
		flops := 2 * float64(m) * float64(*n) * float64(k)
		fmt.Printf("%s: %.3f ms per run, %.0f GFLOP/s, %dx%dx%d on %s, %d mismatches\n",
			kern.name, timing.MS(per), flops/per.Seconds()/1e9, m, *n, k, dev, mismatches)
		bad += mismatches
	}
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}

// check counts the elements of c that differ from Go's: all of them,
// computed by Sgemm run as Go, for small matrices, and otherwise 4096 of
// them drawn at random, each computed as a dot product in k's order,
// which is the kernel's order. Where the kernel fuses multiply-adds
// (exact false), an element differs when it is farther from Go's than
// near allows.
func check(c, a, b []float32, m, n, k int, exact bool) int {
	var want []float32
	count := 4096
	if m*n*k <= 1<<27 {
		want = make([]float32, m*n)
		Sgemm(a, b, want, m, n, k)
		count = m * n
	}
	r := rand.New(rand.NewPCG(3, 4))
	bad := 0
	for e := range count {
		var i, j int
		var w float32
		if want != nil {
			i, j = e/n, e%n
			w = want[e]
		} else {
			i, j = r.IntN(m), r.IntN(n)
			w = dot(a, b, i, j, n, k)
		}
		got := c[i*n+j]
		if exact && got != w || !exact && !near(got, w, a, b, i, j, n, k) {
			bad++
		}
	}
	return bad
}

// near reports whether got and want, two sums of the k products of row i
// of a and column j of b rounded in the same order, one fusing each
// multiply-add and one not, are within twice the bound on either's error:
// each is within k·u·Σ|a·b| of the exact sum, u = 2⁻²⁴ being float32's
// unit roundoff.
func near(got, want float32, a, b []float32, i, j, n, k int) bool {
	var size float64
	for p := range k {
		size += math.Abs(float64(a[i*k+p]) * float64(b[p*n+j]))
	}
	return math.Abs(float64(got)-float64(want)) <= 2*float64(k)*0x1p-24*size
}

// dot is element (i, j) of a·b, summed in k's order.
func dot(a, b []float32, i, j, n, k int) float32 {
	var s float32
	for p := range k {
		s += a[i*k+p] * b[p*n+j]
	}
	return s
}

// random returns n values in [-1, 1) drawn from seed.
func random(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 0))
	x := make([]float32, n)
	for i := range x {
		x[i] = 2*r.Float32() - 1
	}
	return x
}
