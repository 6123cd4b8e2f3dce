package iterations

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/qdgo/qd/internal/atomics"
	"github.com/qdgo/qd/ir"
)

// Buffer is the host memory of a slice argument: Len elements from Data.
type Buffer struct {
	Data unsafe.Pointer
	Len  int
}

// region is memory the interpreter addresses: a slice argument's, or the
// interpreter's own (tables, task variables).
type region struct {
	data unsafe.Pointer
	size uint64
	name string // the parameter's, for errors
	own  []byte // the storage of the interpreter's own regions
}

// An address is the region's number, from 1, above regionShift, and the
// offset in the region below it.
const regionShift = 40

// memory is the ir.Memory of one goroutine: the slice arguments, which
// every goroutine of a run shares, then the regions it allocated itself.
// The threads of a block run as goroutines of their own over the block's
// memory (ir.Interp.ConcurrentThreads), where a call of a device function
// allocates its variables: own is replaced, never changed, under mu.
type memory struct {
	regions []region // shared; never appended to
	mu      sync.Mutex
	own     atomic.Pointer[[]region]
}

func (m *memory) Alloc(n int) uint64 {
	b := make([]byte, max(n, 1))
	m.mu.Lock()
	defer m.mu.Unlock()
	var own []region
	if old := m.own.Load(); old != nil {
		own = *old // appending writes past every length readers hold
	}
	own = append(own, region{data: unsafe.Pointer(&b[0]), size: uint64(n), own: b})
	m.own.Store(&own)
	return uint64(len(m.regions)+len(own)) << regionShift
}

// at returns the memory of an access of size bytes at addr.
func (m *memory) at(addr uint64, size int) (unsafe.Pointer, error) {
	i := int(addr>>regionShift) - 1
	off := addr & (1<<regionShift - 1)
	var own []region
	if i >= len(m.regions) {
		if p := m.own.Load(); p != nil {
			own = *p
		}
	}
	var r *region
	switch {
	case i >= 0 && i < len(m.regions):
		r = &m.regions[i]
	case i >= len(m.regions) && i < len(m.regions)+len(own):
		r = &own[i-len(m.regions)]
	default:
		return nil, fmt.Errorf("access of %d bytes at %#x is outside every buffer", size, addr)
	}
	if off+uint64(size) > r.size {
		if r.name != "" {
			return nil, fmt.Errorf("access of element %d of %s, which has %d", off/uint64(size), r.name, r.size/uint64(size))
		}
		return nil, fmt.Errorf("access of %d bytes at offset %d of a region of %d", size, off, r.size)
	}
	if off%uint64(size) != 0 {
		return nil, fmt.Errorf("misaligned access of %d bytes at %#x", size, addr)
	}
	return unsafe.Add(r.data, off), nil
}

// Load reads memory with a plain load, which the race detector watches.
func (m *memory) Load(addr uint64, t ir.Type) (uint64, error) {
	p, err := m.at(addr, t.Size())
	if err != nil {
		return 0, err
	}
	var v uint64
	switch t.Size() {
	case 1:
		v = uint64(*(*uint8)(p))
	case 2:
		v = uint64(*(*uint16)(p))
	case 4:
		v = uint64(*(*uint32)(p))
	default:
		v = *(*uint64)(p)
	}
	return t.Normalize(v), nil
}

// Store writes memory with a plain store.
func (m *memory) Store(addr uint64, t ir.Type, v uint64) error {
	p, err := m.at(addr, t.Size())
	if err != nil {
		return err
	}
	switch t.Size() {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
	return nil
}

// Atomic updates memory with the atomics package qd's own atomic
// functions use.
func (m *memory) Atomic(addr uint64, t ir.Type, update func(uint64) (uint64, bool)) (uint64, error) {
	p, err := m.at(addr, t.Size())
	if err != nil {
		return 0, err
	}
	mask := uint64(1)<<(8*t.Size()) - 1
	if t.Size() == 8 {
		mask = ^uint64(0)
	}
	old := atomics.Update(p, uintptr(t.Size()), func(bits uint64) (uint64, bool) {
		n, write := update(t.Normalize(bits))
		return n & mask, write
	})
	return t.Normalize(old), nil
}
