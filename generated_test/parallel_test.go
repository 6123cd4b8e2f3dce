package generated_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

var parallelCases = []streamCase{
	{"PoolOfOne", testPoolOfOne},
	{"JoinSeenWithoutSync", testJoinSeenWithoutSync},
	{"OnExplicitStream", testParallelOnStream},
	{"PoolReuse", testPoolReuse},
	{"OverlapRejected", testOverlapRejected},
}

func TestStreamParallelCPU(t *testing.T) { runCases(t, parallelCases, openCPU) }
func TestStreamParallelGPU(t *testing.T) { runCases(t, parallelCases, openGPU) }

// TestStreamParallelConcurrentBlocksCPU runs every kernel with blocks on
// the CPU with the blocks of each group as goroutines in random order; under
// go test -race, blocks that depend on each other would be reported.
func TestStreamParallelConcurrentBlocksCPU(t *testing.T) {
	rt.RunBlocksConcurrently(true)
	defer rt.RunBlocksConcurrently(false)
	dev := openCPU(t)
	defer dev.Close()
	for range 5 {
		runAll(t, dev)
	}
}

func runCases(t *testing.T, cases []streamCase, open func(testing.TB) *rt.Device) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dev := open(t)
			defer dev.Close()
			ks, err := kernels.Load(dev)
			if err != nil {
				t.Fatal(err)
			}
			c.run(t, dev, ks)
		})
	}
}

// abc checks c = a + b as ComputeAB and Combine compute it.
func abc(t *testing.T, c *rt.Buffer[float32], n int, scale float32) {
	t.Helper()
	a, b, want := make([]float32, n), make([]float32, n), make([]float32, n)
	kernels.ComputeAB(a, b, n, scale)
	kernels.Combine(a, b, want)
	got, err := c.Read()
	must(t, err)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("c[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// testJoinSeenWithoutSync launches Combine right after ComputeAB on the
// same stream: it sees both blocks' results with no synchronization.
func testJoinSeenWithoutSync(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a, b, c := alloc(t, dev, n), alloc(t, dev, n), alloc(t, dev, n)
	must(t, ks.ComputeAB(a, b, n, 1))
	must(t, ks.Combine(a, b, c))
	abc(t, c, n, 1)
}

// testParallelOnStream launches the kernels on an explicit stream, after a
// slow kernel on it that the blocks must wait for.
func testParallelOnStream(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s := newStream(t, dev)
	defer s.Close()
	a, b, c := alloc(t, dev, n), alloc(t, dev, n), alloc(t, dev, n)
	must(t, ks.SlowFill(a, -1, delay(dev, 20000), rt.OnStream(s))) // ComputeAB overwrites it
	must(t, ks.ComputeAB(a, b, n, 2, rt.OnStream(s)))
	must(t, ks.Combine(a, b, c, rt.OnStream(s)))
	host := make([]float32, n)
	must(t, c.CopyToAsync(host, s))
	must(t, s.Synchronize())
	abc(t, c, n, 2)
}

// testPoolReuse launches the same kernel five times with changing values:
// after the first launch, no driver stream or event is created.
func testPoolReuse(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a, b, c := alloc(t, dev, n), alloc(t, dev, n), alloc(t, dev, n)
	must(t, ks.ComputeAB(a, b, n, 1))
	warm := dev.Live()
	for i := range 5 {
		scale := float32(i + 2)
		must(t, ks.ComputeAB(a, b, n, scale))
		must(t, ks.Combine(a, b, c))
		abc(t, c, n, scale)
	}
	if after := dev.Live(); after != warm {
		t.Errorf("launches after warm-up changed the live objects: %+v, after warm-up %+v", after, warm)
	}
	if !dev.IsCPU() && warm.Streams < 2 {
		t.Errorf("%d streams after a launch with two blocks", warm.Streams)
	}
}

// testOverlapRejected passes overlapping buffers to blocks that would race
// through them: the launch fails before anything runs; disjoint views of
// one buffer are fine.
func testOverlapRejected(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a := alloc(t, dev, 2*n)
	err := ks.TwoBlocks(a.Slice(0, n), a.Slice(n/2, n/2+n))
	if err == nil || !strings.Contains(err.Error(), "buffers a and b overlap") {
		t.Fatalf("overlapping buffers: %v", err)
	}
	must(t, ks.TwoBlocks(a.Slice(0, n), a.Slice(n, 2*n)))
	got, err := a.Read()
	must(t, err)
	if got[3] != 1.5 || got[n+3] != 4 {
		t.Errorf("disjoint views: %v, %v", got[3], got[n+3])
	}
	var de *rt.DriverError
	if errors.As(err, &de) {
		t.Errorf("unexpected driver error %v", de)
	}
}

// testPoolOfOne runs a kernel with eight blocks on a device whose pool
// holds one stream: the blocks take turns on it, and the results are right.
func testPoolOfOne(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	small, err := rt.Open(rt.WithBackend(dev.Backend()), rt.WithStreamPool(1))
	must(t, err)
	defer small.Close()
	if small.PoolSize() != 1 {
		t.Fatalf("pool size %d", small.PoolSize())
	}
	sk, err := kernels.Load(small)
	must(t, err)
	want := make([][]int64, 8)
	bufs := make([]*rt.Buffer[int64], 8)
	for i := range bufs {
		bufs[i], err = rt.Alloc[int64](small, 64)
		must(t, err)
		want[i] = make([]int64, 64)
	}
	must(t, sk.EightBlocks(bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6], bufs[7], 100))
	kernels.EightBlocks(want[0], want[1], want[2], want[3], want[4], want[5], want[6], want[7], 100)
	for i, b := range bufs {
		got, err := b.Read()
		must(t, err)
		for j := range got {
			if got[j] != want[i][j] {
				t.Fatalf("block %d element %d = %d, want %d", i, j, got[j], want[i][j])
			}
		}
	}
	if live := small.Live(); !small.IsCPU() && live.Streams != 1 {
		t.Errorf("%d pooled streams, want 1", live.Streams)
	}
}
