//go:build qdatomics

package main

import (
	"log"
	"math/rand/v2"

	"github.com/qdgo/qd/bench/kernels"
	"github.com/qdgo/qd/rt"
)

func init() {
	extraMeasures = append(extraMeasures, func(dev *rt.Device, ks *kernels.Kernels, ours map[string]float64) {
		ours["histogram_gbps"] = histogramBench(dev, ks)
	})
	extraRows = append(extraRows, [2]string{"histogram 2^28 bytes, 256 bins, GB/s", "histogram_gbps"})
}

// histogramBench is the bandwidth of Histogram over 2^28 random bytes,
// and checks the counts against Go's.
func histogramBench(dev *rt.Device, ks *kernels.Kernels) float64 {
	const n = 1 << 28
	data := make([]uint8, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = uint8(r.Uint32())
	}
	d, err := rt.FromSlice(dev, data)
	check(err)
	defer d.Free()
	bins, err := rt.Alloc[uint32](dev, 256)
	check(err)
	defer bins.Free()
	secs := gpuTime(dev, 20, func() error {
		if err := bins.Memset(0, nil); err != nil {
			return err
		}
		return ks.Histogram(d, bins)
	})
	got, err := bins.Read()
	check(err)
	want := make([]uint32, 256)
	for _, b := range data {
		want[b]++
	}
	for i := range want {
		if got[i] != want[i] {
			log.Fatalf("histogram bin %d: %d, want %d", i, got[i], want[i])
		}
	}
	return n / secs / 1e9
}
