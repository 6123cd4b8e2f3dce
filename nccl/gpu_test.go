package nccl

import (
	"slices"
	"testing"

	"github.com/qdgo/qd/rt"
)

// TestAllReduceGPU all-reduces across every GPU through NCCL, a goroutine
// per rank.
func TestAllReduceGPU(t *testing.T) {
	n, err := rt.DeviceCount(rt.GPU)
	if err != nil || n < 2 {
		t.Skipf("needs 2 GPUs: have %d (%v)", n, err)
	}
	if _, err := loadLibrary(rt.CUDA); err != nil {
		t.Skip(err)
	}
	devs, err := rt.OpenAll(rt.WithBackend(rt.GPU))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseAll(devs)
	comms, err := InitAll(devs)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	got := make([][]float32, len(comms))
	must(t, ranks(comms, func(c *Comm) error {
		b, err := rt.FromSlice(c.Device(), rankData(c.Rank(), 1000))
		if err != nil {
			return err
		}
		if err := AllReduce(c, b, b, Max, nil); err != nil {
			return err
		}
		got[c.Rank()], err = b.Read()
		return err
	}))
	want := rankData(0, 1000)
	for r := 1; r < len(comms); r++ {
		for i, v := range rankData(r, 1000) {
			want[i] = max(want[i], v)
		}
	}
	for r := range got {
		if !slices.Equal(got[r], want) {
			t.Errorf("rank %d differs from the host's maximum", r)
		}
	}
}
