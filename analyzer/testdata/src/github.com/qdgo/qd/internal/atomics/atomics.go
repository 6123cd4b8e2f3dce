// Package atomics updates an element of memory of 1, 2, 4 or 8 bytes in
// one indivisible step. Package qd's atomic functions and the CPU race
// mode's interpreter both use it, so an atomic update means the same in
// plain Go and in a kernel run on the CPU, and the race detector sees it
// as synchronized.
package atomics

import (
	"sync/atomic"
	"unsafe"
)

// littleEndian reports whether the machine stores the low byte first.
var littleEndian = func() bool {
	probe := uint16(1)
	return *(*byte)(unsafe.Pointer(&probe)) == 1
}()

// Update replaces the element of size bytes at p by what f makes of its
// bits, when f says to write, and returns the old bits, as one indivisible
// step: f may be called several times when other goroutines update the
// element meanwhile. Bits are the element's bytes as an unsigned number.
// An element of 1 or 2 bytes is updated through the aligned 32-bit word
// that holds it, whose other bytes are kept as they are.
func Update(p unsafe.Pointer, size uintptr, f func(old uint64) (new uint64, write bool)) uint64 {
	switch size {
	case 8:
		a := (*uint64)(p)
		for {
			old := atomic.LoadUint64(a)
			n, write := f(old)
			if !write || atomic.CompareAndSwapUint64(a, old, n) {
				return old
			}
		}
	case 4:
		a := (*uint32)(p)
		for {
			old := atomic.LoadUint32(a)
			n, write := f(uint64(old))
			if !write || atomic.CompareAndSwapUint32(a, old, uint32(n)) {
				return uint64(old)
			}
		}
	}
	off := uintptr(p) & 3
	word := (*uint32)(unsafe.Add(p, -int(off)))
	shift := 8 * off
	if !littleEndian {
		shift = 8 * (4 - size - off)
	}
	mask := uint32(1)<<(8*size) - 1
	for {
		w := atomic.LoadUint32(word)
		old := uint64(w >> shift & mask)
		n, write := f(old)
		if !write || atomic.CompareAndSwapUint32(word, w, w&^(mask<<shift)|(uint32(n)&mask)<<shift) {
			return old
		}
	}
}
