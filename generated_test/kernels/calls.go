package kernels

import (
	"github.com/qdgo/qd"
	"github.com/qdgo/qd/generated_test/helpers"
)

// The kernels here call helpers too large to inline at every call, which
// become device functions: chains of helpers that each call the one below
// twice, and functions with several results of every kind. Helpers that
// read and write slices are inlined however large, here from
// stream-parallel blocks.

func chain0(x int64) int64  { return x*3 + 1 }
func chain1(x int64) int64  { return chain0(chain0(x)) ^ 1 }
func chain2(x int64) int64  { return chain1(chain1(x)) ^ 2 }
func chain3(x int64) int64  { return chain2(chain2(x)) ^ 3 }
func chain4(x int64) int64  { return chain3(chain3(x)) ^ 4 }
func chain5(x int64) int64  { return chain4(chain4(x)) ^ 5 }
func chain6(x int64) int64  { return chain5(chain5(x)) ^ 6 }
func chain7(x int64) int64  { return chain6(chain6(x)) ^ 7 }
func chain8(x int64) int64  { return chain7(chain7(x)) ^ 8 }
func chain9(x int64) int64  { return chain8(chain8(x)) ^ 9 }
func chain10(x int64) int64 { return chain9(chain9(x)) ^ 10 }
func chain11(x int64) int64 { return chain10(chain10(x)) ^ 11 }
func chain12(x int64) int64 { return chain11(chain11(x)) ^ 12 }

// Chain runs a helper whose full inlining would copy chain0 4096 times.
//
//qd:kernel
func Chain(a []int64) {
	for i := range a {
		a[i] = chain12(a[i]) + chain5(int64(i))
	}
}

// mixAll mixes x with y at every width: more code than a helper inlined at
// every call may have, and no division by a variable, whose check a
// device function could not report. It returns results of several kinds.
func mixAll(x, y int64, wide bool) (int64, float32, bool, int8) {
	a := int64(scramble(int8(x), int8(y)))
	b := int64(scramble(uint16(x), uint16(y)))
	c := int64(scramble(int32(x), int32(y)))
	d := scramble(x, y)
	if wide {
		d ^= int64(scramble(uint64(x), uint64(y)))
	}
	return a ^ b ^ c ^ d, float32(c) * 0.5, a < b, int8(d)
}

// scramble exercises the integer operators on x and y, dividing by
// constants only.
func scramble[T helpers.Integer](x, y T) T {
	r := x*y + x - y
	r ^= x &^ y
	r |= (x & y) >> 1
	r += x/7 + x%5 + y/100 + y%16 + x/3
	s := uint(y) & 15
	r ^= x<<s | x>>s
	r += x << uint(y)
	r -= x >> uint8(y)
	r += ^x + -y
	return r*3 + x/9
}

// MultiResults calls a function with several results, twice per
// iteration so that it is not inlined.
//
//qd:kernel
func MultiResults(x, y []int64, f []float32, flags []bool8, small []int8) {
	for i := range x {
		s, g, lt, n := mixAll(x[i], y[i], i%2 == 0)
		s2, g2, lt2, n2 := mixAll(y[i], x[i], lt)
		x[i] = s - s2
		f[i] = g + g2
		small[i] = n ^ n2
		if lt != lt2 {
			flags[i] = 1
		} else {
			flags[i] = 0
		}
	}
}

// bool8 is a byte that holds a bool, since slices of bool are not kernel
// parameters.
type bool8 = uint8

// scatter writes into dst from src, with more code than a helper inlined
// at every call may have, and returns a sub-slice of dst.
func scatter(dst, src []int64, k int) []int64 {
	for j := range src {
		v, _, _, _ := mixAll(src[j], int64(k), true)
		dst[(j+k)%len(dst)] += v
	}
	return dst[k%len(dst):]
}

// BlocksCall calls a large helper that writes a slice from each of two
// concurrent blocks, each on its own slices.
//
//qd:kernel
func BlocksCall(a, b, c, d []int64) {
	qd.StreamParallel(func() {
		t := scatter(a, b, 3)
		t[0] = scatter(a, b, 5)[0]
	})
	qd.StreamParallel(func() {
		scatter(c, d, 1)[0]++
		scatter(c, d, 2)
	})
}
