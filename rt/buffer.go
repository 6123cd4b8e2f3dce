package rt

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Buffer is an array of elements of type T in a device's memory: what a
// kernel's slice parameter receives. On the CPU backend it is a Go slice.
// A Buffer may be a view of part of another (Slice); views share their
// parent's memory and become unusable when it is freed.
type Buffer[T Element] struct {
	tracked // in its device's list of what Close frees
	dev     *Device
	ptr     uintptr // device address of element 0
	n       int
	host    []T        // the CPU backend's storage
	root    *Buffer[T] // the allocation a view belongs to; itself for allocations
	freed   atomic.Bool

	// Of an allocation: the streams it was used on, and how many graphs
	// refer to it.
	uses   useSet
	graphs atomic.Int32
}

// Alloc allocates a buffer of n elements on d, usable on every stream. Its
// contents are undefined until written.
func Alloc[T Element](d *Device, n int) (*Buffer[T], error) { return alloc[T](d, n, nil) }

// AllocOn allocates a buffer of n elements on d, ordered on stream s (nil:
// the default stream): work queued on s after AllocOn may use it at once,
// and the host need not wait for s; other streams must first wait for s
// (Event.Wait). Where the driver has no memory pools it is Alloc.
func AllocOn[T Element](d *Device, n int, s *Stream) (*Buffer[T], error) {
	if s == nil {
		s = defaultStream
	}
	return alloc[T](d, n, s)
}

func alloc[T Element](d *Device, n int, on *Stream) (*Buffer[T], error) {
	if n < 0 {
		return nil, allocError[T](n, fmt.Errorf("negative length"))
	}
	if err := checkElement[T](); err != nil {
		return nil, allocError[T](n, err)
	}
	if err := d.check(); err != nil {
		return nil, allocError[T](n, err)
	}
	if on != nil && on != defaultStream {
		if _, err := on.use(d); err != nil {
			return nil, allocError[T](n, err)
		}
		if on.rec != nil {
			return nil, allocError[T](n, fmt.Errorf("a stream of a recording: %w", ErrRecording))
		}
	}
	size, err := allocSize[T](n, d.drv == nil)
	if err != nil {
		return nil, allocError[T](n, err)
	}
	b := &Buffer[T]{dev: d, n: n}
	b.root = b
	if d.drv == nil {
		if b.host, err = makeHost[T](n); err != nil {
			return nil, allocError[T](n, err)
		}
	} else if n > 0 {
		ptr, err := d.mem.allocate(size, on)
		if err != nil {
			return nil, allocError[T](n, err)
		}
		b.ptr = ptr
		if on != nil {
			b.uses.add(on)
		}
	}
	if err := d.track(b); err != nil {
		b.release()
		return nil, allocError[T](n, err)
	}
	d.buffers.Add(1)
	return b, nil
}

// allocError is the error of allocating n elements; the operation is
// named only on failure, so that an allocation formats nothing.
func allocError[T Element](n int, err error) error {
	return opError(fmt.Sprintf("allocate %d×%T", n, *new(T)), err)
}

// FromSlice allocates a buffer on d holding a copy of src.
func FromSlice[T Element](d *Device, src []T) (*Buffer[T], error) {
	b, err := Alloc[T](d, len(src))
	if err != nil {
		return nil, err
	}
	if err := b.CopyFrom(src); err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

func elemSize[T Element]() uintptr { return unsafe.Sizeof(*new(T)) }

func (b *Buffer[T]) bytes() uintptr { return uintptr(b.n) * elemSize[T]() }

// Len returns the number of elements.
func (b *Buffer[T]) Len() int { return b.n }

// Device returns the device b lives on.
func (b *Buffer[T]) Device() *Device { return b.dev }

// DevicePointer returns b's device address, for use with other GPU
// libraries; 0 on the CPU backend.
func (b *Buffer[T]) DevicePointer() uintptr { return b.ptr }

// CPUSlice returns the Go slice that holds b's elements on the CPU backend,
// and nil on a GPU.
func (b *Buffer[T]) CPUSlice() []T { return b.host }

// Slice returns a view of elements [lo, hi) of b, usable wherever a buffer
// is: as a kernel argument, or as the source or destination of a copy. It
// panics if the bounds are out of range, as slicing does.
func (b *Buffer[T]) Slice(lo, hi int) *Buffer[T] {
	if lo < 0 || hi < lo || hi > b.n {
		panic(fmt.Sprintf("rt: slice bounds [%d:%d] out of range for a buffer of %d elements", lo, hi, b.n))
	}
	v := &Buffer[T]{dev: b.dev, n: hi - lo, root: b.root}
	if b.host != nil {
		v.host = b.host[lo:hi:hi]
	}
	if b.ptr != 0 {
		v.ptr = b.ptr + uintptr(lo)*elemSize[T]()
	}
	return v
}

// Read returns a new slice holding b's elements, like CopyTo.
func (b *Buffer[T]) Read() ([]T, error) {
	dst := make([]T, b.Len())
	if err := b.CopyTo(dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// Zero sets every element of b to zero, in order with the default stream,
// and returns when it is done.
func (b *Buffer[T]) Zero() error {
	if err := b.Memset(0, nil); err != nil {
		return err
	}
	if b.dev.drv == nil {
		return nil
	}
	return opError("zero buffer", b.dev.drv.synchronize())
}

// Free releases b's memory. It is safe while work queued on any stream
// still uses b: the memory is reused only once every stream b was used on
// has reached this point (see memory.go). Freeing twice is harmless; any
// other use of a freed buffer, or of a view of it, returns an error
// wrapping ErrClosed. A view cannot be freed: free the buffer it was
// sliced from. Freeing a buffer that a graph refers to is an error
// wrapping ErrInUse: close or update the graph first.
func (b *Buffer[T]) Free() error { return b.free(nil) }

// FreeOn frees b ordered on stream s alone (nil: the default stream): the
// memory may be reused once s reaches this point, whatever other streams
// still do, so every use of b must be ordered before it on s.
func (b *Buffer[T]) FreeOn(s *Stream) error {
	if s == nil {
		s = defaultStream
	}
	return b.free(s)
}

func (b *Buffer[T]) free(on *Stream) error {
	const op = "free buffer"
	if b == nil {
		return nil
	}
	if b.root != b {
		return opError(op, fmt.Errorf("the buffer is a view; free the buffer it was sliced from"))
	}
	if b.freed.Load() {
		return nil
	}
	if b.dev.check() != nil {
		b.freed.Store(true) // the device released everything
		return nil
	}
	if n := b.graphs.Load(); n > 0 {
		return opError(op, fmt.Errorf("%w: %d graphs refer to the buffer; close or update them first", ErrInUse, n))
	}
	if on != nil && on != defaultStream {
		if _, err := on.use(b.dev); err != nil {
			return opError(op, err)
		}
		if on.rec != nil {
			return opError(op, fmt.Errorf("a stream of a recording: %w", ErrRecording))
		}
	}
	b.dev.untrack(b)
	if on != nil {
		b.uses = useSet{}
		b.uses.add(on)
	}
	return opError(op, b.release())
}

func (b *Buffer[T]) release() error {
	if b.freed.Swap(true) {
		return nil
	}
	b.dev.buffers.Add(-1)
	// b.host stays: a launch or copy may still read it, and the collector
	// frees it with the last view.
	if b.dev.drv == nil || b.ptr == 0 {
		return nil
	}
	return b.dev.mem.deallocate(b.ptr, &b.uses)
}

// argBuffer is what launches need of a buffer; *Buffer[T] implements it for
// every T.
type argBuffer interface {
	argLen() int
	argSpan() (start, end uintptr)
	argHost() unsafe.Pointer
	// argUse marks the buffer as used by work queued on s.
	argUse(s *Stream)
	// argLaunch checks that the buffer can be used by a launch on d and,
	// unless s is nil, marks it as used by work queued on s: all a
	// launch's check of a buffer, in one call.
	argLaunch(d *Device, s *Stream) error
	// argGraphs counts the graphs that refer to the buffer.
	argGraphs() *atomic.Int32
}

func (b *Buffer[T]) argPointer() uintptr { return b.ptr }
func (b *Buffer[T]) argLen() int         { return b.n }
func (b *Buffer[T]) argUse(s *Stream)    { b.root.uses.add(s) }

func (b *Buffer[T]) argLaunch(d *Device, s *Stream) error {
	if b == nil {
		return errors.New("nil buffer")
	}
	if b.root.freed.Load() {
		return ErrClosed
	}
	if b.dev != d {
		return ErrWrongDevice
	}
	if s != nil {
		b.root.uses.add(s)
	}
	return nil
}
func (b *Buffer[T]) argGraphs() *atomic.Int32 { return &b.root.graphs }

// argHost is the address of the CPU backend's storage; nil on a GPU or
// for no elements.
func (b *Buffer[T]) argHost() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b.host)) }

// argSpan is the address range of b's elements, on the device or, on the
// CPU backend, on the host.
func (b *Buffer[T]) argSpan() (start, end uintptr) {
	start = b.ptr
	if b.host != nil && b.n > 0 {
		start = uintptr(unsafe.Pointer(unsafe.SliceData(b.host)))
	}
	return start, start + b.bytes()
}
