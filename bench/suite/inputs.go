package suite

import "unsafe"

// The inputs of the benchmark runs, drawn exactly as bench/baseline/suite.cu
// draws them, so that checksums can be compared across the two.

// Mix is the splitmix64 finalizer.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Rand is the i-th random word of the stream seed.
func Rand(seed, i uint64) uint64 { return Mix(seed<<32 ^ i) }

// Unit32 is a float32 in [0, 1) from the i-th word of the stream seed.
func Unit32(seed, i uint64) float32 { return float32(Rand(seed, i)>>40) * 0x1p-24 }

// Unit64 is a float64 in [0, 1) from the i-th word of the stream seed.
func Unit64(seed, i uint64) float64 { return float64(Rand(seed, i)>>11) * 0x1p-53 }

// Fill makes a slice of n values of f.
func Fill[T any](n int, f func(i uint64) T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = f(uint64(i))
	}
	return s
}

// FNV is the FNV-1a hash of the bytes of s as they lie in memory.
func FNV[T any](s []T) uint64 {
	h := uint64(0xcbf29ce484222325)
	if len(s) == 0 {
		return h
	}
	for _, c := range unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0]))) {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return h
}
