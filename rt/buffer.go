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

// Buffer is an array of n elements of type T in a device's memory: what a
// kernel's slice parameter receives. On the CPU backend it is a Go slice.
type Buffer[T Number] struct {
	dev   *Device
	ptr   uintptr // device address
	n     int
	host  []T // the CPU backend's storage
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
	if d.drv == nil {
		b.host = make([]T, n)
		return b, nil
	}
	if n == 0 {
		return b, nil
	}
	ptr, err := d.drv.alloc(uintptr(n) * elemSize[T]())
	if err != nil {
		return nil, opError(op, err)
	}
	b.ptr = ptr
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

func (b *Buffer[T]) usable() error {
	if b == nil {
		return fmt.Errorf("nil buffer")
	}
	if b.freed.Load() {
		return ErrClosed
	}
	return b.dev.check()
}

// CopyFrom copies src, which must have b.Len() elements, into b. It
// returns once the copy is done; on a GPU it is ordered after the work
// already launched on the default stream.
func (b *Buffer[T]) CopyFrom(src []T) error {
	const op = "copy to device"
	if err := b.usable(); err != nil {
		return opError(op, err)
	}
	if len(src) != b.n {
		return opError(op, fmt.Errorf("source has %d elements, buffer has %d", len(src), b.n))
	}
	if b.dev.drv == nil {
		copy(b.host, src)
		return nil
	}
	if b.n == 0 {
		return nil
	}
	return opError(op, b.dev.drv.copyToDevice(b.ptr, unsafe.Pointer(unsafe.SliceData(src)), uintptr(b.n)*elemSize[T]()))
}

// CopyTo copies b into dst, which must have b.Len() elements. It waits for
// the work already launched on the default stream, so it sees what those
// kernels wrote.
func (b *Buffer[T]) CopyTo(dst []T) error {
	const op = "copy from device"
	if err := b.usable(); err != nil {
		return opError(op, err)
	}
	if len(dst) != b.n {
		return opError(op, fmt.Errorf("destination has %d elements, buffer has %d", len(dst), b.n))
	}
	if b.dev.drv == nil {
		copy(dst, b.host)
		return nil
	}
	if b.n == 0 {
		return nil
	}
	return opError(op, b.dev.drv.copyToHost(unsafe.Pointer(unsafe.SliceData(dst)), b.ptr, uintptr(b.n)*elemSize[T]()))
}

// Read returns a new slice holding b's elements.
func (b *Buffer[T]) Read() ([]T, error) {
	dst := make([]T, b.Len())
	if err := b.CopyTo(dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// Fill sets every byte of b to zero.
func (b *Buffer[T]) Zero() error {
	const op = "zero buffer"
	if err := b.usable(); err != nil {
		return opError(op, err)
	}
	if b.dev.drv == nil {
		clear(b.host)
		return nil
	}
	if b.n == 0 {
		return nil
	}
	return opError(op, b.dev.drv.memset(b.ptr, 0, uintptr(b.n)*elemSize[T]()))
}

// Free releases b's memory. Freeing twice is harmless; any other use of a
// freed buffer returns an error wrapping ErrClosed.
func (b *Buffer[T]) Free() error {
	if b == nil || b.freed.Swap(true) {
		return nil
	}
	b.host = nil
	if b.dev.drv == nil || b.ptr == 0 {
		return nil
	}
	if err := b.dev.check(); err != nil {
		return nil // the device released everything
	}
	return opError("free buffer", b.dev.drv.free(b.ptr))
}

// ArgBuffer is what launches need of a buffer; *Buffer[T] implements it for
// every T.
type ArgBuffer interface {
	argDevice() *Device
	argUsable() error
	argPointer() uintptr
	argLen() int
}

func (b *Buffer[T]) argDevice() *Device  { return b.dev }
func (b *Buffer[T]) argUsable() error    { return b.usable() }
func (b *Buffer[T]) argPointer() uintptr { return b.ptr }
func (b *Buffer[T]) argLen() int         { return b.n }
