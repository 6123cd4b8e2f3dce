package generated_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// Graphs: kernels with blocks replayed as cached graphs, recorded graphs
// with streams, and stream-ordered memory, on every backend.
var graphCases = []streamCase{
	{"KernelGraphReplay", testKernelGraphReplay},
	{"KernelGraphGoroutines", testKernelGraphGoroutines},
	{"RecordPipeline", testRecordPipeline},
	{"RecordMisuse", testRecordMisuse},
	{"StreamOrderedFree", testStreamOrderedFree},
	{"LaunchAllocatesNothing", testLaunchAllocatesNothing},
}

func TestGraphsCPU(t *testing.T) { runCases(t, graphCases, openCPU) }
func TestGraphsGPU(t *testing.T) { runCases(t, graphCases, openGraphGPU) }

// openGraphGPU opens the GPU under test for the graph cases, which need
// a driver with graphs: the HIP driver has none yet.
func openGraphGPU(t testing.TB) *rt.Device {
	dev := openGPU(t)
	if dev.Backend() == rt.HIP {
		dev.Close()
		t.Skip("the HIP driver has no graphs yet")
	}
	return dev
}

// testKernelGraphReplay launches MixedTop, whose blocks are framed by plain
// statements, many times: with other lengths (other grids, and a task with
// no iterations), other buffers, eagerly and as a graph; each result must
// be Go's.
func testKernelGraphReplay(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	const size = 4099
	sets := make([][3]*rt.Buffer[int32], 2)
	for i := range sets {
		for j := range sets[i] {
			b, err := rt.Alloc[int32](dev, size)
			must(t, err)
			sets[i][j] = b
		}
	}
	for round, nn := range []int{size, size, 7, size, 0, 0, 300, size, size, 1} {
		bufs := sets[round%2]
		var opts []rt.LaunchOption
		if round%3 == 2 {
			opts = append(opts, rt.Eager())
		}
		for _, b := range bufs {
			must(t, b.Zero())
		}
		must(t, ks.MixedTop(bufs[0], bufs[1], bufs[2], nn, opts...))
		want := [3][]int32{make([]int32, size), make([]int32, size), make([]int32, size)}
		kernels.MixedTop(want[0], want[1], want[2], nn)
		for j, b := range bufs {
			got, err := b.Read()
			must(t, err)
			if i := firstDiff(got, want[j]); i >= 0 {
				t.Fatalf("round %d (n=%d): buffer %d element %d = %d, want %d", round, nn, j, i, got[i], want[j][i])
			}
		}
	}
}

func firstDiff[T comparable](a, b []T) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// testKernelGraphGoroutines launches ComputeAB and Combine from eight
// goroutines at once, each on a stream of its own with its own scale.
func testKernelGraphGoroutines(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := dev.NewStream()
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			a, _ := rt.Alloc[float32](dev, n)
			b, _ := rt.Alloc[float32](dev, n)
			c, _ := rt.Alloc[float32](dev, n)
			defer a.Free()
			defer b.Free()
			defer c.Free()
			for i := range 20 {
				scale := float32(g*100 + i)
				if err := ks.ComputeAB(a, b, n, scale, rt.OnStream(s)); err != nil {
					t.Error(err)
					return
				}
				if err := ks.Combine(a, b, c, rt.OnStream(s)); err != nil {
					t.Error(err)
					return
				}
				if i%5 != 4 {
					continue
				}
				if err := s.Synchronize(); err != nil {
					t.Error(err)
					return
				}
				abc(t, c, n, scale)
			}
		}()
	}
	wg.Wait()
}

// pipeline is the recorded work of testRecordPipeline: out = in + 1 + v,
// with the copy in and AddOne on one stream, Fill on another, and Combine
// after both.
type pipeline struct {
	in, out *rt.HostBuffer[float32]
	x, y, z *rt.Buffer[float32]
	v       float32
}

func (p *pipeline) record(ks *kernels.Kernels) func(r *rt.Recorder) error {
	return func(r *rt.Recorder) error {
		s1, s2 := r.Stream(), r.Stream()
		ready := r.Event()
		if err := p.x.CopyFromAsync(p.in.Data(), s1); err != nil {
			return err
		}
		if err := ks.AddOne(p.y, p.x, rt.OnStream(s1)); err != nil {
			return err
		}
		if err := ready.Record(s1); err != nil {
			return err
		}
		if err := ks.Fill(p.z, p.v, rt.OnStream(s2)); err != nil {
			return err
		}
		if err := ready.Wait(s2); err != nil {
			return err
		}
		if err := ks.Combine(p.y, p.z, p.x, rt.OnStream(s2)); err != nil {
			return err
		}
		return p.x.CopyToAsync(p.out.Data(), s2)
	}
}

func (p *pipeline) check(t *testing.T) {
	t.Helper()
	for i, v := range p.in.Data() {
		if want := v + 1 + p.v; p.out.Data()[i] != want {
			t.Fatalf("out[%d] = %v, want %v", i, p.out.Data()[i], want)
		}
	}
}

// testRecordPipeline records a pipeline over two streams, launches it on
// a stream several times with new input, then updates it to new buffers
// and a new scalar.
func testRecordPipeline(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	in, err := rt.AllocHost[float32](dev, n)
	must(t, err)
	out, err := rt.AllocHost[float32](dev, n)
	must(t, err)
	p := &pipeline{in: in, out: out, x: alloc(t, dev, n), y: alloc(t, dev, n), z: alloc(t, dev, n), v: 10}
	g, err := dev.Record(p.record(ks))
	must(t, err)
	defer g.Close()
	s := newStream(t, dev)
	defer s.Close()
	for round := range 3 {
		for i := range in.Data() {
			in.Data()[i] = float32(i*(round+1)) - 500
		}
		must(t, g.Launch(s))
		must(t, s.Synchronize())
		p.check(t)
	}
	nodes := g.Nodes()
	oldX, oldY := p.x, p.y
	p.x, p.y, p.v = alloc(t, dev, n), alloc(t, dev, n), -3
	must(t, g.Update())
	if g.Nodes() != nodes {
		t.Errorf("the update changed the graph from %d to %d nodes", nodes, g.Nodes())
	}
	must(t, oldX.Free())
	must(t, oldY.Free())
	must(t, g.Launch(nil))
	must(t, dev.Synchronize())
	p.check(t)
}

// testRecordMisuse checks what a recording refuses.
func testRecordMisuse(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a := alloc(t, dev, n)
	_, err := dev.Record(func(r *rt.Recorder) error {
		if err := ks.Fill(a, 1, rt.OnStream(r.Stream())); err != nil {
			return err
		}
		return dev.Synchronize()
	})
	if !errors.Is(err, rt.ErrRecording) {
		t.Errorf("synchronizing in a recording: %v, want ErrRecording", err)
	}
	g, err := dev.Record(func(r *rt.Recorder) error { return ks.Fill(a, 2, rt.OnStream(r.Stream())) })
	must(t, err)
	if err := a.Free(); !errors.Is(err, rt.ErrInUse) {
		t.Errorf("freeing a buffer a graph uses: %v, want ErrInUse", err)
	}
	must(t, g.Launch(nil))
	expect(t, a, 2)
	must(t, g.Close())
	must(t, a.Free())
}

// testStreamOrderedFree frees a buffer while a slow kernel on stream A
// still writes it, allocates again at once and uses the new buffer on
// stream B: the new buffer must not be the old memory while A writes it.
// Under compute-sanitizer memcheck no access may touch freed memory.
func testStreamOrderedFree(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	sa, sb := newStream(t, dev), newStream(t, dev)
	defer sa.Close()
	defer sb.Close()
	for round := range 8 {
		old := alloc(t, dev, n)
		must(t, ks.SlowFill(old, -1, delay(dev, 20000), rt.OnStream(sa)))
		must(t, old.Free())
		fresh := alloc(t, dev, n)
		must(t, ks.Fill(fresh, float32(round), rt.OnStream(sb)))
		must(t, ks.Accumulate(fresh, 1, rt.OnStream(sb)))
		must(t, sb.Synchronize())
		must(t, sa.Synchronize())
		got, err := fresh.Read()
		must(t, err)
		if i := slices.IndexFunc(got, func(v float32) bool { return v != float32(round+1) }); i >= 0 {
			t.Fatalf("round %d: element %d = %v, want %v", round, i, got[i], round+1)
		}
		must(t, fresh.Free())
	}
}

// testLaunchAllocatesNothing checks that launches allocate nothing on the
// host beyond what the Go function itself allocates on the CPU backend
// (ComputeAB's blocks are closures): a plain kernel, and one with blocks
// (a graph after its first launch on a GPU).
func testLaunchAllocatesNothing(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a, b, c := alloc(t, dev, n), alloc(t, dev, n), alloc(t, dev, n)
	s := newStream(t, dev)
	defer s.Close()
	for _, k := range []struct {
		name   string
		launch func() error
		direct func()
	}{
		{"Fill", func() error { return ks.Fill(a, 1, rt.OnStream(s)) }, func() { kernels.Fill(a.CPUSlice(), 1) }},
		{"ComputeAB", func() error { return ks.ComputeAB(a, b, n, 2, rt.OnStream(s)) }, func() { kernels.ComputeAB(a.CPUSlice(), b.CPUSlice(), n, 2) }},
		{"Combine", func() error { return ks.Combine(a, b, c) }, func() { kernels.Combine(a.CPUSlice(), b.CPUSlice(), c.CPUSlice()) }},
	} {
		must(t, k.launch())
		must(t, k.launch())
		var own float64
		if dev.IsCPU() {
			own = testing.AllocsPerRun(50, k.direct)
		}
		if allocs := testing.AllocsPerRun(50, func() { must(t, k.launch()) }); allocs > own {
			t.Errorf("a launch of %s allocates %v times, its Go function %v", k.name, allocs, own)
		}
	}
	must(t, dev.SynchronizeAll())
}
