package generated_test

import (
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// TestCopyFromSeenOnOtherStreamGPU copies large slices of ordinary Go
// memory to the device and at once launches, on a stream of its own, a
// kernel that reads them: CopyFrom returns only when the data is on the
// device, so the kernel sees it although the stream does not wait for the
// default stream. CopyTo and Read return only with the data in Go memory.
func TestCopyFromSeenOnOtherStreamGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 26 // 256 MiB of float32, long enough for a DMA to lag
	src, err := rt.Alloc[float32](dev, n)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free()
	dst, err := rt.Alloc[float32](dev, n)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free()
	s, err := dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host, back := make([]float32, n), make([]float32, n)
	for round := range 4 {
		for i := range host {
			host[i] = float32(round*7 + i%1000)
		}
		if err := src.CopyFrom(host); err != nil {
			t.Fatal(err)
		}
		if err := ks.AddOne(dst, src, rt.OnStream(s)); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if err := dst.CopyTo(back); err != nil {
			t.Fatal(err)
		}
		for i, v := range back {
			if v != host[i]+1 {
				t.Fatalf("round %d: element %d is %v, want %v: the kernel read stale data", round, i, v, host[i]+1)
			}
		}
	}
}
