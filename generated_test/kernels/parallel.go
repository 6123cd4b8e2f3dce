package kernels

import "github.com/qdgo/qd"

// TwoBlocks fills two buffers in two concurrent blocks.
//
//qd:kernel
func TwoBlocks(a, b []float32) {
	qd.StreamParallel(func() {
		for i := range a {
			a[i] = float32(i) * 0.5
		}
	})
	qd.StreamParallel(func() {
		for j := range b {
			b[j] = float32(j) + 1
		}
	})
}

// OrderedInBlock has two loops in one block whose order matters, and
// another block beside it.
//
//qd:kernel
func OrderedInBlock(a, b []float32) {
	qd.StreamParallel(func() {
		for i := range a {
			a[i] = 1
		}
		for i := range a {
			a[i] += 1
		}
	})
	qd.StreamParallel(func() {
		for i := range b {
			b[i] = 3
		}
	})
}

// ComputeAB is the Quadrants example: a and b computed concurrently.
//
//qd:kernel
func ComputeAB(a, b []float32, n int, scale float32) {
	qd.StreamParallel(func() {
		for i := range n {
			a[i] = computeA(i) * scale
		}
	})
	qd.StreamParallel(func() {
		for j := range n {
			b[j] = computeB(j) * scale
		}
	})
}

func computeA(i int) float32 { return float32(i%1000) * 0.5 }

func computeB(j int) float32 {
	x := float32(j % 777)
	return x*x/3 + 1
}

// Combine adds a and b into c.
//
//qd:kernel
func Combine(a, b, c []float32) {
	for i := range c {
		c[i] = a[i] + b[i]
	}
}

// EightBlocks runs eight blocks at once, each spinning on its own slice.
//
//qd:kernel
func EightBlocks(a0, a1, a2, a3, a4, a5, a6, a7 []int64, iters int) {
	qd.StreamParallel(func() { spinInto(a0, 0, iters) })
	qd.StreamParallel(func() { spinInto(a1, 1, iters) })
	qd.StreamParallel(func() { spinInto(a2, 2, iters) })
	qd.StreamParallel(func() { spinInto(a3, 3, iters) })
	qd.StreamParallel(func() { spinInto(a4, 4, iters) })
	qd.StreamParallel(func() { spinInto(a5, 5, iters) })
	qd.StreamParallel(func() { spinInto(a6, 6, iters) })
	qd.StreamParallel(func() { spinInto(a7, 7, iters) })
}

func spinInto(a []int64, k int64, iters int) {
	for i := range a {
		x := k*1000 + int64(i)
		for range iters {
			x = (1664525*x + 1013904223) % 2147483647
		}
		a[i] = x
	}
}

// MixedTop has plain statements before, between and after two groups.
//
//qd:kernel
func MixedTop(a, b, c []int32, n int) {
	c[0] = 1
	qd.StreamParallel(func() {
		for i := range min(n, len(a)) {
			a[i] = int32(i) + c[0]
		}
	})
	qd.StreamParallel(func() {
		b[0] = 7
		for i := 1; i < len(b); i++ {
			b[i] = 2
		}
	})
	c[0] = a[0] + b[0]
	qd.StreamParallel(func() {
		for i := 1; i < len(b); i++ {
			b[i] += c[0]
		}
	})
	qd.StreamParallel(func() {
		for i := range a {
			a[i] *= 3
		}
	})
	for i := 1; i < len(c); i++ {
		c[i] = a[i] - b[i]
	}
}

// BlockStructs uses a struct and an array built at the top level in its
// blocks, which address their parts: each block's tasks rebuild them.
//
//qd:kernel
func BlockStructs(a, b []float32, s float32) {
	c := Vec{1, 2, s}
	taps := [3]float32{1, 2, 1}
	qd.StreamParallel(func() {
		for i := range a {
			a[i] = c.X + taps[i%3]
		}
	})
	qd.StreamParallel(func() {
		for i := range b {
			b[i] = c.Z * taps[1]
		}
	})
}

// BlockValues computes values from parameters at the top level and uses
// them in blocks: as a loop bound, in a block's serial code, and in both
// blocks of a group.
//
//qd:kernel
func BlockValues(a, b []float32, n int) {
	half := len(a) / 2
	s := float32(len(a))*0.5 + float32(n)
	k := int32(n%7) - 3
	qd.StreamParallel(func() {
		for i := range half {
			a[i] = s
		}
		a[len(a)-1] = s + float32(k)
	})
	qd.StreamParallel(func() {
		b[0] = s * 2
		for i := 1; i < len(b); i++ {
			b[i] = float32(int32(i)*k) + s
		}
	})
}

// PrologueHelper uses, after a loop, a value computed at the top level by
// a helper with branches: recomputed in the later launch, the helper's
// blocks must come before the code that uses its result.
//
//qd:kernel
func PrologueHelper(a []int64, n int8) {
	top := (int8(len(a)) | n) >> branchy(len(a), float64(n))
	for i := range a {
		a[i] = int64(i)
	}
	a[0] ^= int64(top)
}

func branchy(n int, f float64) uint32 {
	if f != f || f > 3 {
		return uint32(n)
	}
	return uint32(n) % 3
}

// RebuiltInPrologue recomputes, in its loop's launch, a value that reads
// an array which that launch must build again with a helper of branches:
// the array's blocks come before the rest of the value's computation.
//
//qd:kernel
func RebuiltInPrologue(out []uint64, p int32) {
	a := [4]uint8{rebuiltHelper(p), uint8(p), 3, 4}
	top := uint16(p) << (a[uint(p)%4] % 16)
	for i := range out {
		out[i] = uint64(top) + uint64(i)
	}
}

func rebuiltHelper(x int32) uint8 {
	if x > 3 {
		return uint8(x * 2)
	}
	return uint8(x + 1)
}
