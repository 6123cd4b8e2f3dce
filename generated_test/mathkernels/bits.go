package mathkernels

import "math/bits"

//qd:kernel
func Counts64(x []uint64, ones, leading, trailing, length []int) {
	for i := range ones {
		ones[i] = bits.OnesCount64(x[i])
		leading[i] = bits.LeadingZeros64(x[i])
		trailing[i] = bits.TrailingZeros64(x[i])
		length[i] = bits.Len64(x[i])
	}
}

//qd:kernel
func Permute64(x []uint64, k []int, reversed, swapped, rotated []uint64) {
	for i := range reversed {
		reversed[i] = bits.Reverse64(x[i])
		swapped[i] = bits.ReverseBytes64(x[i])
		rotated[i] = bits.RotateLeft64(x[i], k[i])
	}
}

//qd:kernel
func Counts32(x []uint32, ones, leading, trailing, length []int) {
	for i := range ones {
		ones[i] = bits.OnesCount32(x[i])
		leading[i] = bits.LeadingZeros32(x[i])
		trailing[i] = bits.TrailingZeros32(x[i])
		length[i] = bits.Len32(x[i])
	}
}

//qd:kernel
func Permute32(x []uint32, k []int, reversed, swapped, rotated []uint32) {
	for i := range reversed {
		reversed[i] = bits.Reverse32(x[i])
		swapped[i] = bits.ReverseBytes32(x[i])
		rotated[i] = bits.RotateLeft32(x[i], k[i])
	}
}

//qd:kernel
func Counts16(x []uint16, ones, leading, trailing, length []int) {
	for i := range ones {
		ones[i] = bits.OnesCount16(x[i])
		leading[i] = bits.LeadingZeros16(x[i])
		trailing[i] = bits.TrailingZeros16(x[i])
		length[i] = bits.Len16(x[i])
	}
}

//qd:kernel
func Permute16(x []uint16, k []int, reversed, swapped, rotated []uint16) {
	for i := range reversed {
		reversed[i] = bits.Reverse16(x[i])
		swapped[i] = bits.ReverseBytes16(x[i])
		rotated[i] = bits.RotateLeft16(x[i], k[i])
	}
}

//qd:kernel
func Counts8(x []uint8, ones, leading, trailing, length []int) {
	for i := range ones {
		ones[i] = bits.OnesCount8(x[i])
		leading[i] = bits.LeadingZeros8(x[i])
		trailing[i] = bits.TrailingZeros8(x[i])
		length[i] = bits.Len8(x[i])
	}
}

//qd:kernel
func Permute8(x []uint8, k []int, reversed, rotated []uint8) {
	for i := range reversed {
		reversed[i] = bits.Reverse8(x[i])
		rotated[i] = bits.RotateLeft8(x[i], k[i])
	}
}

//qd:kernel
func Counts(x []uint, ones, leading, trailing, length []int) {
	for i := range ones {
		ones[i] = bits.OnesCount(x[i])
		leading[i] = bits.LeadingZeros(x[i])
		trailing[i] = bits.TrailingZeros(x[i])
		length[i] = bits.Len(x[i])
	}
}

//qd:kernel
func Permute(x []uint, k []int, reversed, swapped, rotated []uint) {
	for i := range reversed {
		reversed[i] = bits.Reverse(x[i])
		swapped[i] = bits.ReverseBytes(x[i])
		rotated[i] = bits.RotateLeft(x[i], k[i])
	}
}

//qd:kernel
func Carry64(x, y, c []uint64, sum, carry, diff, borrow, hi, lo []uint64) {
	for i := range sum {
		sum[i], carry[i] = bits.Add64(x[i], y[i], c[i]&1)
		diff[i], borrow[i] = bits.Sub64(x[i], y[i], c[i]&1)
		hi[i], lo[i] = bits.Mul64(x[i], y[i])
	}
}

//qd:kernel
func Carry32(x, y, c []uint32, sum, carry, diff, borrow, hi, lo []uint32) {
	for i := range sum {
		sum[i], carry[i] = bits.Add32(x[i], y[i], c[i]&1)
		diff[i], borrow[i] = bits.Sub32(x[i], y[i], c[i]&1)
		hi[i], lo[i] = bits.Mul32(x[i], y[i])
	}
}

//qd:kernel
func Carry(x, y, c []uint, sum, carry, diff, borrow, hi, lo []uint) {
	for i := range sum {
		sum[i], carry[i] = bits.Add(x[i], y[i], c[i]&1)
		diff[i], borrow[i] = bits.Sub(x[i], y[i], c[i]&1)
		hi[i], lo[i] = bits.Mul(x[i], y[i])
	}
}

// Divide divides with Div and Rem of every width, on divisors and high
// halves that make no fault.
//
//qd:kernel
func Divide(hi, lo, y, q64, r64, q32, r32, q, r, rem64, rem32, rem []uint64) {
	for i := range q64 {
		d := y[i] | 1<<(i%64)
		q64[i], r64[i] = bits.Div64(hi[i]%d, lo[i], d)
		d32 := uint32(d) | 1
		a, b := bits.Div32(uint32(hi[i])%d32, uint32(lo[i]), d32)
		q32[i], r32[i] = uint64(a), uint64(b)
		u, v := bits.Div(uint(hi[i]%d), uint(lo[i]), uint(d))
		q[i], r[i] = uint64(u), uint64(v)
		rem64[i] = bits.Rem64(hi[i], lo[i], d)
		rem32[i] = uint64(bits.Rem32(uint32(hi[i]), uint32(lo[i]), d32))
		rem[i] = uint64(bits.Rem(uint(hi[i]), uint(lo[i]), uint(d)))
	}
}
