package main

import (
	"log"
	"math"
	"math/rand/v2"

	"github.com/qdgo/qd/bench/kernels"
	"github.com/qdgo/qd/rt"
)

// The benchmarks of reductions and faults: a float sum as a reduction,
// and the cost of bounds checks.

// gpuTime is the median GPU time of run over rounds runs, in seconds,
// measured with timing events.
func gpuTime(dev *rt.Device, rounds int, run func() error) float64 {
	start, err := dev.NewEvent(rt.WithTiming())
	check(err)
	defer start.Close()
	end, err := dev.NewEvent(rt.WithTiming())
	check(err)
	defer end.Close()
	check(run()) // warm up
	var secs []float64
	for range rounds {
		check(start.Record(nil))
		check(run())
		check(end.Record(nil))
		check(end.Synchronize())
		d, err := rt.ElapsedTime(start, end)
		check(err)
		secs = append(secs, d.Seconds())
	}
	return median(secs)
}

// sumBench is the bandwidth of Sum over 2^28 ones, 4 bytes per element,
// and checks the sum, which is exact.
func sumBench(dev *rt.Device, ks *kernels.Kernels) float64 {
	const n = 1 << 28
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	x, err := rt.FromSlice(dev, ones)
	check(err)
	defer x.Free()
	out, err := rt.Alloc[float32](dev, 1)
	check(err)
	defer out.Free()
	secs := gpuTime(dev, 20, func() error { return ks.Sum(x, out) })
	got, err := out.Read()
	check(err)
	if got[0] != n {
		log.Fatalf("sum of %d ones: %v", n, got[0])
	}
	return 4 * n / secs / 1e9
}

// checksBench times the kernels of bench/kernels/checks.go with their
// bounds checks and without, alternating the two, and records each pair's
// ratio of times.
func checksBench(dev *rt.Device, ks *kernels.Kernels, ours map[string]float64) {
	const n = 1 << 26
	r := rand.New(rand.NewPCG(9, 9))
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(r.IntN(n))
	}
	buf := func() *rt.Buffer[float32] {
		b, err := rt.Alloc[float32](dev, n)
		check(err)
		check(b.Zero())
		return b
	}
	a, b := buf(), buf()
	defer a.Free()
	defer b.Free()
	ix, err := rt.FromSlice(dev, idx)
	check(err)
	defer ix.Free()
	pairs := []struct {
		key                string
		checked, unchecked func() error
	}{
		{"checks_gather", func() error { return ks.Gather(a, b, ix) }, func() error { return ks.GatherUnchecked(a, b, ix) }},
		{"checks_stencil", func() error { return ks.Stencil(a, b, 4096) }, func() error { return ks.StencilUnchecked(a, b, 4096) }},
		{"checks_saxpy", func() error { return ks.Saxpy(2, a, b, n) }, func() error { return ks.SaxpyUnchecked(2, a, b, n) }},
	}
	product := 1.0
	for _, p := range pairs {
		var on, off []float64
		for range 5 {
			on = append(on, gpuTime(dev, 10, p.checked))
			off = append(off, gpuTime(dev, 10, p.unchecked))
		}
		ratio := median(on) / median(off)
		ours[p.key] = ratio
		product *= ratio
	}
	ours["checks_geomean"] = math.Pow(product, 1/float64(len(pairs)))
}
