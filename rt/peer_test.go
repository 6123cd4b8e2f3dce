package rt

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// openFakePair opens two devices on fake drivers, as two GPUs of one
// backend, with the peer answers set first.
func openFakePair(t *testing.T, set func(a, b *fakeDriver)) (a, b *Device, fa, fb *fakeDriver) {
	t.Helper()
	fa, fb = newFakeDriver(), newFakeDriver()
	if set != nil {
		set(fa, fb)
	}
	a, b = newGPUDevice(CUDA, 0, fa), newGPUDevice(CUDA, 1, fb)
	for _, d := range []*Device{a, b} {
		if err := d.setup(1); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
	}
	return a, b, fa, fb
}

// peerBuffers allocates 16 float32 on each device and forgets the logs.
func peerBuffers(t *testing.T, a, b *Device, fa, fb *fakeDriver) (src, dst *Buffer[float32]) {
	t.Helper()
	src, err := Alloc[float32](a, 16)
	if err == nil {
		dst, err = Alloc[float32](b, 16)
	}
	if err != nil {
		t.Fatal(err)
	}
	fa.takeLog()
	fb.takeLog()
	return src, dst
}

// hasLine reports whether the log has a line starting with prefix.
func hasLine(log []string, prefix string) bool {
	return slices.ContainsFunc(log, func(l string) bool { return strings.HasPrefix(l, prefix) })
}

func TestCopyPeerFakeDirect(t *testing.T) {
	a, b, fa, fb := openFakePair(t, nil)
	src, dst := peerBuffers(t, a, b, fa, fb)
	s, err := b.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := CopyPeer(dst, src, s); err != nil {
		t.Fatal(err)
	}
	// The destination waits for the source's default stream, copies on
	// s, and the source's default stream waits for the copy.
	if got, want := fb.takeLog(), []string{"enable peer access", "wait " + fb.name(s.handle), "copy from peer 64 on " + fb.name(s.handle)}; !slices.Equal(got, want) {
		t.Errorf("destination's driver did %q, want %q", got, want)
	}
	if got, want := fa.takeLog(), []string{"enable peer access", "wait default"}; !slices.Equal(got, want) {
		t.Errorf("source's driver did %q, want %q", got, want)
	}
	// Again, and the other way: peer access is enabled once per pair.
	if err := CopyPeer(src, dst, nil); err != nil {
		t.Fatal(err)
	}
	if fa.peer.enabled != 1 || fb.peer.enabled != 1 {
		t.Errorf("peer access enabled %d and %d times, want once each way", fa.peer.enabled, fb.peer.enabled)
	}
	if got := fa.takeLog(); !slices.Contains(got, "copy from peer 64 on default") || hasLine(got, "copy to host") {
		t.Errorf("the copy back did %q, want one direct copy on the default stream", got)
	}
	if direct, err := EnablePeerAccess(b, a); !direct || err != nil {
		t.Errorf("EnablePeerAccess = %v, %v; want true", direct, err)
	}
}

func TestCopyPeerFakeStaged(t *testing.T) {
	a, b, fa, fb := openFakePair(t, func(a, b *fakeDriver) { b.peer.noPeer = true })
	src, dst := peerBuffers(t, a, b, fa, fb)
	if direct, err := EnablePeerAccess(a, b); direct || err != nil {
		t.Errorf("EnablePeerAccess where one device cannot reach the other = %v, %v; want false", direct, err)
	}
	if err := CopyPeer(dst, src, nil); err != nil {
		t.Fatal(err)
	}
	if !hasLine(fa.takeLog(), "copy to host 64") || !hasLine(fb.takeLog(), "copy to device 64") {
		t.Error("without peer access the copy was not staged through the host")
	}
	if fa.peer.enabled+fb.peer.enabled != 0 {
		t.Errorf("peer access enabled %d times where it cannot be", fa.peer.enabled+fb.peer.enabled)
	}
}

func TestCopyPeerFakeEnableFails(t *testing.T) {
	a, b, fa, fb := openFakePair(t, func(a, b *fakeDriver) { a.peer.failEnable = true })
	src, dst := peerBuffers(t, a, b, fa, fb)
	err := CopyPeer(dst, src, nil)
	var de *DriverError
	if !errors.As(err, &de) || de.Call != "cuCtxEnablePeerAccess" {
		t.Fatalf("CopyPeer where enabling fails: %v, want the driver's error", err)
	}
	for _, want := range []string{"copy between devices", "enable peer access", "cuda device 0 to cuda device 1", "CUDA_ERROR_TOO_MANY_PEERS"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// The failure is remembered, not retried at every copy.
	if err2 := CopyPeer(dst, src, nil); err2 == nil || fa.peer.enabled != 1 {
		t.Errorf("second copy: %v after %d tries, want the same error after one", err2, fa.peer.enabled)
	}
}

func TestCopyPeerFakeReopened(t *testing.T) {
	a, b, fa, fb := openFakePair(t, nil)
	if direct, err := EnablePeerAccess(a, b); !direct || err != nil {
		t.Fatalf("EnablePeerAccess = %v, %v", direct, err)
	}
	b.Close()
	if _, err := EnablePeerAccess(a, b); !errors.Is(err, ErrClosed) {
		t.Errorf("EnablePeerAccess with a closed device: %v, want ErrClosed", err)
	}
	// A device opened again is a new pair: access is enabled again.
	b2 := newGPUDevice(CUDA, 1, fb)
	if err := b2.setup(1); err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if direct, err := EnablePeerAccess(b2, a); !direct || err != nil || fa.peer.enabled != 2 {
		t.Errorf("after reopening: %v, %v, enabled %d times; want true, twice", direct, err, fa.peer.enabled)
	}
	var cpu Device
	cpu.backend = CPU
	if _, err := EnablePeerAccess(a, &cpu); !errors.Is(err, ErrWrongDevice) {
		t.Errorf("EnablePeerAccess of a cuda and a cpu device: %v, want ErrWrongDevice", err)
	}
}

func TestCopyPeerFakeTraced(t *testing.T) {
	a, b, fa, fb := openFakePair(t, nil)
	src, dst := peerBuffers(t, a, b, fa, fb)
	if err := b.StartTrace(); err != nil {
		t.Fatal(err)
	}
	if err := CopyPeer(dst, src, nil); err != nil {
		t.Fatal(err)
	}
	tr, err := b.StopTrace()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tr.Events, func(e TraceEvent) bool {
		return e.Kind == "copy" && e.Name == "copy from cuda device 0" && e.Bytes == 64 && e.Stream == "default stream"
	}) {
		t.Errorf("the trace has no copy from device 0: %+v", tr.Events)
	}
}

// Copies both ways at once from several goroutines enable peer access
// once and share the pair's events safely (go test -race).
func TestCopyPeerFakeConcurrent(t *testing.T) {
	a, b, fa, fb := openFakePair(t, nil)
	src, dst := peerBuffers(t, a, b, fa, fb)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			if i%2 == 0 {
				errs <- CopyPeer(dst, src, nil)
			} else {
				errs <- CopyPeer(src, dst, nil)
			}
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if fa.peer.enabled != 1 || fb.peer.enabled != 1 {
		t.Errorf("peer access enabled %d and %d times, want once each way", fa.peer.enabled, fb.peer.enabled)
	}
	if n := len(slices.DeleteFunc(append(fa.takeLog(), fb.takeLog()...), func(l string) bool { return !strings.HasPrefix(l, "copy from peer") })); n != 8 {
		t.Errorf("%d direct copies, want 8", n)
	}
}
