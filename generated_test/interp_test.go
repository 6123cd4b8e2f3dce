package generated_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"sync"
	"testing"

	"github.com/qdgo/qd/analyzer"
	"github.com/qdgo/qd/internal/kerneltest"
	"github.com/qdgo/qd/internal/srcload"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"github.com/qdgo/qd/opt"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// loadKernels lowers the kernels of the test package from source.
func loadKernels(t *testing.T) map[string]*ir.Kernel {
	t.Helper()
	return loadKernelsFrom(t, "kernels", &lower.Config{})
}

// loadKernelsFrom lowers and optimizes the kernels of the package in dir,
// once per test binary for each directory and configuration: loading
// type-checks the package and its imports from source, which takes
// seconds, and seven tests interpret the kernels of one package. The
// kernels are shared, so callers must not change them.
func loadKernelsFrom(t *testing.T, dir string, lcfg *lower.Config) map[string]*ir.Kernel {
	t.Helper()
	return loadKernelsThrough(t, dir, lcfg, "default", opt.Default)
}

// loadKernelsThrough is loadKernelsFrom with the kernels optimized by
// pipeline, named name, instead of opt.Default.
func loadKernelsThrough(t *testing.T, dir string, lcfg *lower.Config, name string, pipeline opt.Pipeline) map[string]*ir.Kernel {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not available (GPU machines run prebuilt test binaries)")
	}
	key := fmt.Sprintf("%s %+v %s", dir, *lcfg, name)
	loadedMu.Lock()
	e := loaded[key]
	if e == nil {
		e = &loadedKernels{}
		loaded[key] = e
	}
	loadedMu.Unlock()
	e.Lock() // one load of a package at a time; the others wait for it
	defer e.Unlock()
	if e.kernels == nil {
		if ks, ok := lowerKernels(t, dir, lcfg, pipeline); ok {
			e.kernels = ks
		} else {
			return ks
		}
	}
	return e.kernels
}

// loadedKernels are the kernels of one package and configuration, once
// lowered without errors.
type loadedKernels struct {
	sync.Mutex
	kernels map[string]*ir.Kernel
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*loadedKernels{}
)

// lowerKernels lowers and optimizes (with pipeline) the kernels of the package in dir, and
// reports whether that went without errors.
func lowerKernels(t *testing.T, dir string, lcfg *lower.Config, pipeline opt.Pipeline) (map[string]*ir.Kernel, bool) {
	t.Helper()
	ok := true
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}
	pkgs, err := srcload.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("package %s has errors", dir)
	}
	prog, spkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	spkgs[0].Build()
	p := pkgs[0]
	ks, diags := analyzer.Check(prog, p.Syntax, lower.KernelDecls(p.Syntax), p.TypesInfo, lcfg)
	for _, d := range diags {
		t.Errorf("%s: %s", prog.Fset.Position(d.Pos), d.Message)
		ok = false
	}
	m := make(map[string]*ir.Kernel)
	for _, k := range ks {
		if err := pipeline.Run(k); err != nil {
			t.Errorf("kernel %s: %v", k.Name, err)
			ok = false
		}
		m[k.Name] = k
	}
	return m, ok
}

// TestKernelsInterpreted runs every kernel's IR on the IR interpreter,
// with grids of 1 and 3 threads, and compares with the Go function: the
// lowering is checked before any emitter or GPU is involved.
func TestKernelsInterpreted(t *testing.T) {
	interpretCases(t, loadKernels(t), cases, lengths[:3])
}

// TestNestsInterpretedInStripes runs the kernels whose collapsed nests
// walk stripes of rows by groups of a block's threads (lower/nest.go) on
// grids of several blocks of a GPU's sizes, where blocks step over several
// rows of their stripes and stripes end inside a row's walk or hold no
// rows: every iteration must still run once.
func TestNestsInterpretedInStripes(t *testing.T) {
	kernels := loadKernels(t)
	for _, c := range cases {
		k := kernels[c.name]
		if k == nil || !striped(k) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 5))
			for _, grid := range []struct{ threads, block int }{{64, 32}, {96, 32}, {256, 256}, {640, 64}} {
				for _, n := range lengths[:3] {
					args := drawArgs(c, r, n)
					want := cloneArgs(args)
					if err := callGo(c.fn, want); err != nil {
						t.Fatalf("the Go function failed: %v", err)
					}
					got := cloneArgs(args)
					if err := interpretGrid(k, got, grid.threads, grid.block); err != nil {
						t.Fatalf("n=%d grid=%v: %v", n, grid, err)
					}
					compareArgs(t, c.name, want, got)
				}
			}
		})
	}
}

// striped reports whether a parallel task of k reads its thread's place in
// its block outside a reduction: a collapsed nest's stripes.
func striped(k *ir.Kernel) bool {
	for _, task := range k.Tasks {
		if task.Kind != ir.Parallel || k.Reductions > 0 {
			continue
		}
		for _, b := range task.Blocks {
			for _, in := range b.Instrs {
				if in.Op == ir.OpBlockThread {
					return true
				}
			}
		}
	}
	return false
}

// interpretCases runs cases on the IR interpreter, with slices of the
// given lengths.
func interpretCases(t *testing.T, kernels map[string]*ir.Kernel, cases []kernelCase, lengths []int) {
	for _, c := range cases {
		k := kernels[c.name]
		if k == nil {
			t.Errorf("kernel %s was not lowered", c.name)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 2))
			for _, threads := range []int{1, 3} {
				for _, n := range lengths {
					args := drawArgs(c, r, n)
					want := cloneArgs(args)
					if err := callGo(c.fn, want); err != nil {
						t.Fatalf("the Go function failed: %v", err)
					}
					got := cloneArgs(args)
					if err := interpret(k, got, threads); err != nil {
						t.Fatalf("n=%d threads=%d: %v", n, threads, err)
					}
					compareArgs(t, c.name, want, got)
				}
			}
		})
	}
}

// interpret runs k on args, writing results back into args' slices.
func interpret(k *ir.Kernel, args []any, threads int) error {
	return interpretGrid(k, args, threads, 0)
}

// interpretGrid runs k on a grid of threads in blocks of blockSize (0: one
// block).
func interpretGrid(k *ir.Kernel, args []any, threads, blockSize int) error {
	return interpretGridTo(k, args, threads, blockSize, nil)
}

// interpretGridTo is interpretGrid with the kernel's prints written to
// out (nil: standard output).
func interpretGridTo(k *ir.Kernel, args []any, threads, blockSize int, out io.Writer) error {
	return interpretOn(&ir.Interp{Threads: threads, BlockSize: blockSize, StepLimit: 1 << 28, Out: out}, k, args) // math.Mod loops once per bit of exponent difference
}

// interpretOn runs k on args with ip, whose memory it sets, writing
// results back into args' slices.
func interpretOn(ip *ir.Interp, k *ir.Kernel, args []any) error {
	args = kerneltest.FlatArgs(args) // the slices stay the caller's
	heap := &ir.Heap{}
	vals := &ir.Values{
		Scalar: make([]uint64, len(args)),
		Base:   make([]uint64, len(args)),
		Len:    make([]int64, len(args)),
	}
	for i, a := range args {
		v := reflect.ValueOf(a)
		if v.Kind() == reflect.Slice {
			b := sliceBytes(a)
			vals.Base[i] = heap.Alloc(len(b))
			copy(heap.Bytes(vals.Base[i]), b)
			vals.Len[i] = int64(v.Len())
			continue
		}
		vals.Scalar[i], _ = ir.Bits(a)
	}
	ip.Mem = heap
	if err := ip.Run(k, vals); err != nil {
		return err
	}
	for i, a := range args {
		if reflect.ValueOf(a).Kind() == reflect.Slice {
			copy(sliceBytes(a), heap.Bytes(vals.Base[i]))
		}
	}
	return nil
}
