package nccl

import (
	"testing"

	"github.com/qdgo/qd/rt"
)

// Collectives appear in traces of the rank's device, on their stream.
func TestCollectiveTraced(t *testing.T) {
	comms := group(t, 2)
	dev := comms[0].Device()
	if err := dev.StartTrace(); err != nil {
		t.Fatal(err)
	}
	must(t, ranks(comms, func(c *Comm) error {
		b, err := rt.FromSlice(c.Device(), []float32{1, 2, 3})
		if err != nil {
			return err
		}
		return AllReduce(c, b, b, Sum, nil)
	}))
	tr, err := dev.StopTrace()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.Events {
		if e.Kind == "collective" && e.Name == "all-reduce" && e.Bytes == 12 {
			return
		}
	}
	t.Errorf("no all-reduce of 12 bytes in the trace: %+v", tr.Events)
}
