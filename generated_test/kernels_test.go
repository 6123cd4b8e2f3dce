package generated_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/internal/testlong"
	"github.com/qdgo/qd/rt"
)

var cases = []kernelCase{
	{name: "Saxpy", fn: kernels.Saxpy},
	{name: "MixInt8", fn: kernels.MixInt8},
	{name: "MixInt16", fn: kernels.MixInt16},
	{name: "MixInt32", fn: kernels.MixInt32},
	{name: "MixInt64", fn: kernels.MixInt64},
	{name: "MixInt", fn: kernels.MixInt},
	{name: "MixUint8", fn: kernels.MixUint8},
	{name: "MixUint16", fn: kernels.MixUint16},
	{name: "MixUint32", fn: kernels.MixUint32},
	{name: "MixUint64", fn: kernels.MixUint64},
	{name: "MixUint", fn: kernels.MixUint},
	{name: "Shifts", fn: kernels.Shifts},
	{name: "Conversions", fn: kernels.Conversions, args: conversionArgs},
	{name: "Floats", fn: kernels.Floats},
	{name: "Floats32", fn: kernels.Floats32},
	{name: "MinMaxZeros", fn: kernels.MinMaxZeros},
	{name: "MinMaxConstants", fn: kernels.MinMaxConstants},
	{name: "Control", fn: kernels.Control},
	{name: "Phases", fn: kernels.Phases},
	{name: "Spin", fn: kernels.Spin, args: spinArgs},
	{name: "Helpers", fn: kernels.Helpers},
	{name: "Ranges", fn: kernels.Ranges},
	{name: "Narrow", fn: kernels.Narrow},
	{name: "Empty", fn: kernels.Empty},
	{name: "Counted", fn: kernels.Counted, args: countedArgs},
	{name: "Rounds", fn: kernels.Rounds},
	{name: "ClampedWindow", fn: kernels.ClampedWindow, args: func(r *rand.Rand, n int) []any {
		w := 1 + r.IntN(n)
		ladder := make([]float32, n)
		for i := range ladder {
			ladder[i] = float32(r.NormFloat64() * 4)
		}
		bytes := make([]uint8, n)
		for i := range bytes {
			bytes[i] = uint8(r.Uint32())
		}
		return []any{make([]int32, n), bytes, ladder, w, n / w}
	}},
	{name: "Scalars", fn: kernels.Scalars, args: func(r *rand.Rand, n int) []any {
		return []any{make([]int64, n), int8(r.Uint32()), uint16(r.Uint32()), r.IntN(2) == 1, int16(r.Uint32()),
			uint8(r.Uint32()), int32(r.Uint32()), float32(r.NormFloat64() * 100), r.Uint32(), r.NormFloat64() * 1e6, r.Uint64()}
	}},
	{name: "SaxpyP", fn: kernels.SaxpyP, args: func(r *rand.Rand, n int) []any {
		p := kernels.SaxpyParams{A: float32(r.NormFloat64()), N: r.IntN(n + 1), Skip: r.IntN(4) == 0}
		for i := range p.Scale {
			p.Scale[i] = float32(r.NormFloat64())
		}
		return []any{p, randomFloats(r, n), randomFloats(r, n)}
	}},
	{name: "Taps4", fn: kernels.Taps4},
	{name: "TwoBlocks", fn: kernels.TwoBlocks},
	{name: "OrderedInBlock", fn: kernels.OrderedInBlock},
	{name: "ComputeAB", fn: kernels.ComputeAB, args: func(r *rand.Rand, n int) []any {
		return []any{make([]float32, n), make([]float32, n), r.IntN(n + 1), float32(r.NormFloat64())}
	}},
	{name: "Combine", fn: kernels.Combine},
	{name: "EightBlocks", fn: kernels.EightBlocks, args: eightArgs},
	{name: "MixedTop", fn: kernels.MixedTop},
	{name: "BlockStructs", fn: kernels.BlockStructs},
	{name: "Advance", fn: kernels.Advance},
	{name: "Energies", fn: kernels.Energies, args: mirroredBodies},
	{name: "Blur5", fn: kernels.Blur5},
	{name: "Rotate", fn: kernels.Rotate},
	{name: "Pick", fn: kernels.Pick},
	{name: "Masks", fn: kernels.Masks},
	{name: "Complex128Ops", fn: kernels.Complex128Ops},
	{name: "Complex64Ops", fn: kernels.Complex64Ops},
	{name: "Julia", fn: kernels.Julia, args: juliaArgs},
	{name: "Smooth", fn: kernels.Smooth},
	{name: "Centered", fn: kernels.Centered},
	{name: "LocalMethods", fn: kernels.LocalMethods},
	{name: "RandomFill", fn: kernels.RandomFill, args: func(r *rand.Rand, n int) []any {
		return []any{make([]uint32, n), r.Uint64()}
	}},
	{name: "Quads", fn: kernels.Quads, args: quadArgs},
	{name: "Grid2D", fn: kernels.Grid2D, args: func(r *rand.Rand, n int) []any {
		return []any{make([]float32, n), 1 + r.IntN(40)}
	}},
	{name: "Rows", fn: kernels.Rows, args: func(r *rand.Rand, n int) []any {
		args := randomArgs(kernels.Rows, r, n)
		args[2] = 1 + r.IntN(70)
		return args
	}},
	{name: "Volume", fn: kernels.Volume, args: func(r *rand.Rand, n int) []any {
		args := randomArgs(kernels.Volume, r, n)
		args[2], args[3] = 1+r.IntN(12), 1+r.IntN(9)
		return args
	}},
	{name: "NarrowIndices", fn: kernels.NarrowIndices, args: func(r *rand.Rand, n int) []any {
		lo := []int16{-32768, -5, 0, 32765}[r.IntN(4)]
		return []any{make([]int64, n), uint8(r.IntN(256)), lo}
	}},
	{name: "Triangle", fn: kernels.Triangle},
	{name: "RowPrefix", fn: kernels.RowPrefix, args: func(r *rand.Rand, n int) []any {
		return []any{randomArgs(kernels.RowPrefix, r, n)[0], 1 + r.IntN(30)}
	}},
	{name: "Before", fn: kernels.Before, args: func(r *rand.Rand, n int) []any {
		return []any{make([]float32, n), 1 + r.IntN(30)}
	}},
	{name: "HelperLoops", fn: kernels.HelperLoops, args: func(r *rand.Rand, n int) []any {
		return []any{make([]float32, n), 1 + r.IntN(30), float32(r.NormFloat64())}
	}},
	{name: "MatAcc", fn: kernels.MatAcc, args: func(r *rand.Rand, _ int) []any {
		n, k := 1+r.IntN(9), r.IntN(7)
		return []any{floats32(r, n*n), floats32(r, n*k), floats32(r, k*n), n, k}
	}},
	{name: "SyrkTri", fn: kernels.SyrkTri, args: func(r *rand.Rand, _ int) []any {
		n, m := r.IntN(12), r.IntN(7)
		return []any{floats32(r, n*n), floats32(r, n*m), n, m, float32(r.NormFloat64()), float32(r.NormFloat64())}
	}},
	{name: "TriangleShapes", fn: kernels.TriangleShapes, args: func(r *rand.Rand, _ int) []any {
		n := r.IntN(9)
		above := make([]int32, n*n)
		for i := range above {
			above[i] = int32(r.Uint32())
		}
		return []any{make([]int32, n*n), above, make([]int64, n*n*n), n}
	}},
	{name: "NarrowTriangles", fn: kernels.NarrowTriangles, args: func(r *rand.Rand, n int) []any {
		lo := []int8{-128, -3, 100, 126, 127}[r.IntN(5)]
		return []any{make([]int32, 256+n), lo, uint8([]int{0, 1, 2, 5, 255}[r.IntN(5)])}
	}},
	{name: "TriangleSum", fn: kernels.TriangleSum, args: func(r *rand.Rand, _ int) []any {
		n := r.IntN(10)
		a, diag := make([]int64, n*n), make([]int64, n)
		for i := range a {
			a[i] = int64(r.Uint64())
		}
		for i := range diag {
			diag[i] = int64(r.Uint32())
		}
		return []any{make([]int64, 1), a, diag, make([]int64, n*n)}
	}},
	// The kernels of faults.go with arguments in range: their checks pass.
	{name: "Tag", fn: kernels.Tag, args: func(r *rand.Rand, n int) []any {
		return []any{bodies(r, n), permutation(r, n)}
	}},
	{name: "Taps", fn: kernels.Taps, args: func(r *rand.Rand, n int) []any {
		args := randomArgs(kernels.Taps, r, n)
		args[2] = r.IntN(4)
		return args
	}},
	{name: "Smoothed", fn: kernels.Smoothed, args: func(r *rand.Rand, n int) []any {
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(r.IntN(5))
		}
		return []any{make([]float32, n), idx}
	}},
	{name: "Outer", fn: kernels.Outer, args: func(r *rand.Rand, n int) []any {
		w := 1 + r.IntN(40)
		return []any{make([]float32, n/w*w), floats32(r, n/w), floats32(r, w)}
	}},
	{name: "GCD", fn: kernels.GCD},
	{name: "BlockValues", fn: kernels.BlockValues},
	{name: "Chain", fn: kernels.Chain},
	{name: "MultiResults", fn: kernels.MultiResults},
	{name: "BlocksCall", fn: kernels.BlocksCall},
	{name: "PrologueHelper", fn: kernels.PrologueHelper},
	{name: "RebuiltInPrologue", fn: kernels.RebuiltInPrologue},
	{name: "StructCalls", fn: kernels.StructCalls},
}

// bodies draws bodies with finite masses and velocities, some of them
// alive.
func bodies(r *rand.Rand, n int) []kernels.Body {
	bs := make([]kernels.Body, n)
	for i := range bs {
		v := func() float32 { return float32(r.NormFloat64() * 10) }
		bs[i] = kernels.Body{Pos: kernels.Vec{X: v(), Y: v(), Z: v()}, Vel: kernels.Vec{X: v(), Y: v(), Z: v()},
			Mass: r.Float64() * 100, Alive: r.IntN(3) > 0, Tag: int16(r.IntN(100)), Kind: uint8(r.IntN(4))}
	}
	return bs
}

// permutation returns the numbers 0 to n-1 in random order, as int32.
func permutation(r *rand.Rand, n int) []int32 {
	p := make([]int32, n)
	for i, v := range r.Perm(n) {
		p[i] = int32(v)
	}
	return p
}

// mirroredBodies makes some bodies equal to their mirror images, which
// Energies compares.
func mirroredBodies(r *rand.Rand, n int) []any {
	args := randomArgs(kernels.Energies, r, n)
	bs := args[0].([]kernels.Body)
	for i := range bs {
		if r.IntN(3) == 0 {
			bs[i] = bs[n-1-i]
		}
	}
	return args
}

// juliaArgs draws points around the origin and a short iteration limit.
func juliaArgs(r *rand.Rand, n int) []any {
	cs := make([]complex128, n)
	for i := range cs {
		cs[i] = complex(r.Float64()*4-2, r.Float64()*4-2)
	}
	p := []kernels.JuliaParams{{C: complex(r.Float64()-0.5, r.Float64()-0.5), Radius: 4, MaxIter: int32(r.IntN(60))}}
	return []any{cs, p, make([]int32, n)}
}

func init() { cases = append(cases, convertCases...) }

// eightArgs keeps the spin loops of EightBlocks short.
func eightArgs(r *rand.Rand, n int) []any {
	args := make([]any, 9)
	for i := range 8 {
		args[i] = make([]int64, n)
	}
	args[8] = r.IntN(50)
	return args
}

// countedArgs draws loop bounds near the limits of their types with short
// trip counts.
func countedArgs(r *rand.Rand, n int) []any {
	out, lo, hi := make([]int64, n), make([]int64, n), make([]int64, n)
	small, u := make([]int8, n), make([]uint32, n)
	starts := []int64{math.MinInt64, math.MinInt64 + 3, -5, 0, 1, math.MaxInt64 - 40, math.MaxInt64 - 13}
	for i := range n {
		lo[i] = starts[r.IntN(len(starts))] + int64(r.IntN(4))
		hi[i] = lo[i] + max(int64(r.IntN(13))-2, math.MinInt64+2-lo[i]) // no wraparound
		small[i] = int8(120 + r.IntN(8))
		if r.IntN(2) == 0 {
			small[i] = int8(-128 + r.IntN(8))
		}
		u[i] = uint32(r.Uint32())
		if r.IntN(2) == 0 {
			u[i] = math.MaxUint32 - uint32(r.IntN(10))
		}
	}
	return []any{out, lo, hi, small, u}
}

// conversionArgs keeps float-to-integer conversions in range, where Go
// defines their results.
func conversionArgs(r *rand.Rand, n int) []any {
	args := randomArgs(kernels.Conversions, r, n)
	f := args[1].([]float64)
	for i := range f {
		f[i] = r.Float64() * 60000
	}
	return args
}

// spinArgs keeps the spin loop short.
func spinArgs(r *rand.Rand, n int) []any {
	return []any{make([]int64, n), r.IntN(200)}
}

func drawArgs(c kernelCase, r *rand.Rand, n int) []any {
	if c.args != nil {
		return c.args(r, n)
	}
	return randomArgs(c.fn, r, n)
}

// runAll runs every case on dev through its stub and compares the buffers
// with the Go function's slices.
func runAll(t *testing.T, dev *rt.Device, opts ...rt.LaunchOption) {
	runAllLengths(t, dev, lengths, opts...)
}

// runAllLengths is runAll with slices of the given lengths.
func runAllLengths(t *testing.T, dev *rt.Device, lengths []int, opts ...rt.LaunchOption) {
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	runLoaded(t, dev, ks, cases, lengths, opts...)
}

// runKernelCases runs the given cases of package kernels on dev.
func runKernelCases(t *testing.T, dev *rt.Device, cases []kernelCase, opts ...rt.LaunchOption) {
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	runLoaded(t, dev, ks, cases, lengths, opts...)
}

// runLoaded runs the cases through their stubs, methods of ks, with slices
// of the given lengths.
func runLoaded(t *testing.T, dev *rt.Device, ks any, cases []kernelCase, lengths []int, opts ...rt.LaunchOption) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 1))
			for _, n := range lengths {
				args := drawArgs(c, r, n)
				want := cloneArgs(args)
				if err := callGo(c.fn, want); err != nil {
					t.Fatalf("n=%d: the Go function failed: %v", n, err)
				}
				stubArgs, read, free, err := upload(dev, args)
				if err != nil {
					t.Fatal(err)
				}
				if err := callStub(ks, c.name, stubArgs, opts...); err != nil {
					free()
					t.Fatalf("n=%d: %v", n, err)
				}
				got, err := read()
				free()
				if err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				compareArgs(t, c.name, want, got)
			}
		})
	}
	if err := dev.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

func TestKernelsCPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	runAll(t, dev)
}

// openGPU opens the GPU backend under test, QD_BACKEND's when it names
// one (cuda or hip) and else CUDA, or skips the test on a machine without
// it.
func openGPU(t testing.TB) *rt.Device {
	backend, _ := rt.ParseBackend(os.Getenv("QD_BACKEND"))
	if backend != rt.HIP {
		backend = rt.CUDA
	}
	dev, err := rt.Open(rt.WithBackend(backend))
	if errors.Is(err, rt.ErrNoDevice) {
		t.Skipf("no %s device: %v", backend, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device: %s", dev)
	return dev
}

func TestKernelsGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runAll(t, dev)
}

// TestKernelsGPUSmallGrid runs every kernel on grids of 2 blocks of 32
// threads, so every thread strides over many iterations.
func TestKernelsGPUSmallGrid(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runAll(t, dev, rt.BlockSize(32), rt.GridSize(2))
}

// TestGeneratedFilesCurrent runs qdgen over the test packages in check mode:
// the committed files must be what qdgen writes now. It compiles every
// generated package, the math kernels included, for every backend: a long
// test, which .ci/run also does as a step of its own.
func TestGeneratedFilesCurrent(t *testing.T) {
	testlong.Skip(t, "qdgen -check of every generated package")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available (GPU machines run prebuilt test binaries)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "run", "./cmd/qdgen", "-check", "./generated_test/...", "./example/...", "./bench/...")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("qdgen -check: %v\n%s", err, out)
	}
}

// quadArgs keeps the floats of Quads where converting them to int64 is
// defined.
func quadArgs(r *rand.Rand, n int) []any {
	args := randomArgs(kernels.Quads, r, n)
	for i, q := range args[0].([][4]float32) {
		for j := range q {
			args[0].([][4]float32)[i][j] = float32(r.IntN(2001) - 1000)
		}
	}
	return args
}

// TestKernelsConcurrentIterationsCPU runs every kernel in the CPU backend's
// race mode: through its IR with the iterations of each parallel loop on
// goroutines in shuffled order, and the blocks of each StreamParallel
// group too. The results must be Go's, and under go test -race (as CI
// runs it) nothing may be reported: these kernels are race-free.
func TestKernelsConcurrentIterationsCPU(t *testing.T) {
	rt.RunIterationsConcurrently(true)
	defer rt.RunIterationsConcurrently(false)
	rt.RunBlocksConcurrently(true)
	defer rt.RunBlocksConcurrently(false)
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	runAllLengths(t, dev, lengths[:3]) // the interpreter is slow under -race
}
