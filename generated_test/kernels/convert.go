package kernels

import "github.com/qdgo/qd/generated_test/helpers"

// The Convert kernels convert values of every integer width to every
// integer and float type and compare them, each value just computed by an
// operation that re-extends it in its register, and each narrow value
// converted on again. GPU compilers have mis-compiled such chains (a
// sign-extended narrow value reaching an unsigned int-to-float conversion,
// RATIONALE.md); here any such case differs from Go.

// Per element, the kernels write ConvertInts integers, ConvertFloats
// floats (each a weighted sum of conversions, which any wrong conversion
// changes: they differ from the right ones by at least 2^8, and the sums
// stay below 2^68, where float64's rounding steps are 2^16) and one byte of
// comparison flags per width.
const (
	ConvertInts   = 10
	ConvertFloats = 9
	ConvertFlags  = 9
)

//qd:kernel
func ConvertInt8(x, y []int8, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

//qd:kernel
func ConvertInt16(x, y []int16, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

//qd:kernel
func ConvertInt32(x, y []int32, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

//qd:kernel
func ConvertInt64(x, y []int64, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

//qd:kernel
func ConvertUint8(x, y []uint8, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

//qd:kernel
func ConvertUint16(x, y []uint16, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

//qd:kernel
func ConvertUint32(x, y []uint32, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

//qd:kernel
func ConvertUint64(x, y []uint64, ints []int64, floats []float64, flags []uint8) {
	for i := range x {
		convertAll(x[i]+y[i], i, ints, floats, flags)
	}
}

// ConvertParams converts scalar parameters, stepped by the element index
// so that they wrap around, as the kernels above convert memory.
//
//qd:kernel
func ConvertParams(ints []int64, floats []float64, flags []uint8, a int8, b int16) {
	for i := range len(flags) / (2 * ConvertFlags) {
		convertAll(a+int8(i), 2*i, ints, floats, flags)
		convertAll(b-int16(i), 2*i+1, ints, floats, flags)
	}
}

// convertAll writes the conversions of v to every integer width, and of
// each of those on to the floats, into element i of the outputs.
func convertAll[T helpers.Integer](v T, i int, ints []int64, floats []float64, flags []uint8) {
	n := i * ConvertInts
	ints[n] = int64(int8(v))
	ints[n+1] = int64(int16(v))
	ints[n+2] = int64(int32(v))
	ints[n+3] = int64(v)
	ints[n+4] = int64(uint8(v))
	ints[n+5] = int64(uint16(v))
	ints[n+6] = int64(uint32(v))
	ints[n+7] = int64(uint64(v))
	ints[n+8] = int64(int32(uint16(v)) - int32(int16(v)))
	ints[n+9] = int64(uint32(int8(v)) >> 7)
	f := i * ConvertFloats
	floats[f] = toFloats(v)
	floats[f+1] = toFloats(int8(v))
	floats[f+2] = toFloats(int16(v))
	floats[f+3] = toFloats(int32(v))
	floats[f+4] = toFloats(int64(v))
	floats[f+5] = toFloats(uint8(v))
	floats[f+6] = toFloats(uint16(v))
	floats[f+7] = toFloats(uint32(v))
	floats[f+8] = toFloats(uint64(v))
	g := i * ConvertFlags
	flags[g] = compareAll(v)
	flags[g+1] = compareAll(int8(v))
	flags[g+2] = compareAll(int16(v))
	flags[g+3] = compareAll(int32(v))
	flags[g+4] = compareAll(uint8(v))
	flags[g+5] = compareAll(uint16(v))
	flags[g+6] = compareAll(uint32(v))
	flags[g+7] = compareAll(int8(v) + 1)
	flags[g+8] = compareAll(int16(v) - 1)
}

// toFloats sums int-to-float conversions of w, signed and unsigned, each
// reached directly and through another width, with weights.
func toFloats[W helpers.Integer](w W) float64 {
	return float64(w) + 3*float64(float32(w)) + 5*float64(uint32(w)) + 7*float64(float32(uint32(w))) +
		11*float64(uint64(w)) + 13*float64(float32(uint16(w)))
}

// compareAll packs comparisons of w read as each width into a byte.
func compareAll[W helpers.Integer](w W) uint8 {
	return flag(uint32(w) < 1<<31, 0) | flag(int32(w) < 0, 1) | flag(uint64(w) > 1<<63, 2) |
		flag(uint16(w) >= 1<<15, 3) | flag(float64(uint32(w)) == float64(int32(w)), 4)
}

func flag(b bool, bit uint) uint8 {
	if b {
		return 1 << bit
	}
	return 0
}
