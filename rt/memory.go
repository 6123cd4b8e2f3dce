package rt

import (
	"errors"
	"os"
	"sync/atomic"
)

// Device memory is stream-ordered where the driver has memory pools (CUDA
// 11.2 and later): Free returns at once, and the memory goes back to the
// device's pool once every stream the buffer was used on has reached the
// point where Free was called. The runtime knows those streams: each
// launch, copy and memset marks the buffers it uses with its stream, and a
// graph launch marks every buffer of the graph. So freeing a buffer that
// queued work still uses is safe, on any stream, without waiting for the
// device.
//
// Alloc takes memory from the pool on a stream of its own that carries
// only allocations, and waits for that stream: the pool reuses memory only
// once its free has happened, so the wait never includes other work, and
// the new buffer may be used on any stream at once. AllocOn and FreeOn are
// the bare stream-ordered operations, for a buffer used on one stream.
//
// Without memory pools (or with QD_MEMPOOL=off) Alloc and Free call
// cuMemAlloc and cuMemFree, which waits for the device to be idle.

// memory is how a device allocates its buffers. Its two streams belong to
// the device as its context does: Device.Live does not count them.
type memory struct {
	dev    *Device
	pooled bool
	// allocStream carries only allocations; freeStream carries the frees
	// that wait for several streams.
	allocStream, freeStream uintptr
}

func (m *memory) open(d *Device) error {
	m.dev = d
	if d.drv == nil || !d.drv.features().memPools || os.Getenv("QD_MEMPOOL") == "off" {
		return nil
	}
	var err error
	if m.allocStream, err = d.drv.newStream(0); err != nil {
		return err
	}
	if m.freeStream, err = d.drv.newStream(0); err != nil {
		return err
	}
	m.pooled = true
	return nil
}

func (m *memory) release() error {
	var err error
	for _, s := range []*uintptr{&m.allocStream, &m.freeStream} {
		if *s != 0 {
			if e := m.dev.drv.destroyStream(*s); err == nil {
				err = e
			}
			*s = 0
		}
	}
	m.pooled = false
	return err
}

// outOfMemory is CUDA_ERROR_OUT_OF_MEMORY (hipErrorOutOfMemory is 2 too).
const outOfMemory = 2

// isDriverError reports whether err is a driver's error of the given code.
// Its variable lives only on that path: errors.As's target escapes, and
// would cost every allocation a heap object.
func isDriverError(err error, code int) bool {
	if err == nil {
		return false
	}
	var de *DriverError
	return errors.As(err, &de) && de.Code == code
}

// allocate allocates bytes usable on any stream at once; with on != nil,
// stream-ordered on that stream only.
func (m *memory) allocate(bytes uintptr, on *Stream) (uintptr, error) {
	// An atomic on an 8- or 16-bit element updates the aligned 32-bit
	// word that holds it, so every allocation is whole words: the word of
	// a buffer's last byte is all inside it.
	bytes = (bytes + 3) &^ 3
	drv := m.dev.drv
	if !m.pooled {
		return drv.alloc(bytes)
	}
	s, wait := m.allocStream, true
	if on != nil {
		s, wait = on.handle, false
	}
	p, err := drv.allocAsync(bytes, s, wait)
	if isDriverError(err, outOfMemory) {
		// Memory freed but not yet released by its streams is not reused
		// until they reach the free: wait for them, then try once more.
		if err = drv.synchronizeAll(); err == nil {
			p, err = drv.allocAsync(bytes, s, wait)
		}
	}
	return p, err
}

// deallocate frees memory that was used on the streams of uses.
func (m *memory) deallocate(ptr uintptr, uses *useSet) error {
	drv := m.dev.drv
	if !m.pooled {
		return drv.free(ptr)
	}
	var buf [useSlots]*Stream
	streams := uses.list(m.dev, buf[:0])
	switch len(streams) {
	case 0:
		return drv.freeAsync(ptr, m.freeStream, nil, nil)
	case 1:
		return drv.freeAsync(ptr, streams[0].handle, nil, nil)
	}
	handles := make([]uintptr, len(streams))
	for i, s := range streams {
		handles[i] = s.handle
	}
	events, err := m.dev.pool.takeEvents(len(streams))
	if err != nil {
		return err
	}
	defer m.dev.pool.put(events)
	return drv.freeAsync(ptr, m.freeStream, handles, events)
}

// useSlots is how many streams a buffer remembers; a buffer used on more
// streams is freed after every stream of its device.
const useSlots = 4

// useSet is the streams a buffer was used on. The default stream is
// defaultStream. Marking a buffer with a stream it already has is one
// atomic load.
type useSet struct {
	slots [useSlots]atomic.Pointer[Stream]
	many  atomic.Bool
}

// defaultStream stands for the default stream of every device in use sets.
var defaultStream = &Stream{lane: "default stream"}

func (u *useSet) add(s *Stream) {
	if s == nil {
		s = defaultStream
	}
	for i := range u.slots {
		p := u.slots[i].Load()
		if p == s {
			return
		}
		if p == nil {
			if u.slots[i].CompareAndSwap(nil, s) || u.slots[i].Load() == s {
				return
			}
		}
	}
	u.many.Store(true)
}

// list appends the streams of u that may still have work using the
// buffer, all of d's streams when u overflowed. A closed stream has none:
// closing it waited for its work.
func (u *useSet) list(d *Device, out []*Stream) []*Stream {
	if u.many.Load() {
		out = append(out, defaultStream)
		d.mu.Lock()
		for _, l := range d.live {
			if s, ok := l.r.(*Stream); ok && !s.closed.Load() {
				out = append(out, s)
			}
		}
		d.mu.Unlock()
		return out
	}
	for i := range u.slots {
		if s := u.slots[i].Load(); s != nil && !s.closed.Load() {
			out = append(out, s)
		}
	}
	return out
}
