package generated_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/rt"
)

// The kernels of kernels/private.go update slices through copies in
// shared memory (opt.PrivatizeAtomics). They are run with as many bins as
// one, a few, a byte's worth and more than a block's copy holds, each
// starting from values of its own, and compared with Go: integer results
// exactly, float sums within the bound of any order of additions.

var (
	privateLengths = []int{1, 31, 1000, 1<<20 + 3}
	privateBins    = []int{1, 17, 256, 5000}
)

type privateCase struct {
	name  string
	fn    any
	args  func(r *rand.Rand, n, bins int) []any
	check func(t *testing.T, args, want, got []any)
}

var privateCases = []privateCase{
	{"CountBytes", kernels.CountBytes, func(r *rand.Rand, n, bins int) []any {
		data := make([]uint8, n)
		for i := range data {
			k := min(bins, 256)
			data[i] = uint8(r.IntN(k) & r.IntN(k)) // skewed: some bins are hot
		}
		return []any{data, randomCounts(r, bins)}
	}, exact},
	{"CountValues", kernels.CountValues, func(r *rand.Rand, n, bins int) []any {
		return []any{randomWords(r, n), randomCounts(r, bins)}
	}, exact},
	{"WeighValues", kernels.WeighValues, func(r *rand.Rand, n, bins int) []any {
		weights, sums := make([]int64, n), make([]int64, bins)
		for i := range weights {
			weights[i] = int64(r.Uint64()) // sums wrap around, the same in any order
		}
		for i := range sums {
			sums[i] = r.Int64N(1000) - 500
		}
		return []any{randomWords(r, n), weights, sums}
	}, exact},
	{"BinExtremes", kernels.BinExtremes, func(r *rand.Rand, n, bins int) []any {
		values, lo, hi := make([]int32, n), make([]int32, bins), make([]int32, bins)
		for i := range values {
			values[i] = int32(r.Uint32())
		}
		for i := range lo {
			lo[i], hi[i] = int32(r.Uint32()), int32(r.Uint32())
		}
		return []any{randomWords(r, n), values, lo, hi}
	}, exact},
	{"FloatBins", kernels.FloatBins, func(r *rand.Rand, n, bins int) []any {
		data, x, sums := make([]uint8, n), make([]float32, n), make([]float32, bins)
		zeros := []float32{0, float32(math.Copysign(0, -1))}
		for i := range data {
			data[i] = uint8(r.IntN(min(bins, 256)))
			x[i] = float32(r.NormFloat64())
			if k := r.IntN(8); k < 2 {
				x[i] = zeros[k]
			}
		}
		for i := range sums {
			sums[i] = float32(r.IntN(9) - 4)
			if sums[i] == 0 {
				sums[i] = zeros[r.IntN(2)]
			}
		}
		return []any{data, x, sums}
	}, checkFloatBins},
	{"CountEven", kernels.CountEven, func(r *rand.Rand, n, bins int) []any {
		data := make([]int32, n)
		for i := range data {
			data[i] = int32(r.Uint32())
		}
		count := make([]int32, bins)
		for i := range count {
			count[i] = int32(r.IntN(1000))
		}
		return []any{data, count}
	}, exact},
}

func randomWords(r *rand.Rand, n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = r.Uint32()
	}
	return s
}

func randomCounts(r *rand.Rand, n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(r.IntN(1000))
	}
	return s
}

// checkFloatBins compares each bin's sum with the exact sum of its terms:
// a sum of m terms in any order is within (m-1)·2^-24·Σ|terms| of it. A
// bin whose terms are all zeros has Go's bits in any order: -0 only when
// every term is -0.
func checkFloatBins(t *testing.T, args, want, got []any) {
	t.Helper()
	data, x, init := args[0].([]uint8), args[1].([]float32), args[2].([]float32)
	exactSums, abs, terms := make([]float64, len(init)), make([]float64, len(init)), make([]float64, len(init))
	for j, v := range init {
		exactSums[j], abs[j], terms[j] = float64(v), math.Abs(float64(v)), 1
	}
	for i, b := range data {
		exactSums[b] += float64(x[i])
		abs[b] += math.Abs(float64(x[i]))
		terms[b]++
	}
	g, w := got[2].([]float32), want[2].([]float32)
	for j := range init {
		tol := (terms[j]-1)*0x1p-24*abs[j] + 1e-30
		if math.Abs(float64(g[j])-exactSums[j]) > tol || math.Abs(float64(w[j])-exactSums[j]) > tol {
			t.Fatalf("sum of bin %d: got %v, Go %v, exact %v, tolerance %v", j, g[j], w[j], exactSums[j], tol)
		}
		if abs[j] == 0 && math.Float32bits(g[j]) != math.Float32bits(w[j]) {
			t.Fatalf("sum of zeros in bin %d: got %v, Go %v", j, g[j], w[j])
		}
	}
	compareArgs(t, "FloatBins inputs", want[:2], got[:2])
}

// runPrivate runs every case for each length and number of bins with run,
// which returns the arguments after the kernel ran on them.
func runPrivate(t *testing.T, lengths []int, run func(t *testing.T, name string, args []any) []any) {
	for _, c := range privateCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 5))
			for _, bins := range privateBins {
				for _, n := range lengths {
					args := c.args(r, n, bins)
					want := cloneArgs(args)
					if err := callGo(c.fn, want); err != nil {
						t.Fatalf("n=%d bins=%d: the Go function failed: %v", n, bins, err)
					}
					got := run(t, c.name, cloneArgs(args))
					c.check(t, args, want, got)
					if t.Failed() {
						t.Fatalf("n=%d bins=%d", n, bins)
					}
				}
			}
		})
	}
}

// privateOnDevice runs the cases through their stubs on dev.
func privateOnDevice(dev *rt.Device, opts ...rt.LaunchOption) func(*testing.T, string, []any) []any {
	ks, err := kernels.Load(dev)
	return func(t *testing.T, name string, args []any) []any {
		if err != nil {
			t.Fatal(err)
		}
		stubArgs, read, free, err := upload(dev, args)
		if err != nil {
			t.Fatal(err)
		}
		defer free()
		if err := callStub(ks, name, stubArgs, opts...); err != nil {
			t.Fatal(err)
		}
		got, err := read()
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
}

func TestPrivateCopiesCPU(t *testing.T) {
	dev := openCPU(t)
	defer dev.Close()
	runPrivate(t, privateLengths, privateOnDevice(dev))
}

// TestPrivateCopiesConcurrentIterationsCPU runs the kernels' IR in the CPU
// race mode: each thread a block with a copy of its own, and nothing
// reported under go test -race.
func TestPrivateCopiesConcurrentIterationsCPU(t *testing.T) {
	rt.RunIterationsConcurrently(true)
	defer rt.RunIterationsConcurrently(false)
	dev := openCPU(t)
	defer dev.Close()
	runPrivate(t, privateLengths[:3], privateOnDevice(dev))
}

// TestPrivateCopiesInterpreted runs the kernels on the interpreter: on
// one thread, on three in a block, and on two blocks of 32 whose copies
// are added together. Each kernel must have a copy in shared memory.
func TestPrivateCopiesInterpreted(t *testing.T) {
	ks := loadKernels(t)
	for _, c := range privateCases {
		if !hasPrivateCopy(ks[c.name]) {
			t.Errorf("%s: no private copy in shared memory", c.name)
		}
	}
	for _, grid := range []struct{ threads, block int }{{1, 0}, {3, 0}, {64, 32}} {
		t.Run(fmt.Sprintf("threads=%d", grid.threads), func(t *testing.T) {
			runPrivate(t, privateLengths[:3], func(t *testing.T, name string, args []any) []any {
				if err := interpretGrid(ks[name], args, grid.threads, grid.block); err != nil {
					t.Fatal(err)
				}
				return args
			})
		})
	}
}

func TestPrivateCopiesGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runPrivate(t, privateLengths, privateOnDevice(dev))
}

// TestPrivateCopiesGPUSmallGrid runs the kernels on 2 blocks of 32
// threads, each thread striding over many iterations.
func TestPrivateCopiesGPUSmallGrid(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runPrivate(t, privateLengths, privateOnDevice(dev, rt.BlockSize(32), rt.GridSize(2)))
}

// hasPrivateCopy reports whether a task of k declares a private copy.
func hasPrivateCopy(k *ir.Kernel) bool {
	for _, task := range k.Tasks {
		for _, v := range task.Vars {
			if v.Space == ir.Shared && strings.HasPrefix(v.Name, "private") {
				return true
			}
		}
	}
	return false
}
