package qd

import (
	"unsafe"

	"github.com/qdgo/qd/internal/atomics"
)

// Number is the constraint of the atomic functions' elements: every
// numeric type a kernel's slices may hold.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~float32 | ~float64
}

// AtomicAdd adds delta to *addr and returns the new value, in one
// indivisible step, as sync/atomic's Add functions do, for every numeric
// type, float32 and float64 included. In a kernel,
//
//	qd.AtomicAdd(&sums[bucket[i]], x[i])
//
// lets iterations that run at the same time update one element without
// losing updates. The order of the additions is not Go's, so float sums
// may round differently from a serial loop's.
func AtomicAdd[T Number](addr *T, delta T) (new T) {
	return update(addr, func(x T) T { return x + delta }) + delta
}

// AtomicMin stores min(*addr, v) in *addr and returns the old value, in
// one indivisible step, as sync/atomic's And and Or return the old value.
// It is Go's min: NaN if either is NaN, and -0 below +0.
func AtomicMin[T Number](addr *T, v T) (old T) {
	return update(addr, func(x T) T { return min(x, v) })
}

// AtomicMax stores max(*addr, v) in *addr and returns the old value, in
// one indivisible step. It is Go's max: NaN if either is NaN, and +0
// above -0.
func AtomicMax[T Number](addr *T, v T) (old T) {
	return update(addr, func(x T) T { return max(x, v) })
}

// update replaces *addr by f(*addr) in one indivisible step and returns
// the old value; a value whose bits do not change is not written.
func update[T Number](addr *T, f func(T) T) T {
	size := unsafe.Sizeof(*addr)
	old := atomics.Update(unsafe.Pointer(addr), size, func(bits uint64) (uint64, bool) {
		n := toBits(f(fromBits[T](bits)))
		return n, n != bits
	})
	return fromBits[T](old)
}

// toBits returns the bits of x as an unsigned number of its size.
func toBits[T Number](x T) uint64 {
	switch unsafe.Sizeof(x) {
	case 1:
		return uint64(*(*uint8)(unsafe.Pointer(&x)))
	case 2:
		return uint64(*(*uint16)(unsafe.Pointer(&x)))
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(&x)))
	}
	return *(*uint64)(unsafe.Pointer(&x))
}

// fromBits is the value of type T whose bits toBits returns.
func fromBits[T Number](bits uint64) T {
	var x T
	switch unsafe.Sizeof(x) {
	case 1:
		*(*uint8)(unsafe.Pointer(&x)) = uint8(bits)
	case 2:
		*(*uint16)(unsafe.Pointer(&x)) = uint16(bits)
	case 4:
		*(*uint32)(unsafe.Pointer(&x)) = uint32(bits)
	default:
		*(*uint64)(unsafe.Pointer(&x)) = bits
	}
	return x
}
