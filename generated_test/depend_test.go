package generated_test

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
)

// dependCases are loops that the dependence check proves distinct by
// their rows, pairs or launch-time strides (kernels/depend.go); each
// also runs in every test of cases.
var dependCases = []kernelCase{
	{name: "UpperTriangle", fn: kernels.UpperTriangle, args: squareArgs},
	{name: "UpperTriangleMax", fn: kernels.UpperTriangleMax, args: squareArgs},
	{name: "LowerTriangle", fn: kernels.LowerTriangle, args: squareArgs},
	{name: "BitonicStage", fn: kernels.BitonicStage, args: func(r *rand.Rand, n int) []any {
		size := 1 << (bits.Len(uint(n)) - 1) // the power of two at most n
		a := make([]int32, size)
		for i := range a {
			a[i] = int32(r.IntN(100))
		}
		j := 0
		if size > 1 {
			j = 1 << r.IntN(bits.Len(uint(size))-1)
		}
		return []any{a, j, 2 * j << r.IntN(3)}
	}},
	// Strides that make iterations meet, drawn for the even lengths, run
	// the loop on one thread; the others run it in parallel.
	{name: "RuntimeStride", fn: kernels.RuntimeStride, args: func(r *rand.Rand, n int) []any {
		if n%2 == 0 {
			return []any{floats32(r, n), 0}
		}
		return []any{floats32(r, n), 1 + r.IntN(3)}
	}},
	{name: "RuntimeStrideRows", fn: kernels.RuntimeStrideRows, args: func(r *rand.Rand, n int) []any {
		if n%2 == 0 {
			return []any{floats32(r, n), r.IntN(3)}
		}
		return []any{floats32(r, n), 3 + r.IntN(5)}
	}},
}

func init() { cases = append(cases, dependCases...) }

// squareArgs gives a matrix of m×m elements, m² at most n.
func squareArgs(r *rand.Rand, n int) []any {
	m := 0
	for (m+1)*(m+1) <= n {
		m++
	}
	return []any{floats32(r, n), m}
}

// TestDependInterpreted runs the kernels on the interpreter, on one
// thread and on three, against their Go functions, with every stride the
// draws give: 0 takes the serial version.
func TestDependInterpreted(t *testing.T) {
	interpretCases(t, loadKernels(t), dependCases, lengths)
}

// TestDependGPU runs the kernels on the GPU against their Go functions.
func TestDependGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runKernelCases(t, dev, dependCases)
}
