package rt

import (
	"fmt"
	"math"
	"math/bits"
)

// allocSize returns the bytes of n elements of T, or an error wrapping
// ErrOutOfMemory if that overflows, or if the memory is the host's and it
// has less than that. Go stops the whole program when it cannot allocate,
// so the host's memory is checked first.
func allocSize[T Number](n int, onHost bool) (uintptr, error) {
	hi, size := bits.Mul64(uint64(n), uint64(elemSize[T]()))
	if hi != 0 || size > math.MaxInt {
		return 0, fmt.Errorf("%d elements of %d bytes overflow: %w", n, elemSize[T](), ErrOutOfMemory)
	}
	if !onHost {
		return uintptr(size), nil // the host's memory is not asked: a system call
	}
	if total := hostRAM(); total > 0 && size > total {
		return 0, fmt.Errorf("%d bytes is more than the host's memory (%d bytes): %w", size, total, ErrOutOfMemory)
	}
	return uintptr(size), nil
}

// makeHost makes a slice of n elements, turning the panic of a length Go
// cannot allocate into an error.
func makeHost[T Number](n int) (s []T, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%v: %w", v, ErrOutOfMemory)
		}
	}()
	return make([]T, n), nil
}
