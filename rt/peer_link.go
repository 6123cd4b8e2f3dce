package rt

import (
	"fmt"
	"sync"
)

// Two GPUs that can reach each other's memory (over NVLink or PCIe) copy
// between their buffers directly: peer access is enabled once per pair of
// open devices, in both directions, and CopyPeer then queues one copy on
// the destination's stream. Where the driver says the devices cannot, or
// has no peer calls, copies are staged through host memory.

// peerDriver is a driver that copies between two of its devices directly.
type peerDriver interface {
	// canAccessPeer reports whether this device can reach peer's memory.
	canAccessPeer(peer driver) (bool, error)
	// enablePeerAccess lets this device read and write peer's memory;
	// enabling it again is no error.
	enablePeerAccess(peer driver) error
	// copyPeerAsync queues on stream s of this device a copy of bytes
	// from src, memory of srcDrv's device, to dst, memory of this device.
	copyPeerAsync(dst, src uintptr, srcDrv driver, bytes, s uintptr) error
}

// peerLink is what a pair of devices shares for copies between them.
type peerLink struct {
	once   sync.Once
	direct bool  // peer access is enabled both ways
	err    error // why enabling failed
	// mu orders the uses of events: one event of each device, with which
	// a copy waits for the work queued before it on its source's default
	// stream, and that stream for the copy.
	mu     sync.Mutex
	events map[*Device]*Event
}

// peerLinks holds the link of each pair of open devices that copied.
var peerLinks struct {
	mu sync.Mutex
	m  map[[2]*Device]*peerLink
}

// linkOf returns the link between a and b, the same whichever comes first.
// It forgets the links of devices closed since.
func linkOf(a, b *Device) *peerLink {
	if a.index > b.index {
		a, b = b, a
	}
	peerLinks.mu.Lock()
	defer peerLinks.mu.Unlock()
	if peerLinks.m == nil {
		peerLinks.m = map[[2]*Device]*peerLink{}
	}
	for k := range peerLinks.m {
		if k[0].check() != nil || k[1].check() != nil {
			delete(peerLinks.m, k)
		}
	}
	key := [2]*Device{a, b}
	l := peerLinks.m[key]
	if l == nil {
		l = &peerLink{}
		peerLinks.m[key] = l
	}
	return l
}

// EnablePeerAccess lets devices a and b, GPUs of one backend, read and
// write each other's memory, so that CopyPeer between them copies directly
// rather than through host memory. It reports whether they can: false,
// without an error, where the driver says they cannot (or has no calls for
// it), and then copies stay staged through the host. It does the work once
// per pair of open devices, and CopyPeer calls it; a program calls it to
// learn which copies are direct. On the CPU backend copies between
// pretend devices are direct.
func EnablePeerAccess(a, b *Device) (bool, error) {
	const op = "enable peer access"
	for _, d := range []*Device{a, b} {
		if d == nil {
			return false, opError(op, fmt.Errorf("nil device"))
		}
		if err := d.check(); err != nil {
			return false, opError(op, err)
		}
	}
	if a.backend != b.backend {
		return false, opError(op, fmt.Errorf("%w: a %s device and a %s device", ErrWrongDevice, a.backend, b.backend))
	}
	if a == b || a.drv == nil {
		return true, nil
	}
	l := linkOf(a, b)
	l.once.Do(func() { l.direct, l.err = l.enable(a, b) })
	return l.direct, opError(op, l.err)
}

// enable enables peer access both ways where the driver allows it, and
// makes the link's events.
func (l *peerLink) enable(a, b *Device) (bool, error) {
	pa, okA := a.drv.(peerDriver)
	pb, okB := b.drv.(peerDriver)
	if !okA || !okB || a.index == b.index {
		return false, nil
	}
	for _, p := range [][2]*Device{{a, b}, {b, a}} {
		can, err := p[0].drv.(peerDriver).canAccessPeer(p[1].drv)
		if err != nil {
			return false, fmt.Errorf("can %s reach %s: %w", p[0].shortName(), p[1].shortName(), err)
		}
		if !can {
			return false, nil
		}
	}
	if err := pa.enablePeerAccess(b.drv); err != nil {
		return false, fmt.Errorf("from %s to %s: %w", a.shortName(), b.shortName(), err)
	}
	if err := pb.enablePeerAccess(a.drv); err != nil {
		return false, fmt.Errorf("from %s to %s: %w", b.shortName(), a.shortName(), err)
	}
	l.events = map[*Device]*Event{}
	for _, d := range []*Device{a, b} {
		e, err := d.NewEvent()
		if err != nil {
			return false, err
		}
		l.events[d] = e
	}
	return true, nil
}

// shortName names a device in errors about two: "cuda device 1".
func (d *Device) shortName() string { return fmt.Sprintf("%s device %d", d.backend, d.index) }

// copyDirect queues the copy of src into dst, buffers of devices sd and d
// with peer access, on stream s of d (handle h): after the work
// queued before it on src's default stream, and before the work queued
// there after it, so that src is neither overwritten nor freed while it
// is read.
func (l *peerLink) copyDirect(d, sd *Device, dst, src argBuffer, dstPtr, srcPtr, bytes uintptr, s *Stream, h uintptr) error {
	for _, dev := range []*Device{d, sd} {
		if err := dev.enter(); err != nil {
			return err
		}
		defer dev.leave()
	}
	use := s
	if use == nil {
		use = defaultStream
	}
	if err := dst.argLaunch(d, use); err != nil {
		return err
	}
	if err := src.argLaunch(sd, defaultStream); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	before, after := l.events[sd], l.events[d]
	if before.closed.Load() || after.closed.Load() {
		return ErrClosed
	}
	err := sd.drv.recordEvent(before.handle, 0)
	if err == nil {
		err = d.drv.waitEvent(h, before.handle)
	}
	tr := d.tracer.Load()
	var start stamp
	if tr != nil {
		start = tr.mark(h)
	}
	if err == nil {
		err = d.drv.(peerDriver).copyPeerAsync(dstPtr, srcPtr, sd.drv, bytes, h)
	}
	if tr != nil && err == nil {
		tr.add(TraceEvent{Kind: "copy", Name: "copy from " + sd.shortName(), Stream: s.laneName(), Bytes: int64(bytes)}, start, tr.mark(h))
	}
	if err == nil {
		err = d.drv.recordEvent(after.handle, h)
	}
	if err == nil {
		err = sd.drv.waitEvent(0, after.handle)
	}
	return err
}
