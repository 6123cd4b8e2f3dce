package generated_test

import (
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

var traceCases = []streamCase{{"ForkJoin", testTraceForkJoin}}

func TestTraceCPU(t *testing.T) { runCases(t, traceCases, openCPU) }
func TestTraceGPU(t *testing.T) { runCases(t, traceCases, openGPU) }

// testTraceForkJoin traces ComputeAB and Combine and checks the times: on
// a GPU the two blocks ran on two pool streams and Combine started after
// both ended (the join), and every operation took some time.
func testTraceForkJoin(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a, b, c := alloc(t, dev, n), alloc(t, dev, n), alloc(t, dev, n)
	must(t, ks.ComputeAB(a, b, n, 1))
	must(t, ks.ComputeAB(a, b, n, 1)) // a graph from now on, but not while tracing
	must(t, dev.StartTrace())
	must(t, ks.ComputeAB(a, b, n, 2))
	must(t, ks.Combine(a, b, c))
	host := make([]float32, n)
	must(t, c.CopyTo(host))
	tr, err := dev.StopTrace()
	must(t, err)
	abc(t, c, n, 2)
	var blocks []rt.TraceEvent
	var combine rt.TraceEvent
	for _, e := range tr.Events {
		t.Logf("%-6s %-16s %-14s %v..%v", e.Kind, e.Name, e.Stream, e.Start, e.End)
		switch {
		case e.Kind == "kernel" && e.Name == "ComputeAB":
			blocks = append(blocks, e)
		case e.Kind == "kernel" && e.Name == "Combine":
			combine = e
		}
		if e.End < e.Start {
			t.Errorf("%s %s ends before it starts", e.Kind, e.Name)
		}
	}
	if dev.IsCPU() { // the kernel is one call of its Go function
		if len(blocks) != 1 || combine.Name == "" || combine.Start < blocks[0].End {
			t.Errorf("traced %d runs of ComputeAB and Combine %+v", len(blocks), combine)
		}
		return
	}
	if len(blocks) != 2 || combine.Name == "" {
		t.Fatalf("traced %d blocks of ComputeAB and Combine %v", len(blocks), combine.Name != "")
	}
	if blocks[0].Stream == blocks[1].Stream || blocks[0].Block == blocks[1].Block {
		t.Errorf("both blocks on %s", blocks[0].Stream)
	}
	for _, b := range blocks {
		if b.End <= b.Start || combine.Start < b.End {
			t.Errorf("block %d ran %v..%v, Combine started at %v", b.Block, b.Start, b.End, combine.Start)
		}
	}
}
