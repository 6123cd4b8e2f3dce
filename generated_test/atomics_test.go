package generated_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// The atomics cases compare what does not depend on the order of the
// iterations exactly (integer sums, minima, maxima, bits), float sums
// within the error bound of any order of additions, and the slots a
// counter hands out as a set.

// atomicLengths are the iteration counts every atomics kernel is tried
// with: around a warp, and more than a small grid has threads.
var atomicLengths = []int{1, 31, 32, 33, 1000, 1<<20 + 3}

type atomicCase struct {
	name string
	fn   any
	args func(r *rand.Rand, n int) []any
	// check compares the results of a run, got, with the Go function's,
	// want, for the arguments args.
	check func(t *testing.T, args, want, got []any)
}

var atomicCases = []atomicCase{
	{"Histogram", kernels.Histogram, func(r *rand.Rand, n int) []any {
		data := make([]uint8, n)
		for i := range data {
			data[i] = uint8(r.IntN(256) & r.IntN(256)) // skewed: some bins are hot
		}
		return []any{data, make([]uint32, 256)}
	}, exact},
	{"Slots", kernels.Slots, func(r *rand.Rand, n int) []any {
		return []any{make([]int32, n), []int32{0}, []uint64{7}, []int64{-3}}
	}, func(t *testing.T, args, want, got []any) {
		sameSet(t, "order", want[0].([]int32), got[0].([]int32))
		compareArgs(t, "Slots", want[1:], got[1:])
	}},
	{"FloatSums", kernels.FloatSums, func(r *rand.Rand, n int) []any {
		x, bucket := make([]float32, n), make([]uint8, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
			bucket[i] = uint8(r.IntN(256))
		}
		return []any{x, bucket, []float32{0, 1, -2, 0.5}, []float64{0, 1, -2, 0.5}}
	}, checkFloatSums},
	{"Extremes", kernels.Extremes, func(r *rand.Rand, n int) []any {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64() * 100
			switch r.IntN(50) {
			case 0:
				x[i] = math.Copysign(0, -1)
			case 1:
				x[i] = 0
			}
		}
		if n > 500 {
			x[n/2] = math.NaN() // NaN wins min and max, whatever the order
		}
		return []any{x, []float64{math.Inf(1)}, []float64{math.Inf(-1)}, []int64{math.MaxInt64}, []int64{math.MinInt64},
			make([]int8, 3), []uint16{0, 0, 0, 0, 0, 65535, 65535, 65535}, []float32{float32(math.Inf(-1)), 0}}
	}, exact},
	{"Bits", kernels.Bits, func(r *rand.Rand, n int) []any {
		data, prev := make([]uint8, n), make([]int64, n)
		for i := range data {
			data[i] = uint8(r.IntN(256))
			prev[i] = r.Int64()
		}
		return []any{data, make([]uint32, 8), []uint64{math.MaxUint64}, prev, make([]int64, n), make([]int32, n), []int32{-1}}
	}, exact},
}

func exact(t *testing.T, args, want, got []any) { compareArgs(t, "exact", want, got) }

// sameSet compares two slices as sets of values.
func sameSet[T int32 | int64](t *testing.T, what string, want, got []T) {
	t.Helper()
	w, g := slices.Clone(want), slices.Clone(got)
	slices.Sort(w)
	slices.Sort(g)
	if !slices.Equal(w, g) {
		t.Errorf("%s: not the same set of %d values", what, len(w))
	}
}

// checkFloatSums compares the float sums with the exact sums of the
// buckets' values: a sum of m terms in any order is within
// (m-1)·u·Σ|terms| of it, with u the unit roundoff, 2^-24 for float32 and
// 2^-53 for float64.
func checkFloatSums(t *testing.T, args, want, got []any) {
	t.Helper()
	x, bucket := args[0].([]float32), args[1].([]uint8)
	init := args[3].([]float64) // the float32 sums start at the same values
	for b := range 4 {
		exactSum, abs, m := init[b], math.Abs(init[b]), 1.0
		for i, v := range x {
			if bucket[i]%4 == uint8(b) {
				exactSum += float64(v)
				abs += math.Abs(float64(v))
				m++
			}
		}
		for _, c := range []struct {
			name string
			g, w float64
			u    float64
		}{
			{"float32", float64(got[2].([]float32)[b]), float64(want[2].([]float32)[b]), 0x1p-24},
			{"float64", got[3].([]float64)[b], want[3].([]float64)[b], 0x1p-53},
		} {
			tol := (m-1)*c.u*abs + 1e-300
			if math.Abs(c.g-exactSum) > tol || math.Abs(c.w-exactSum) > tol {
				t.Errorf("%s sum of bucket %d: got %v, Go %v, exact %v, tolerance %v", c.name, b, c.g, c.w, exactSum, tol)
			}
		}
	}
	compareArgs(t, "FloatSums inputs", want[:2], got[:2])
}

// runAtomics runs every atomics case for each length with run, which
// returns the arguments after the kernel ran on them.
func runAtomics(t *testing.T, lengths []int, run func(t *testing.T, c atomicCase, args []any) []any) {
	for _, c := range atomicCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 3))
			for _, n := range lengths {
				args := c.args(r, n)
				want := cloneArgs(args)
				if err := callGo(c.fn, want); err != nil {
					t.Fatalf("n=%d: the Go function failed: %v", n, err)
				}
				got := run(t, c, cloneArgs(args))
				if got == nil {
					return
				}
				c.check(t, args, want, got)
				if t.Failed() {
					t.Fatalf("n=%d", n)
				}
			}
		})
	}
}

// onDevice runs the cases through their stubs on dev.
func onDevice(dev *rt.Device, opts ...rt.LaunchOption) func(*testing.T, atomicCase, []any) []any {
	ks, err := kernels.Load(dev)
	return func(t *testing.T, c atomicCase, args []any) []any {
		if err != nil {
			t.Fatal(err)
		}
		stubArgs, read, free, err := upload(dev, args)
		if err != nil {
			t.Fatal(err)
		}
		defer free()
		if err := callStub(ks, c.name, stubArgs, opts...); err != nil {
			t.Fatal(err)
		}
		got, err := read()
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
}

func TestAtomicsCPU(t *testing.T) {
	dev := openCPU(t)
	defer dev.Close()
	runAtomics(t, atomicLengths, onDevice(dev))
}

// TestAtomicsConcurrentIterationsCPU runs the atomics kernels in the CPU
// race mode, where iterations run on goroutines at once and the atomics
// are the host's: under go test -race nothing may be reported.
func TestAtomicsConcurrentIterationsCPU(t *testing.T) {
	rt.RunIterationsConcurrently(true)
	defer rt.RunIterationsConcurrently(false)
	dev := openCPU(t)
	defer dev.Close()
	runAtomics(t, atomicLengths[:5], onDevice(dev))
}

// TestAtomicsInterpreted runs the atomics kernels' IR on the interpreter,
// with grids of 1 and 3 threads.
func TestAtomicsInterpreted(t *testing.T) {
	ks := loadKernels(t)
	for _, threads := range []int{1, 3} {
		runAtomics(t, atomicLengths[:5], func(t *testing.T, c atomicCase, args []any) []any {
			if err := interpret(ks[c.name], args, threads); err != nil {
				t.Fatalf("threads=%d: %v", threads, err)
			}
			return args
		})
	}
}

func TestAtomicsGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runAtomics(t, atomicLengths, onDevice(dev))
}

// TestAtomicsGPUSmallGrid runs the atomics kernels on 2 blocks of 32
// threads, so that every thread strides over many iterations.
func TestAtomicsGPUSmallGrid(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runAtomics(t, atomicLengths, onDevice(dev, rt.BlockSize(32), rt.GridSize(2)))
}
