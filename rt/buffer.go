package rt

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Number is the constraint of buffer elements: the numeric types kernels
// accept as slice elements.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~float32 | ~float64
}

// Buffer is an array of elements of type T in a device's memory: what a
// kernel's slice parameter receives. On the CPU backend it is a Go slice.
// A Buffer may be a view of part of another (Slice); views share their
// parent's memory and become unusable when it is freed.
type Buffer[T Number] struct {
	dev   *Device
	ptr   uintptr // device address of element 0
	n     int
	host  []T        // the CPU backend's storage
	root  *Buffer[T] // the allocation a view belongs to; itself for allocations
	freed atomic.Bool
}

// Alloc allocates a buffer of n elements on d. Its contents are undefined
// until written.
func Alloc[T Number](d *Device, n int) (*Buffer[T], error) {
	op := fmt.Sprintf("allocate %d×%T", n, *new(T))
	if n < 0 {
		return nil, opError(op, fmt.Errorf("negative length"))
	}
	if err := d.check(); err != nil {
		return nil, opError(op, err)
	}
	b := &Buffer[T]{dev: d, n: n}
	b.root = b
	if d.drv == nil {
		b.host = make([]T, n)
	} else if n > 0 {
		ptr, err := d.drv.alloc(uintptr(n) * elemSize[T]())
		if err != nil {
			return nil, opError(op, err)
		}
		b.ptr = ptr
	}
	if err := d.track(b); err != nil {
		b.release()
		return nil, opError(op, err)
	}
	d.buffers.Add(1)
	return b, nil
}

// FromSlice allocates a buffer on d holding a copy of src.
func FromSlice[T Number](d *Device, src []T) (*Buffer[T], error) {
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

func elemSize[T Number]() uintptr { return unsafe.Sizeof(*new(T)) }

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
// when the copy is done; it does not wait for other streams.
func (b *Buffer[T]) CopyFrom(src []T) error { return b.toDevice(src, nil, false) }

// CopyTo copies b into dst, which must have b.Len() elements. It waits for
// the work already queued on the default stream, so it sees what those
// kernels wrote; it does not wait for other streams.
func (b *Buffer[T]) CopyTo(dst []T) error { return b.toHost(dst, nil, false) }

// CopyFromAsync queues a copy of src into b on stream s (nil: the default
// stream). The copy overlaps with other work only when src is page-locked
// memory from a HostBuffer, which must then stay unchanged until the
// stream has done the copy; from ordinary Go memory the driver copies
// src before CopyFromAsync returns.
func (b *Buffer[T]) CopyFromAsync(src []T, s *Stream) error { return b.toDevice(src, s, true) }

// CopyToAsync queues a copy of b into dst on stream s (nil: the default
// stream). It overlaps with other work only when dst is page-locked memory
// from a HostBuffer, whose contents are then valid once the stream has
// done the copy (synchronize the stream or an event recorded after it);
// into ordinary Go memory it returns when the copy is done.
func (b *Buffer[T]) CopyToAsync(dst []T, s *Stream) error { return b.toHost(dst, s, true) }

func (b *Buffer[T]) toDevice(src []T, s *Stream, async bool) error {
	const op = "copy to device"
	h, err := b.prepare(len(src), "source", s)
	if err != nil || b.n == 0 {
		return opError(op, err)
	}
	if b.dev.drv == nil {
		copy(b.host, src)
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(src))
	if async {
		return opError(op, b.dev.drv.copyToDeviceAsync(b.ptr, p, b.bytes(), h))
	}
	return opError(op, b.dev.drv.copyToDevice(b.ptr, p, b.bytes()))
}

func (b *Buffer[T]) toHost(dst []T, s *Stream, async bool) error {
	const op = "copy from device"
	h, err := b.prepare(len(dst), "destination", s)
	if err != nil || b.n == 0 {
		return opError(op, err)
	}
	if b.dev.drv == nil {
		copy(dst, b.host)
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(dst))
	if async {
		return opError(op, b.dev.drv.copyToHostAsync(p, b.ptr, b.bytes(), h))
	}
	return opError(op, b.dev.drv.copyToHost(p, b.ptr, b.bytes()))
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
	if err != nil {
		return opError(op, err)
	}
	if b.dev.drv == nil {
		copy(b.host, src.host)
		return nil
	}
	if b.n == 0 {
		return nil
	}
	return opError(op, b.dev.drv.copyOnDeviceAsync(b.ptr, src.ptr, b.bytes(), h))
}

// Memset queues setting every byte of b to value on stream s (nil: the
// default stream).
func (b *Buffer[T]) Memset(value byte, s *Stream) error {
	const op = "memset"
	h, err := b.prepare(b.n, "", s)
	if err != nil {
		return opError(op, err)
	}
	if b.dev.drv == nil {
		bytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b.host))), b.bytes())
		for i := range bytes {
			bytes[i] = value
		}
		return nil
	}
	if b.n == 0 {
		return nil
	}
	return opError(op, b.dev.drv.memsetAsync(b.ptr, value, b.bytes(), h))
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

// Free releases b's memory. Freeing twice is harmless; any other use of a
// freed buffer, or of a view of it, returns an error wrapping ErrClosed.
// A view cannot be freed: free the buffer it was sliced from.
func (b *Buffer[T]) Free() error {
	if b == nil {
		return nil
	}
	if b.root != b {
		return opError("free buffer", fmt.Errorf("the buffer is a view; free the buffer it was sliced from"))
	}
	if b.freed.Load() {
		return nil
	}
	if b.dev.check() != nil {
		b.freed.Store(true) // the device released everything
		return nil
	}
	b.dev.untrack(b)
	return opError("free buffer", b.release())
}

func (b *Buffer[T]) release() error {
	if b.freed.Swap(true) {
		return nil
	}
	b.dev.buffers.Add(-1)
	b.host = nil
	if b.dev.drv == nil || b.ptr == 0 {
		return nil
	}
	return b.dev.drv.free(b.ptr)
}

// ArgBuffer is what launches need of a buffer; *Buffer[T] implements it for
// every T.
type ArgBuffer interface {
	argDevice() *Device
	argUsable() error
	argPointer() uintptr
	argLen() int
	argSpan() (start, end uintptr)
	argHost() unsafe.Pointer
}

func (b *Buffer[T]) argDevice() *Device  { return b.dev }
func (b *Buffer[T]) argUsable() error    { return b.usable() }
func (b *Buffer[T]) argPointer() uintptr { return b.ptr }
func (b *Buffer[T]) argLen() int         { return b.n }

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
