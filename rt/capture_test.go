package rt

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestRecordForeign records a library's call (QueueForeign) between two
// kernel launches on a fake driver: the call is captured on a private
// stream into a child graph node that waits for the first kernel and is
// waited for by the second; an update captures anew and sets the child
// node in place; the captured graphs live as long as the graph.
func TestRecordForeign(t *testing.T) {
	d, drv, m := fakeModule(t, 0, twoSpec)
	x, _ := Alloc[float32](d, 256)
	var captured []string
	arg := "a1"
	drv.takeLog()
	record := func(r *Recorder) error {
		s := r.Stream()
		if err := stub(m, 0, 256, arg, []ArgBuffer{x}, OnStream(s)); err != nil {
			return err
		}
		err := d.QueueForeign(s, "collective", "all-reduce", 1024, func(h uintptr) error {
			if h == 0 || drv.capturing() != h {
				t.Errorf("the call got stream %#x while %#x is captured", h, drv.capturing())
			}
			captured = append(captured, drv.name(h))
			drv.logf("library call on %s", drv.name(h))
			return nil
		})
		if err != nil {
			return err
		}
		return stub(m, 1, 1, "b", []ArgBuffer{x}, OnStream(s))
	}
	g, err := d.Record(record)
	if err != nil {
		t.Fatal(err)
	}
	fg := drv.graphs[g.graph]
	want := []string{
		"0 A (task A_0) <- []",
		"1 child <- [0]",
		"2 B (task B_0) <- [1]",
	}
	if got := planOf(fg.nodes); !slices.Equal(got, want) {
		t.Errorf("graph:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	s := captured[0]
	expectLog(t, drv, "begin capture on "+s, "library call on "+s, "end capture on "+s, "instantiate 3 nodes")
	if n := drv.liveCaptures(); n != 1 {
		t.Errorf("%d captured graphs alive, want 1", n)
	}
	if err := g.Launch(nil); err != nil {
		t.Fatal(err)
	}
	drv.takeLog()

	arg = "a2"
	if err := g.Update(); err != nil {
		t.Fatal(err)
	}
	s = captured[1]
	expectLog(t, drv, "begin capture on "+s, "library call on "+s, "end capture on "+s, "set node 0 (A (task A_0))", "set child node 1")
	if g.updates != 1 || g.rebuilds != 1 {
		t.Errorf("%d updates, %d rebuilds; want 1 and 1", g.updates, g.rebuilds)
	}
	if n := drv.liveCaptures(); n != 1 {
		t.Errorf("after the update %d captured graphs alive, want 1", n)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if n := drv.liveCaptures(); n != 0 {
		t.Errorf("after Close %d captured graphs alive, want 0", n)
	}
}

// TestRecordForeignErrors checks what a recorded library call gets when
// the driver cannot capture, when the capture fails, and when the call
// fails: errors naming the call, and no captured graph left behind.
func TestRecordForeignErrors(t *testing.T) {
	d, drv, _ := fakeModule(t, 0, twoSpec)
	call := func(err error) func(*Recorder) error {
		return func(r *Recorder) error {
			return d.QueueForeign(r.Stream(), "collective", "all-reduce", 8, func(uintptr) error { return err })
		}
	}
	drv.capture.none = true
	if _, err := d.Record(call(nil)); !errors.Is(err, ErrRecording) || !strings.Contains(err.Error(), "all-reduce cannot be recorded") {
		t.Errorf("without stream capture: %v", err)
	}
	drv.capture.none = false
	drv.capture.failEnd = true
	if _, err := d.Record(call(nil)); err == nil || !strings.Contains(err.Error(), "all-reduce could not be captured") || !strings.Contains(err.Error(), "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED") {
		t.Errorf("a failed capture: %v", err)
	}
	drv.capture.failEnd = false
	boom := errors.New("ncclAllReduce: invalid usage")
	if _, err := d.Record(call(boom)); !errors.Is(err, boom) || !strings.Contains(err.Error(), "all-reduce") {
		t.Errorf("a failed call: %v", err)
	}
	// A recording that fails after a capture leaves no captured graph.
	_, err := d.Record(func(r *Recorder) error {
		if err := call(nil)(r); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("recording: %v", err)
	}
	if n := drv.liveCaptures(); n != 0 {
		t.Errorf("%d captured graphs alive after failed recordings", n)
	}
}

// TestRecordForeignCPU checks that on the CPU backend a recorded library
// call runs at each launch, in order with the recorded kernels.
func TestRecordForeignCPU(t *testing.T) {
	d := cpu(t)
	m, err := d.Load(twoSpec)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	g, err := d.Record(func(r *Recorder) error {
		s := r.Stream()
		if err := m.RecordCPU(0, nil, nil, []LaunchOption{OnStream(s)}, func() { calls = append(calls, "A") }); err != nil {
			return err
		}
		err := d.QueueForeign(s, "collective", "all-reduce", 8, func(h uintptr) error {
			calls = append(calls, "all-reduce")
			return nil
		})
		if err != nil {
			return err
		}
		return m.RecordCPU(1, nil, nil, []LaunchOption{OnStream(s)}, func() { calls = append(calls, "B") })
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 {
		t.Errorf("recording ran %q", calls)
	}
	g.Launch(nil)
	g.Launch(nil)
	if want := []string{"A", "all-reduce", "B", "A", "all-reduce", "B"}; !slices.Equal(calls, want) {
		t.Errorf("launches ran %q, want %q", calls, want)
	}
}

// TestRecordCopyPeer checks that a copy between the CPU backend's devices
// is recorded, copying at each launch what the source holds then, and
// that one between GPUs is refused with an error saying why.
func TestRecordCopyPeer(t *testing.T) {
	t.Setenv("QD_CPU_DEVICES", "2")
	devs, err := OpenAll(WithBackend(CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer CloseAll(devs)
	src, _ := FromSlice(devs[0], []float32{1, 2, 3})
	dst, _ := Alloc[float32](devs[1], 3)
	g, err := devs[1].Record(func(r *Recorder) error { return CopyPeer(dst, src, r.Stream()) })
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := dst.Read(); !slices.Equal(got, []float32{0, 0, 0}) {
		t.Errorf("recording copied: %v", got)
	}
	if err := src.CopyFrom([]float32{4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	if err := g.Launch(nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := dst.Read(); !slices.Equal(got, []float32{4, 5, 6}) {
		t.Errorf("after the launch: %v, want [4 5 6]", got)
	}

	a, b, fa, fb := openFakePair(t, nil)
	gsrc, gdst := peerBuffers(t, a, b, fa, fb)
	_, err = b.Record(func(r *Recorder) error { return CopyPeer(gdst, gsrc, r.Stream()) })
	if !errors.Is(err, ErrRecording) || !strings.Contains(err.Error(), "copy between GPUs cannot be recorded") {
		t.Errorf("recording a copy between GPUs: %v", err)
	}
}
