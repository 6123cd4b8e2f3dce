package rt

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// twoSpec has two one-task kernels.
var twoSpec = &ModuleSpec{
	Package: "fake/two",
	Images:  []Image{{Kind: ImagePTX, Data: "two ptx"}},
	Kernels: []KernelSpec{
		{Name: "A", Tasks: []TaskSpec{{Entry: "A_0", Parallel: true}}},
		{Name: "B", Tasks: []TaskSpec{{Entry: "B_0"}}},
	},
}

// stub launches kernel k of m as a generated stub does.
func stub(m *Module, k int, count int64, args string, bufs []ArgBuffer, opts ...LaunchOption) error {
	if err := CheckBuffers(m.dev, m.spec.Kernels[k].Name, opts, bufs...); err != nil {
		return err
	}
	return m.Launch(k, []int64{count}, []byte(args), opts)
}

// plan describes the nodes of a graph, each as "name <- deps".
func planOf(nodes []graphNode) []string {
	var out []string
	for i, n := range nodes {
		out = append(out, fmt.Sprintf("%d %s <- %v", i, n.name, n.deps))
	}
	return out
}

// TestRecord records work on two streams of a recording, ordered by an
// event, with copies from and to page-locked memory, and checks the
// graph's nodes and edges, its launch, and updates.
func TestRecord(t *testing.T) {
	d, drv, m := fakeModule(t, 0, twoSpec)
	x, _ := Alloc[float32](d, 256)
	y, _ := Alloc[float32](d, 256)
	in, _ := AllocHost[float32](d, 256)
	out, _ := AllocHost[float32](d, 256)
	scale, extra := "s1", false
	record := func(r *Recorder) error {
		s1, s2 := r.Stream(), r.Stream()
		e := r.Event()
		if err := x.CopyFromAsync(in.Data(), s1); err != nil {
			return err
		}
		if err := stub(m, 0, 256, scale, []ArgBuffer{x}, OnStream(s1)); err != nil {
			return err
		}
		if err := e.Record(s1); err != nil {
			return err
		}
		if err := stub(m, 1, 1, "b", []ArgBuffer{y}, OnStream(s2)); err != nil {
			return err
		}
		if err := e.Wait(s2); err != nil {
			return err
		}
		if err := y.CopyFromBuffer(x, s2); err != nil {
			return err
		}
		if extra {
			if err := x.Memset(0, s1); err != nil {
				return err
			}
		}
		return y.CopyToAsync(out.Data(), s2)
	}
	drv.takeLog()
	g, err := d.Record(record)
	if err != nil {
		t.Fatal(err)
	}
	fg := drv.graphs[g.graph]
	want := []string{
		"0 copy to device <- []",
		"1 A (task A_0) <- [0]",
		"2 B (task B_0) <- []",
		"3 copy on device <- [2 1]",
		"4 copy from device <- [3]",
	}
	if got := planOf(fg.nodes); !slices.Equal(got, want) {
		t.Errorf("graph:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	expectLog(t, drv, "instantiate 5 nodes")
	s, _ := d.NewStream()
	if err := g.Launch(s); err != nil {
		t.Fatal(err)
	}
	expectLog(t, drv, "launch graph exec with 0 updates on "+drv.name(s.handle))

	// New buffers and scalars of the same sizes update nodes in place.
	oldX := x
	x, _ = Alloc[float32](d, 256)
	scale = "s2"
	drv.takeLog()
	if err := oldX.Free(); !errors.Is(err, ErrInUse) {
		t.Errorf("freeing a buffer a graph uses: %v, want ErrInUse", err)
	}
	if err := g.Update(); err != nil {
		t.Fatal(err)
	}
	expectLog(t, drv, "set node 0 (copy to device)", "set node 1 (A (task A_0))", "set node 3 (copy on device)")
	if g.rebuilds != 1 || g.updates != 1 {
		t.Errorf("%d rebuilds, %d updates", g.rebuilds, g.updates)
	}
	if err := oldX.Free(); err != nil {
		t.Errorf("freeing a buffer after the update: %v", err)
	}
	// Another shape rebuilds the graph.
	extra = true
	drv.takeLog()
	if err := g.Update(); err != nil {
		t.Fatal(err)
	}
	if l := drv.takeLog(); len(l) != 1 || l[0] != "instantiate 6 nodes" || g.rebuilds != 2 {
		t.Errorf("update to another shape: %q, %d rebuilds", l, g.rebuilds)
	}
	if err := y.Free(); !errors.Is(err, ErrInUse) {
		t.Errorf("freeing a buffer a graph uses: %v, want ErrInUse", err)
	}
	if err := out.Free(); !errors.Is(err, ErrInUse) {
		t.Errorf("freeing page-locked memory a graph uses: %v, want ErrInUse", err)
	}
	g.Close()
	if err := y.Free(); err != nil {
		t.Errorf("freeing a buffer after closing the graph: %v", err)
	}
	if err := g.Launch(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("launching a closed graph: %v", err)
	}
}

// TestRecordMisuse checks that what cannot be recorded is an error.
func TestRecordMisuse(t *testing.T) {
	for _, open := range []func() *Device{
		func() *Device { d, _ := openFake(0); return d },
		func() *Device { d, _ := Open(WithBackend(CPU)); return d },
	} {
		d := open()
		testRecordMisuse(t, d)
		d.Close()
	}
}

func testRecordMisuse(t *testing.T, d *Device) {
	t.Helper()
	x, _ := Alloc[float32](d, 4)
	real, _ := d.NewStream()
	realEvent, _ := d.NewEvent()
	var lane *Stream
	var ev *Event
	for name, c := range map[string]struct {
		fn   func(r *Recorder) error
		want error
	}{
		"Device.Synchronize":            {func(r *Recorder) error { return d.Synchronize() }, ErrRecording},
		"Device.SynchronizeAll":         {func(r *Recorder) error { return d.SynchronizeAll() }, ErrRecording},
		"Stream.Synchronize":            {func(r *Recorder) error { return r.Stream().Synchronize() }, ErrRecording},
		"Stream.Query":                  {func(r *Recorder) error { _, err := r.Stream().Query(); return err }, ErrRecording},
		"Event.Synchronize":             {func(r *Recorder) error { return r.Event().Synchronize() }, ErrRecording},
		"Event.Query":                   {func(r *Recorder) error { _, err := r.Event().Query(); return err }, ErrRecording},
		"a device event":                {func(r *Recorder) error { return realEvent.Record(r.Stream()) }, ErrRecording},
		"a recording's event elsewhere": {func(r *Recorder) error { return r.Event().Record(real) }, ErrRecording},
		"wait before record":            {func(r *Recorder) error { return r.Event().Wait(r.Stream()) }, nil},
		"not page-locked": {func(r *Recorder) error {
			if d.IsCPU() {
				return errors.New("page-locked") // the CPU copies any memory
			}
			return x.CopyFromAsync(make([]float32, 4), r.Stream())
		}, nil},
		"AllocOn":       {func(r *Recorder) error { _, err := AllocOn[float32](d, 4, r.Stream()); return err }, ErrRecording},
		"FreeOn":        {func(r *Recorder) error { return x.FreeOn(r.Stream()) }, ErrRecording},
		"keep a stream": {func(r *Recorder) error { lane, ev = r.Stream(), r.Event(); return errors.New("kept") }, nil},
	} {
		_, err := d.Record(c.fn)
		if err == nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %s in a recording: %v, want %v", d, name, err, c.want)
		}
	}
	if err := x.CopyFromAsync(make([]float32, 4), lane); !errors.Is(err, ErrClosed) {
		t.Errorf("%s: a stream of a finished recording: %v", d, err)
	}
	if err := ev.Record(lane); !errors.Is(err, ErrClosed) {
		t.Errorf("%s: an event of a finished recording: %v", d, err)
	}
	if err := d.Synchronize(); err != nil {
		t.Errorf("%s: synchronize after the recordings: %v", d, err)
	}
	g, err := d.Record(func(r *Recorder) error { return x.Memset(1, r.Stream()) })
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Launch(lane); !errors.Is(err, ErrClosed) {
		t.Errorf("%s: launch on a stream of a finished recording: %v", d, err)
	}
	real.Close()
	if err := g.Launch(real); !errors.Is(err, ErrClosed) {
		t.Errorf("%s: launch on a closed stream: %v", d, err)
	}
	d.Close()
	if err := g.Launch(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("%s: launch on a closed device: %v", d, err)
	}
	if err := g.Update(); !errors.Is(err, ErrClosed) {
		t.Errorf("%s: update on a closed device: %v", d, err)
	}
}

// TestRecordCPU checks that on the CPU backend a graph makes the recorded
// calls, in order, each time it is launched, and that an update makes it
// use new arguments.
func TestRecordCPU(t *testing.T) {
	d := cpu(t)
	m, err := d.Load(twoSpec)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	x, _ := FromSlice(d, []float32{1, 2})
	y, _ := Alloc[float32](d, 2)
	host := []float32{5, 6}
	tag := "first"
	g, err := d.Record(func(r *Recorder) error {
		s := r.Stream()
		name := tag
		if err := x.CopyFromAsync(host, s); err != nil {
			return err
		}
		if err := m.RecordCPU(0, nil, nil, []LaunchOption{OnStream(s)}, func() { calls = append(calls, "A "+name) }); err != nil {
			return err
		}
		if err := y.CopyFromBuffer(x, s); err != nil {
			return err
		}
		return m.RecordCPU(1, nil, nil, []LaunchOption{OnStream(s)}, func() { calls = append(calls, "B "+name) })
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 {
		t.Fatalf("recording ran %v", calls)
	}
	for range 2 {
		if err := g.Launch(nil); err != nil {
			t.Fatal(err)
		}
	}
	host[0] = 7 // each launch copies what the memory holds then
	tag = "second"
	if err := g.Update(); err != nil {
		t.Fatal(err)
	}
	g.Launch(nil)
	want := []string{"A first", "B first", "A first", "B first", "A second", "B second"}
	if !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	if got := y.CPUSlice(); got[0] != 7 || got[1] != 6 {
		t.Errorf("y = %v, want [7 6]", got)
	}
	if err := m.RunCPU(0, nil, nil, nil, func() { panic("boom") }); err == nil {
		t.Error("a panicking kernel succeeded")
	}
	g2, _ := d.Record(func(r *Recorder) error {
		return m.RecordCPU(0, nil, nil, []LaunchOption{OnStream(r.Stream())}, func() { panic("boom") })
	})
	var p *KernelPanic
	if err := g2.Launch(nil); !errors.As(err, &p) {
		t.Errorf("a graph with a panicking kernel: %v", err)
	}
}
