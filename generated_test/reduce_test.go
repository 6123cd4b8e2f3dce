package generated_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// A reductionCase is a kernel with reductions. Integer reductions and min
// and max equal Go's exactly; float sums and products are combined in
// another order than Go's serial one, so their results are compared
// within the bound of the rounding errors of summation: every order of
// adding n numbers is within (n-1)·u·Σ|xᵢ| of the exact sum, u the unit
// roundoff, so two orders are within twice that.
type reductionCase struct {
	name string
	fn   any
	args func(r *rand.Rand, n int) []any
	// tolerance is the largest difference allowed between a float result
	// and Go's, for the arguments args; nil: none.
	tolerance func(args []any) float64
}

var reductionCases = []reductionCase{
	{name: "Sum", fn: kernels.Sum, args: func(r *rand.Rand, n int) []any {
		return []any{floats32(r, n), make([]float32, 1)}
	}, tolerance: func(a []any) float64 { return sumBound(a[0].([]float32), nil) }},
	{name: "Dot", fn: kernels.Dot, args: func(r *rand.Rand, n int) []any {
		return []any{floats32(r, n), floats32(r, n), make([]float32, 1)}
	}, tolerance: func(a []any) float64 { return sumBound(a[0].([]float32), a[1].([]float32)) + 1 }},
	{name: "IntStats", fn: kernels.IntStats, args: func(r *rand.Rand, n int) []any {
		return []any{randomValues[int32](r, n), make([]int64, 10)}
	}},
	{name: "Center", fn: kernels.Center, args: func(r *rand.Rand, n int) []any {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()*100 + 7
		}
		return []any{x, make([]float64, n)}
	}, tolerance: func(a []any) float64 {
		x := a[0].([]float64)
		return sumBound64(x)/float64(len(x)) + 1e-12
	}},
	{name: "FloatRange", fn: kernels.FloatRange, args: func(r *rand.Rand, n int) []any {
		x := randomValues[float64](r, n) // with NaN, infinities and zeros of both signs
		return []any{x, make([]float64, 2), r.IntN(n + 1)}
	}},
	{name: "ChunkSums", fn: kernels.ChunkSums, args: func(r *rand.Rand, n int) []any {
		chunk := 1 + r.IntN(5)
		return []any{randomValues[int64](r, n), make([]int64, (n+chunk-1)/chunk), make([]int64, 1), chunk, r.Int64()}
	}},
	{name: "ScaleSum", fn: kernels.ScaleSum, args: func(r *rand.Rand, n int) []any {
		return []any{randomValues[int32](r, n), make([]int32, n), make([]int32, 1)}
	}},
	{name: "BlockSums", fn: kernels.BlockSums, args: func(r *rand.Rand, n int) []any {
		return []any{randomValues[int32](r, n), randomValues[int32](r, n), make([]int32, 1), make([]int32, 16)}
	}},
}

// reductionLengths are the lengths the cases run with: a single element,
// a warp and one element either side, more than a block, and many blocks
// of a full grid with a ragged end.
var reductionLengths = []int{1, 31, 32, 33, 1000, 1<<20 + 3}

func floats32(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64() * 10)
	}
	return x
}

func randomValues[T any](r *rand.Rand, n int) []T {
	var zero T
	s := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(zero)), n, n)
	for i := range n {
		s.Index(i).Set(randomValue(reflect.TypeOf(zero), r))
	}
	return s.Interface().([]T)
}

// sumBound bounds the difference of two float32 sums of x (or of x[i]*y[i])
// in different orders.
func sumBound(x, y []float32) float64 {
	abs := 0.0
	for i, v := range x {
		p := float64(v)
		if y != nil {
			p *= float64(y[i])
		}
		abs += math.Abs(p)
	}
	return 2 * float64(len(x)) * 0x1p-24 * abs
}

func sumBound64(x []float64) float64 {
	abs := 0.0
	for _, v := range x {
		abs += math.Abs(v)
	}
	return 2 * float64(len(x)) * 0x1p-53 * abs
}

// compareClose compares the slices of two runs as compareArgs does, but
// lets floats differ by up to tol.
func compareClose(t *testing.T, what string, want, got []any, tol float64) {
	t.Helper()
	if tol == 0 {
		compareArgs(t, what, want, got)
		return
	}
	for i := range want {
		wv, gv := reflect.ValueOf(want[i]), reflect.ValueOf(got[i])
		if wv.Kind() != reflect.Slice {
			continue
		}
		for j := range wv.Len() {
			w, g := wv.Index(j), gv.Index(j)
			switch w.Kind() {
			case reflect.Float32, reflect.Float64:
				if d := math.Abs(w.Float() - g.Float()); !(d <= tol) && !sameValue(w, g) {
					t.Errorf("%s: argument %d, element %d: got %v, want %v within %g", what, i, j, g, w, tol)
					return
				}
			default:
				if !sameValue(w, g) {
					t.Errorf("%s: argument %d, element %d: got %v, want %v", what, i, j, g, w)
					return
				}
			}
		}
	}
}

// runReductions runs every reduction case on dev at every length of
// lengths and compares with the Go function.
func runReductions(t *testing.T, dev *rt.Device, lengths []int, opts ...rt.LaunchOption) {
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reductionCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 3))
			for _, n := range lengths {
				args := c.args(r, n)
				want := cloneArgs(args)
				if err := callGo(c.fn, want); err != nil {
					t.Fatalf("n=%d: the Go function failed: %v", n, err)
				}
				stubArgs, read, free, err := upload(dev, args)
				if err != nil {
					t.Fatal(err)
				}
				err = callStub(ks, c.name, stubArgs, opts...)
				var got []any
				if err == nil {
					got, err = read()
				}
				free()
				if err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				tol := 0.0
				if c.tolerance != nil {
					tol = c.tolerance(args)
				}
				compareClose(t, c.name, want, got, tol)
			}
		})
	}
}

func TestReductionsCPU(t *testing.T) {
	dev := openCPU(t)
	defer dev.Close()
	runReductions(t, dev, reductionLengths)
}

// TestReductionsConcurrentIterationsCPU runs the reductions in the CPU
// race mode, through their IR with each thread a block of its own: under
// go test -race nothing may be reported, and the results are Go's.
func TestReductionsConcurrentIterationsCPU(t *testing.T) {
	rt.RunIterationsConcurrently(true)
	defer rt.RunIterationsConcurrently(false)
	rt.RunBlocksConcurrently(true)
	defer rt.RunBlocksConcurrently(false)
	dev := openCPU(t)
	defer dev.Close()
	runReductions(t, dev, reductionLengths[:5])
}

func TestReductionsGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runReductions(t, dev, reductionLengths)
}

// TestReductionsGPUSmallGrid runs the reductions on grids so small that
// every thread strides over many iterations, and on blocks of one warp and
// of several.
func TestReductionsGPUSmallGrid(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	for _, shape := range [][2]int{{32, 2}, {64, 3}, {1024, 1}} {
		runReductions(t, dev, reductionLengths, rt.BlockSize(shape[0]), rt.GridSize(shape[1]))
	}
}

// TestReductionsInterpreted runs the reductions on the interpreter, on
// grids of one thread, three threads, and two blocks of 32 in warps of 32,
// so that the warp shuffles, the shared memory and the combination of the
// blocks are all checked against Go.
func TestReductionsInterpreted(t *testing.T) {
	kernels := loadKernels(t)
	for _, c := range reductionCases {
		k := kernels[c.name]
		if k == nil {
			t.Fatalf("kernel %s was not lowered", c.name)
		}
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 4))
			for _, grid := range [][2]int{{1, 1}, {3, 3}, {64, 32}} {
				for _, n := range reductionLengths[:5] {
					args := c.args(r, n)
					want := cloneArgs(args)
					if err := callGo(c.fn, want); err != nil {
						t.Fatalf("the Go function failed: %v", err)
					}
					got := cloneArgs(args)
					if err := interpretGrid(k, got, grid[0], grid[1]); err != nil {
						t.Fatalf("n=%d grid=%v: %v", n, grid, err)
					}
					tol := 0.0
					if c.tolerance != nil {
						tol = c.tolerance(args)
					}
					compareClose(t, c.name, want, got, tol)
				}
			}
		})
	}
}

// TestReductionDeterministicGPU runs the same float reductions 20 times:
// every run gives the same bits.
func TestReductionDeterministicGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{1000, 1<<20 + 3} {
		x, err := rt.FromSlice(dev, floats32(r, n))
		must(t, err)
		y, err := rt.FromSlice(dev, floats32(r, n))
		must(t, err)
		out, err := rt.Alloc[float32](dev, 1)
		must(t, err)
		var first [2]uint32
		for run := range 20 {
			must(t, ks.Sum(x, out))
			s, err := out.Read()
			must(t, err)
			must(t, ks.Dot(x, y, out))
			d, err := out.Read()
			must(t, err)
			bits := [2]uint32{math.Float32bits(s[0]), math.Float32bits(d[0])}
			if run == 0 {
				first = bits
			} else if bits != first {
				t.Fatalf("n=%d run %d: sum and dot %#x, the first run gave %#x", n, run, bits, first)
			}
		}
		x.Free()
		y.Free()
		out.Free()
	}
}

// reductionStreams launches the same reduction from several goroutines at
// once, each on a stream of its own: the launches share the kernel's
// scratch memory, one after another on the GPU, and each gets its own
// result.
func reductionStreams(t *testing.T, dev *rt.Device) {
	ks, err := kernels.Load(dev)
	must(t, err)
	const goroutines, launches, n = 4, 30, 100000
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				s, err := dev.NewStream()
				if err != nil {
					return err
				}
				defer s.Close()
				ones := make([]float32, n)
				for i := range ones {
					ones[i] = float32(g + 1)
				}
				x, err := rt.FromSlice(dev, ones)
				if err != nil {
					return err
				}
				defer x.Free()
				out, err := rt.Alloc[float32](dev, 1)
				if err != nil {
					return err
				}
				defer out.Free()
				for range launches {
					if err := ks.Sum(x, out, rt.OnStream(s)); err != nil {
						return err
					}
				}
				if err := s.Synchronize(); err != nil {
					return err
				}
				got, err := out.Read()
				if err != nil {
					return err
				}
				if want := float32(n * (g + 1)); got[0] != want {
					return fmt.Errorf("goroutine %d: sum %v, want %v", g, got[0], want)
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestReductionStreamsCPU(t *testing.T) {
	dev := openCPU(t)
	defer dev.Close()
	reductionStreams(t, dev)
}

func TestReductionStreamsGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	reductionStreams(t, dev)
}
