package rt

import (
	"fmt"
	"unsafe"
)

func (b *Buffer[T]) usable() error {
	if b == nil {
		return fmt.Errorf("nil buffer")
	}
	if b.root.freed.Load() {
		return ErrClosed
	}
	return b.dev.check()
}

// prepare checks a copy's operands and returns the stream's handle.
func (b *Buffer[T]) prepare(n int, what string, s *Stream) (uintptr, error) {
	if err := b.usable(); err != nil {
		return 0, err
	}
	if n != b.n {
		return 0, fmt.Errorf("%s has %d elements, buffer has %d", what, n, b.n)
	}
	return s.use(b.dev)
}

// CopyFrom copies src, which must have b.Len() elements, into b. It is
// ordered after the work already queued on the default stream and returns
// when the data is in b, so that work queued next on any stream sees it;
// it does not wait for other streams' work queued before.
func (b *Buffer[T]) CopyFrom(src []T) error { return b.toDevice(src, nil, false) }

// CopyTo copies b into dst, which must have b.Len() elements. It waits for
// the work already queued on the default stream, so it sees what those
// kernels wrote, and returns a kernel's Fault if one was recorded; it does
// not wait for other streams.
func (b *Buffer[T]) CopyTo(dst []T) error { return b.toHost(dst, nil, false) }

// CopyFromAsync queues a copy of src into b on stream s (nil: the default
// stream). The copy overlaps with other work only when src is page-locked
// memory from a HostBuffer, which must then stay unchanged until the
// stream has done the copy; from ordinary Go memory the driver copies
// src before CopyFromAsync returns. On a stream of a recording src must be
// page-locked, and each replay copies what it holds then.
func (b *Buffer[T]) CopyFromAsync(src []T, s *Stream) error { return b.toDevice(src, s, true) }

// CopyToAsync queues a copy of b into dst on stream s (nil: the default
// stream). It overlaps with other work only when dst is page-locked memory
// from a HostBuffer, whose contents are then valid once the stream has
// done the copy (synchronize the stream or an event recorded after it);
// into ordinary Go memory it returns when the copy is done. On a stream of
// a recording dst must be page-locked.
func (b *Buffer[T]) CopyToAsync(dst []T, s *Stream) error { return b.toHost(dst, s, true) }

func (b *Buffer[T]) toDevice(src []T, s *Stream, async bool) error {
	const op = "copy to device"
	h, err := b.prepare(len(src), "source", s)
	if err != nil || b.n == 0 {
		return opError(op, err)
	}
	p := unsafe.Pointer(unsafe.SliceData(src))
	return opError(op, b.dev.transfer(&transfer{
		name: op, s: s, handle: h, async: async, bufs: [2]argBuffer{b},
		node: graphNode{kind: nodeCopy, dstType: deviceMemory, srcType: hostMemory, dst: b.ptr, src: uintptr(p), bytes: b.bytes()},
		host: p,
		cpu:  func() { copy(b.host, src) },
	}))
}

func (b *Buffer[T]) toHost(dst []T, s *Stream, async bool) error {
	const op = "copy from device"
	h, err := b.prepare(len(dst), "destination", s)
	if err != nil {
		return opError(op, err)
	}
	if b.n == 0 {
		// Nothing to copy, but a copy back still observes the work
		// before it: it waits for it and reports a kernel's fault.
		if s.recording() {
			return nil
		}
		if !async && b.dev.drv != nil {
			err = opError(op, b.dev.drv.synchronizeStream(h))
		}
		return b.dev.observe(err)
	}
	p := unsafe.Pointer(unsafe.SliceData(dst))
	err = opError(op, b.dev.transfer(&transfer{
		name: op, s: s, handle: h, async: async, bufs: [2]argBuffer{b},
		node: graphNode{kind: nodeCopy, dstType: hostMemory, srcType: deviceMemory, dst: uintptr(p), src: b.ptr, bytes: b.bytes()},
		host: p,
		cpu:  func() { copy(dst, b.host) },
	}))
	if s.recording() {
		return err
	}
	return b.dev.observe(err)
}

// CopyFromBuffer queues a copy of src, another buffer of the same device
// and length, into b on stream s (nil: the default stream).
func (b *Buffer[T]) CopyFromBuffer(src *Buffer[T], s *Stream) error {
	const op = "copy on device"
	if err := src.usable(); err != nil {
		return opError(op, err)
	}
	if src.dev != b.dev {
		return opError(op, ErrWrongDevice)
	}
	h, err := b.prepare(src.n, "source", s)
	if err != nil || b.n == 0 {
		return opError(op, err)
	}
	return opError(op, b.dev.transfer(&transfer{
		name: op, s: s, handle: h, async: true, bufs: [2]argBuffer{b, src},
		node: graphNode{kind: nodeCopy, dstType: deviceMemory, srcType: deviceMemory, dst: b.ptr, src: src.ptr, bytes: b.bytes()},
		cpu:  func() { copy(b.host, src.host) },
	}))
}

// Memset queues setting every byte of b to value on stream s (nil: the
// default stream).
func (b *Buffer[T]) Memset(value byte, s *Stream) error {
	const op = "memset"
	h, err := b.prepare(b.n, "", s)
	if err != nil || b.n == 0 {
		return opError(op, err)
	}
	return opError(op, b.dev.transfer(&transfer{
		name: op, s: s, handle: h, async: true, bufs: [2]argBuffer{b},
		node: graphNode{kind: nodeMemset, dstType: deviceMemory, dst: b.ptr, bytes: b.bytes(), value: value},
		cpu: func() {
			bytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b.host))), b.bytes())
			for i := range bytes {
				bytes[i] = value
			}
		},
	}))
}

// transfer is one copy or memset, checked and ready to queue.
type transfer struct {
	name   string
	s      *Stream
	handle uintptr
	async  bool
	bufs   [2]argBuffer // the device buffers it uses
	node   graphNode
	host   unsafe.Pointer // the host memory of a copy to or from the host
	cpu    func()         // the copy on the CPU backend
}

// transfer queues t on its stream, or adds it to the stream's recording.
// Close waits for it, and it fails once Close has begun.
func (d *Device) transfer(t *transfer) error {
	t.node.name = t.name
	if t.s.recording() {
		return t.s.rec.addTransfer(t)
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	use := t.s
	if use == nil {
		use = defaultStream // argLaunch marks no use for nil
	}
	for _, b := range t.bufs {
		if b == nil {
			continue
		}
		if err := b.argLaunch(d, use); err != nil {
			return err // freed since it was checked
		}
	}
	tr := d.tracer.Load()
	var start stamp
	if tr != nil {
		start = tr.mark(t.handle)
	}
	var err error
	if d.drv == nil {
		t.cpu()
	} else {
		err = d.queueTransfer(t)
	}
	if tr != nil {
		kind := "copy"
		if t.node.kind == nodeMemset {
			kind = "memset"
		}
		tr.add(TraceEvent{Kind: kind, Name: t.name, Stream: t.s.laneName(), Bytes: int64(t.node.bytes)}, start, tr.mark(t.handle))
	}
	return err
}

// waitFor waits for stream h after a copy was queued on it, unless queuing
// failed. A copy that is not asynchronous returns with the data in place:
// from or to ordinary Go memory the driver's own synchronous copy may
// return before the DMA is done, which work queued next on a non-blocking
// stream would not wait for.
func waitFor(queued error, drv driver, h uintptr) error {
	if queued != nil {
		return queued
	}
	return drv.synchronizeStream(h)
}

// queueTransfer makes the driver call of t.
func (d *Device) queueTransfer(t *transfer) error {
	n, h := &t.node, t.handle
	switch {
	case n.kind == nodeMemset:
		return d.drv.memsetAsync(n.dst, n.value, n.bytes, h)
	case n.srcType == hostMemory && t.async:
		return d.drv.copyToDeviceAsync(n.dst, t.host, n.bytes, h)
	case n.srcType == hostMemory:
		return waitFor(d.drv.copyToDeviceAsync(n.dst, t.host, n.bytes, h), d.drv, h)
	case n.dstType == hostMemory && t.async:
		return d.drv.copyToHostAsync(t.host, n.src, n.bytes, h)
	case n.dstType == hostMemory:
		return waitFor(d.drv.copyToHostAsync(t.host, n.src, n.bytes, h), d.drv, h)
	}
	return d.drv.copyOnDeviceAsync(n.dst, n.src, n.bytes, h)
}
