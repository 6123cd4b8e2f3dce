package generated_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// streamCase is a test of streams and events that runs on every backend.
type streamCase struct {
	name string
	run  func(t *testing.T, dev *rt.Device, ks *kernels.Kernels)
}

var streamCases = []streamCase{
	{"KernelOnStream", testKernelOnStream},
	{"Priorities", testPriorities},
	{"TwoStreams", testTwoStreams},
	{"ProducerConsumer", testProducerConsumer},
	{"DefaultStreamWaits", testDefaultStreamWaits},
	{"DeferClose", testDeferClose},
	{"EventSynchronize", testEventSynchronize},
	{"UseAfterClose", testUseAfterClose},
	{"WrapExternal", testWrapExternal},
	{"AsyncCopiesAndViews", testAsyncCopiesAndViews},
	{"Timing", testTiming},
	{"Goroutines", testGoroutines},
	{"NoLeaks", testNoLeaks},
	{"CloseReleasesAll", testCloseReleasesAll},
}

func openCPU(t testing.TB) *rt.Device {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

func TestStreamsCPU(t *testing.T) { runCases(t, streamCases, openCPU) }
func TestStreamsGPU(t *testing.T) { runCases(t, streamCases, openGPU) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newStream(t *testing.T, dev *rt.Device) *rt.Stream {
	t.Helper()
	s, err := dev.NewStream()
	must(t, err)
	return s
}

func newEvent(t *testing.T, dev *rt.Device, opts ...rt.EventOption) *rt.Event {
	t.Helper()
	e, err := dev.NewEvent(opts...)
	must(t, err)
	return e
}

func alloc(t *testing.T, dev *rt.Device, n int) *rt.Buffer[float32] {
	t.Helper()
	b, err := rt.Alloc[float32](dev, n)
	must(t, err)
	return b
}

// expect reads b and checks that every element is want.
func expect(t *testing.T, b *rt.Buffer[float32], want float32) {
	t.Helper()
	got, err := b.Read()
	must(t, err)
	for i, v := range got {
		if v != want {
			t.Fatalf("element %d = %v, want %v", i, v, want)
		}
	}
}

const n = 1 << 16

// delay is the spin count that makes SlowFill take a while on a GPU; the
// CPU runs kernels one after the other anyway.
func delay(dev *rt.Device, gpu int) int {
	if dev.IsCPU() {
		return 2
	}
	return gpu
}

func testKernelOnStream(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s := newStream(t, dev)
	defer s.Close()
	a := alloc(t, dev, n)
	must(t, ks.Fill(a, 3, rt.OnStream(s)))
	must(t, s.Synchronize())
	done, err := s.Query()
	if err != nil || !done {
		t.Errorf("Query after Synchronize = %v, %v", done, err)
	}
	expect(t, a, 3)
}

func testTwoStreams(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s1, s2 := newStream(t, dev), newStream(t, dev)
	defer s1.Close()
	defer s2.Close()
	a, b := alloc(t, dev, n), alloc(t, dev, n)
	must(t, ks.SlowFill(a, 1, delay(dev, 2000), rt.OnStream(s1)))
	must(t, ks.SlowFill(b, 2, delay(dev, 2000), rt.OnStream(s2)))
	must(t, s1.Synchronize())
	must(t, s2.Synchronize())
	expect(t, a, 1)
	expect(t, b, 2)
}

// testProducerConsumer orders a consumer on s2 after a slow producer on s1
// with an event: without the wait, the consumer would read the old data.
func testProducerConsumer(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s1, s2 := newStream(t, dev), newStream(t, dev)
	defer s1.Close()
	defer s2.Close()
	a, b := alloc(t, dev, n), alloc(t, dev, n)
	must(t, a.Zero())
	e := newEvent(t, dev)
	defer e.Close()
	must(t, ks.SlowFill(a, 10, delay(dev, 20000), rt.OnStream(s1)))
	must(t, e.Record(s1))
	must(t, e.Wait(s2))
	must(t, ks.AddOne(b, a, rt.OnStream(s2)))
	must(t, s2.Synchronize())
	expect(t, b, 11)
}

func testDefaultStreamWaits(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s1 := newStream(t, dev)
	defer s1.Close()
	a, b := alloc(t, dev, n), alloc(t, dev, n)
	must(t, a.Zero())
	e := newEvent(t, dev)
	defer e.Close()
	must(t, ks.SlowFill(a, 5, delay(dev, 20000), rt.OnStream(s1)))
	must(t, e.Record(s1))
	must(t, e.Wait(nil)) // the default stream waits
	must(t, ks.AddOne(b, a))
	must(t, dev.Synchronize()) // waits for the default stream only
	expect(t, b, 6)
}

func testDeferClose(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a := alloc(t, dev, n)
	func() {
		s := newStream(t, dev)
		defer s.Close() // waits for the work in flight
		must(t, ks.SlowFill(a, 7, delay(dev, 20000), rt.OnStream(s)))
	}()
	expect(t, a, 7)
}

func testEventSynchronize(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s := newStream(t, dev)
	defer s.Close()
	a := alloc(t, dev, n)
	e := newEvent(t, dev)
	defer e.Close()
	must(t, ks.SlowFill(a, 4, delay(dev, 20000), rt.OnStream(s)))
	must(t, e.Record(s))
	must(t, e.Synchronize()) // the only synchronization
	done, err := e.Query()
	if err != nil || !done {
		t.Errorf("Query after Synchronize = %v, %v", done, err)
	}
	host := make([]float32, n)
	must(t, a.CopyToAsync(host, s))
	must(t, s.Synchronize())
	for _, v := range host {
		if v != 4 {
			t.Fatalf("got %v, want 4", v)
		}
	}
}

func testUseAfterClose(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a := alloc(t, dev, n)
	s := newStream(t, dev)
	must(t, s.Close())
	must(t, s.Close()) // harmless
	for name, err := range map[string]error{
		"launch":      ks.Fill(a, 1, rt.OnStream(s)),
		"synchronize": s.Synchronize(),
		"copy":        a.CopyFromAsync(make([]float32, n), s),
		"record":      func() error { e := newEvent(t, dev); defer e.Close(); return e.Record(s) }(),
	} {
		if !errors.Is(err, rt.ErrClosed) {
			t.Errorf("%s on a closed stream: %v, want ErrClosed", name, err)
		}
	}
	e := newEvent(t, dev)
	must(t, e.Close())
	must(t, e.Close())
	if err := e.Record(nil); !errors.Is(err, rt.ErrClosed) {
		t.Errorf("record of a closed event: %v", err)
	}
	if err := e.Wait(nil); !errors.Is(err, rt.ErrClosed) {
		t.Errorf("wait on a closed event: %v", err)
	}
}

// testWrapExternal launches on a stream made elsewhere, then closes the
// wrapper: the stream itself must still work.
func testWrapExternal(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	owner := newStream(t, dev) // stands in for another library's stream
	defer owner.Close()
	w, err := dev.WrapStream(owner.Handle())
	must(t, err)
	a := alloc(t, dev, n)
	must(t, ks.Fill(a, 8, rt.OnStream(w)))
	must(t, w.Synchronize())
	before := dev.Live().Streams
	must(t, w.Close())
	if after := dev.Live().Streams; after != before {
		t.Errorf("closing a wrapper destroyed a stream: %d live streams, want %d", after, before)
	}
	must(t, ks.Fill(a, 9, rt.OnStream(owner)))
	must(t, owner.Synchronize())
	expect(t, a, 9)
	if err := ks.Fill(a, 1, rt.OnStream(w)); !errors.Is(err, rt.ErrClosed) {
		t.Errorf("launch on a closed wrapper: %v", err)
	}
}

// testAsyncCopiesAndViews runs copy, kernel, copy on one stream through
// page-locked memory, with the kernel on a view of the buffer.
func testAsyncCopiesAndViews(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s := newStream(t, dev)
	defer s.Close()
	in, err := rt.AllocHost[float32](dev, n)
	must(t, err)
	defer in.Free()
	out, err := rt.AllocHost[float32](dev, n)
	must(t, err)
	defer out.Free()
	for i := range in.Data() {
		in.Data()[i] = float32(i)
	}
	a := alloc(t, dev, n)
	must(t, a.CopyFromAsync(in.Data(), s))
	must(t, ks.Accumulate(a.Slice(n/4, n/2), 1000, rt.OnStream(s)))
	c := alloc(t, dev, n)
	must(t, c.CopyFromBuffer(a, s))
	must(t, c.Slice(0, 8).Memset(0, s))
	must(t, c.CopyToAsync(out.Data(), s))
	must(t, s.Synchronize())
	for i, v := range out.Data() {
		want := float32(i)
		switch {
		case i < 8:
			want = 0
		case i >= n/4 && i < n/2:
			want += 1000
		}
		if v != want {
			t.Fatalf("element %d = %v, want %v", i, v, want)
		}
	}
	if err := a.Slice(0, 1).Free(); err == nil {
		t.Error("freeing a view succeeded")
	}
}

func testTiming(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	s := newStream(t, dev)
	defer s.Close()
	start, end := newEvent(t, dev, rt.WithTiming()), newEvent(t, dev, rt.WithTiming())
	defer start.Close()
	defer end.Close()
	a := alloc(t, dev, 256)
	must(t, start.Record(s))
	must(t, ks.SlowFill(a, 1, delay(dev, 100000), rt.OnStream(s)))
	must(t, end.Record(s))
	must(t, end.Synchronize())
	d, err := rt.ElapsedTime(start, end)
	must(t, err)
	if dev.IsCPU() != (d == 0) {
		t.Errorf("elapsed %v on %s", d, dev)
	}
	t.Logf("SlowFill of 256 elements: %v", d)
	plain := newEvent(t, dev)
	defer plain.Close()
	if _, err := rt.ElapsedTime(start, plain); err == nil {
		t.Error("ElapsedTime accepted an event without timing")
	}
}

// testGoroutines launches from 32 goroutines at once, 1000 times each,
// every goroutine on its own stream with its own buffer and value.
func testGoroutines(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	const goroutines, launches, size = 32, 1000, 256
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				s, err := dev.NewStream()
				if err != nil {
					return err
				}
				defer s.Close()
				a, err := rt.Alloc[float32](dev, size)
				if err != nil {
					return err
				}
				defer a.Free()
				if err := a.Memset(0, s); err != nil {
					return err
				}
				for range launches {
					if err := ks.Accumulate(a, float32(g), rt.OnStream(s)); err != nil {
						return err
					}
				}
				host := make([]float32, size)
				if err := a.CopyToAsync(host, s); err != nil {
					return err
				}
				if err := s.Synchronize(); err != nil {
					return err
				}
				for i, v := range host {
					if v != float32(g*launches) {
						return fmt.Errorf("goroutine %d: element %d = %v, want %v", g, i, v, g*launches)
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// testNoLeaks runs 100,000 launches with stream and event operations and
// checks that the device holds as many driver objects as before.
func testNoLeaks(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	before := dev.Live()
	a := alloc(t, dev, 256)
	launches := 0
	for round := range 100 {
		s := newStream(t, dev)
		e := newEvent(t, dev)
		for range 1000 {
			must(t, ks.Accumulate(a, 1, rt.OnStream(s)))
			launches++
		}
		must(t, e.Record(s))
		must(t, e.Wait(nil))
		if round%10 == 0 {
			must(t, e.Synchronize())
		}
		must(t, e.Close())
		must(t, s.Close())
	}
	must(t, dev.Synchronize())
	expect(t, a, float32(launches))
	must(t, a.Free())
	if after := dev.Live(); after != before {
		t.Errorf("after %d launches: live objects %+v, before %+v", launches, after, before)
	}
}

// testCloseReleasesAll closes a device that still holds objects of every
// kind: they are released, and using them is an error.
func testCloseReleasesAll(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	a := alloc(t, dev, 16)
	s := newStream(t, dev)
	e := newEvent(t, dev)
	h, err := rt.AllocHost[int32](dev, 16)
	must(t, err)
	_ = h
	live := dev.Live()
	if live.Buffers < 1 || live.HostBuffers < 1 || !dev.IsCPU() && (live.Streams < 1 || live.Events < 1) {
		t.Fatalf("live objects %+v before Close", live)
	}
	must(t, dev.Close())
	if live := dev.Live(); live != (rt.LiveObjects{}) {
		t.Errorf("after Close: %+v", live)
	}
	for name, err := range map[string]error{
		"launch": ks.Fill(a, 1), "stream": s.Synchronize(), "event": e.Record(nil), "copy": a.CopyFrom(make([]float32, 16)),
	} {
		if !errors.Is(err, rt.ErrClosed) {
			t.Errorf("%s after the device closed: %v", name, err)
		}
	}
	must(t, s.Close())
	must(t, e.Close())
	must(t, a.Free())
}

// testPriorities creates streams of the lowest and highest priority, and
// rejects one out of the device's range.
func testPriorities(t *testing.T, dev *rt.Device, ks *kernels.Kernels) {
	least, greatest, err := dev.StreamPriorityRange()
	must(t, err)
	for _, p := range []int{least, greatest} {
		s, err := dev.NewStream(rt.WithPriority(p))
		must(t, err)
		a := alloc(t, dev, 64)
		must(t, ks.Fill(a, float32(p), rt.OnStream(s)))
		must(t, s.Synchronize())
		if s.Priority() != p {
			t.Errorf("priority %d, want %d", s.Priority(), p)
		}
		must(t, s.Close())
		expect(t, a, float32(p))
	}
	if !dev.IsCPU() {
		if _, err := dev.NewStream(rt.WithPriority(greatest - 100)); err == nil {
			t.Error("a priority out of range was accepted")
		}
	}
}
