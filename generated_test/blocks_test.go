package generated_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/generated_test/blocks"
	"github.com/qdgo/qd/internal/iterations"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"github.com/qdgo/qd/opt"
	"github.com/qdgo/qd/rt"
)

// blockCases are the block-level kernels, with matrices of n elements
// about square.
var blockCases = []kernelCase{
	{"Transpose", blocks.Transpose, matrixArgs},
	{"Stencil", blocks.Stencil, matrixArgs},
	{"Reverse", blocks.Reverse, nil},
	{"Sums", blocks.Sums, nil},
	{"MatMul", blocks.MatMul, matMulArgs},
	{"BlockScan", blocks.BlockScan, nil},
	{"Exclusive", blocks.Exclusive, nil},
	{"WideSums", blocks.WideSums, nil},
	{"Gaps", blocks.Gaps, nil},
	{"Rounds", blocks.Rounds, nil},
	{"Grid", blocks.Grid, nil},
}

// matMulArgs draws n×n matrices of at most len elements.
func matMulArgs(r *rand.Rand, size int) []any {
	n := int(math.Sqrt(float64(size)))
	m := func() []float32 {
		x := make([]float32, n*n)
		for i := range x {
			x[i] = r.Float32()*2 - 1
		}
		return x
	}
	return []any{make([]float32, n*n), m(), m(), n}
}

// matrixArgs draws out and in of n elements and a width that does not
// divide the tiles.
func matrixArgs(r *rand.Rand, n int) []any {
	w := 1 + r.IntN(40)
	h := n / w
	out, in := make([]float32, w*h), make([]float32, w*h)
	for i := range in {
		in[i] = r.Float32()*8 - 4
	}
	return []any{out, in, w, h}
}

// TestBlocksInterpreted runs the block-level kernels on the IR
// interpreter, each block's threads taking turns between barriers, and
// compares with their Go functions.
func TestBlocksInterpreted(t *testing.T) {
	interpretCases(t, loadKernelsFrom(t, "blocks", &lower.Config{}), blockCases, []int{1, 300, 4099})
}

// TestBlocksInterpretedWave64 runs the block-level kernels on the IR
// interpreter with warps of 64 threads, as AMD's data-centre GPUs run
// them, and several blocks, which stride over the kernels' blocks.
func TestBlocksInterpretedWave64(t *testing.T) {
	interpretBlocks(t, loadKernelsFrom(t, "blocks", &lower.Config{}), 64, 3, []int{300, 4099})
}

// TestBlocksInterpretedPTX runs the block-level kernels as the PTX
// backend optimizes them, with the warp's size 32 and the collectives'
// steps for other sizes folded away, on the IR interpreter with warps of
// 32 threads.
func TestBlocksInterpretedPTX(t *testing.T) {
	interpretBlocks(t, loadKernelsThrough(t, "blocks", &lower.Config{}, "ptx", opt.PTX), 32, 4, []int{1, 300, 4099})
}

// interpretBlocks runs each block-level kernel on the IR interpreter with
// warps of warp threads and three blocks' worth of threads, on inputs
// drawn from seed for each of sizes, and compares with its Go function.
func interpretBlocks(t *testing.T, kernels map[string]*ir.Kernel, warp int, seed uint64, sizes []int) {
	for _, c := range blockCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), seed))
			for _, n := range sizes {
				args := drawArgs(c, r, n)
				want := cloneArgs(args)
				if err := callGo(c.fn, want); err != nil {
					t.Fatalf("the Go function failed: %v", err)
				}
				got := cloneArgs(args)
				ip := &ir.Interp{Threads: 3 * 1024, WarpSize: warp, StepLimit: 1 << 28}
				if err := interpretOn(ip, kernels[c.name], got); err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				compareArgs(t, c.name, want, got)
			}
		})
	}
}

// runBlockCases runs the block-level kernels on dev through their stubs.
func runBlockCases(t *testing.T, dev *rt.Device) {
	ks, err := blocks.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	runLoaded(t, dev, ks, blockCases, []int{1, 300, 4099})
}

// TestBlocksCPU runs the block-level kernels' stubs on the CPU, which runs
// their Go functions.
func TestBlocksCPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	runBlockCases(t, dev)
}

// TestBlocksConcurrent runs the block-level kernels in the CPU's race
// mode: their IR, each block's threads as goroutines between barriers.
func TestBlocksConcurrent(t *testing.T) {
	iterations.SetConcurrent(true)
	defer iterations.SetConcurrent(false)
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	runBlockCases(t, dev)
}

// TestBlocksGPU runs the block-level kernels on the GPU.
func TestBlocksGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runBlockCases(t, dev)
}
