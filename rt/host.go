package rt

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// HostBuffer is page-locked (pinned) host memory: asynchronous copies
// between it and device buffers overlap with other GPU work, which copies
// from ordinary Go memory cannot. Its memory belongs to the driver, not to
// Go's collector; Free returns it. On the CPU backend it is a Go slice.
type HostBuffer[T Number] struct {
	tracked // in its device's list of what Close frees
	dev     *Device
	data    []T
	ptr     unsafe.Pointer
	freed   atomic.Bool
	graphs  atomic.Int32 // the graphs that copy from or to it
}

// AllocHost allocates n page-locked elements for d.
func AllocHost[T Number](d *Device, n int) (*HostBuffer[T], error) {
	op := fmt.Sprintf("allocate %d×%T page-locked", n, *new(T))
	if n < 0 {
		return nil, opError(op, fmt.Errorf("negative length"))
	}
	if err := d.check(); err != nil {
		return nil, opError(op, err)
	}
	size, err := allocSize[T](n, true)
	if err != nil {
		return nil, opError(op, err)
	}
	h := &HostBuffer[T]{dev: d}
	switch {
	case d.drv == nil:
		if h.data, err = makeHost[T](n); err != nil {
			return nil, opError(op, err)
		}
	case n > 0:
		p, err := d.drv.allocHost(size)
		if err != nil {
			return nil, opError(op, err)
		}
		h.ptr = p
		h.data = unsafe.Slice((*T)(p), n)
	}
	if err := d.track(h); err != nil {
		h.release()
		return nil, opError(op, err)
	}
	d.hostBuffers.Add(1)
	return h, nil
}

// Data returns the buffer's elements as a Go slice; it must not be used
// after Free.
func (h *HostBuffer[T]) Data() []T { return h.data }

// Len returns the number of elements.
func (h *HostBuffer[T]) Len() int { return len(h.data) }

// Free returns the memory to the driver, once the asynchronous copies from
// and to it are done; freeing twice is harmless. Freeing memory a graph
// copies from or to is an error wrapping ErrInUse.
func (h *HostBuffer[T]) Free() error {
	if h == nil || h.freed.Load() {
		return nil
	}
	if h.dev.check() != nil {
		h.freed.Store(true)
		return nil
	}
	if n := h.graphs.Load(); n > 0 {
		return opError("free page-locked buffer", fmt.Errorf("%w: %d graphs copy from or to it; close or update them first", ErrInUse, n))
	}
	h.dev.untrack(h)
	return opError("free page-locked buffer", h.release())
}

func (h *HostBuffer[T]) release() error {
	if h.freed.Swap(true) {
		return nil
	}
	h.dev.hostBuffers.Add(-1)
	h.data = nil
	if h.ptr == nil {
		return nil
	}
	return h.dev.drv.freeHost(h.ptr)
}
