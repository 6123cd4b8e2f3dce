package generated_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
)

// convertCases convert every integer width to every other and to the
// floats (kernels/convert.go); they are part of cases, and
// TestConversionsGPU runs them alone.
var convertCases = []kernelCase{
	{name: "ConvertInt8", fn: kernels.ConvertInt8, args: convertArgs(kernels.ConvertInt8)},
	{name: "ConvertInt16", fn: kernels.ConvertInt16, args: convertArgs(kernels.ConvertInt16)},
	{name: "ConvertInt32", fn: kernels.ConvertInt32, args: convertArgs(kernels.ConvertInt32)},
	{name: "ConvertInt64", fn: kernels.ConvertInt64, args: convertArgs(kernels.ConvertInt64)},
	{name: "ConvertUint8", fn: kernels.ConvertUint8, args: convertArgs(kernels.ConvertUint8)},
	{name: "ConvertUint16", fn: kernels.ConvertUint16, args: convertArgs(kernels.ConvertUint16)},
	{name: "ConvertUint32", fn: kernels.ConvertUint32, args: convertArgs(kernels.ConvertUint32)},
	{name: "ConvertUint64", fn: kernels.ConvertUint64, args: convertArgs(kernels.ConvertUint64)},
	{name: "ConvertParams", fn: kernels.ConvertParams, args: convertParamArgs},
}

// edgeBits are the integer values where conversions change behaviour,
// truncated to each width: the extremes of every width, their neighbours,
// -1, 0 and 1.
var edgeBits = []uint64{0, 1, 1<<64 - 1, 2, 0x7f, 0x80, 0x81, 0xff, 0x100, 0x7fff, 0x8000, 0x8001, 0xffff,
	0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 1 << 32, 1<<63 - 1, 1 << 63, 1<<63 + 1, 0xffffffffffffff80}

// convertArgs draws x and y for a Convert kernel of n elements: the pairs
// (x, y) run through every pair of edge values, since x+y is converted,
// then random values follow.
func convertArgs(fn any) func(r *rand.Rand, n int) []any {
	elem := reflect.TypeOf(fn).In(0).Elem()
	return func(r *rand.Rand, n int) []any {
		x, y := reflect.MakeSlice(reflect.SliceOf(elem), n, n), reflect.MakeSlice(reflect.SliceOf(elem), n, n)
		for i := range n {
			xb, yb := edgeBits[i%len(edgeBits)], edgeBits[i/len(edgeBits)%len(edgeBits)]
			if i >= len(edgeBits)*len(edgeBits) {
				xb, yb = r.Uint64()>>r.IntN(64), 0
			}
			setBits(x.Index(i), xb)
			setBits(y.Index(i), yb)
		}
		return []any{x.Interface(), y.Interface(), make([]int64, n*kernels.ConvertInts),
			make([]float64, n*kernels.ConvertFloats), make([]uint8, n*kernels.ConvertFlags)}
	}
}

// setBits sets an integer value to the low bits of b.
func setBits(v reflect.Value, b uint64) {
	if v.CanInt() {
		v.SetInt(int64(b)) // truncates to the width
	} else {
		v.SetUint(b)
	}
}

// convertParamArgs starts each scalar of ConvertParams at an edge value
// near where it wraps.
func convertParamArgs(r *rand.Rand, n int) []any {
	m := 2 * n
	starts := []int64{-128, 127, -1, 0, 120, -120}
	s := starts[r.IntN(len(starts))]
	return []any{make([]int64, m*kernels.ConvertInts), make([]float64, m*kernels.ConvertFloats), make([]uint8, m*kernels.ConvertFlags),
		int8(s), int16(s) << 8}
}

// TestConversionsGPU runs the Convert kernels on the GPU against Go, on
// grids of the default size and on a small grid.
func TestConversionsGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runKernelCases(t, dev, convertCases)
}
