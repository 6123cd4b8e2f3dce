package generated_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/rt"
)

// The kernels of kernels/hoisted.go, whose index checks leave their loops
// (opt.HoistChecks), each with arguments drawn around the edges where the
// checks begin to fail: the kernels must compute what Go computes, and
// fault where Go faults.
var hoistCases = []kernelCase{
	{name: "Offsets", fn: kernels.Offsets, args: func(r *rand.Rand, n int) []any {
		// Not near math.MaxInt64: a thread's first iteration, w plus the
		// thread's index, would wrap around (lower's grid-stride loop).
		w := pick(r, 0, 1, 2, 3, -1, -2, n/2, n, math.MinInt64, 1<<62, -1<<62)
		return []any{randomFloats(r, n+pick(r, 0, 0, -1, 3, -n)), randomFloats(r, n), w}
	}},
	{name: "Reverse", fn: kernels.Reverse, args: func(r *rand.Rand, n int) []any {
		return []any{make([]int32, max(n+pick(r, 0, 0, 1, -1, -n), 0)), randomInts32(r, n)}
	}},
	{name: "Strided", fn: kernels.Strided, args: func(r *rand.Rand, n int) []any {
		c := pick(r, 0, 1, 2, 3, -1, math.MaxInt64, math.MinInt64)
		return []any{make([]int64, n), randomInts64(r, pick(r, 3*n, 3*n+2, 2*n+1, 2*n, n)), c}
	}},
	{name: "RowWindows", fn: kernels.RowWindows, args: func(r *rand.Rand, n int) []any {
		w := pick(r, 1, 2, 3, 5, 8, 8, -1, 0, math.MaxInt64)
		stride := pick(r, w, w, w+2, 0, -w, math.MaxInt64, math.MinInt64)
		off := pick(r, 0, 0, 1, -1, 2, math.MinInt64)
		return []any{make([]float64, n), randomFloats64(r, n+pick(r, 0, 0, 2, 9, -1, -n)), w, stride, off}
	}},
	{name: "Columns", fn: kernels.Columns, args: func(r *rand.Rand, n int) []any {
		cols := min(n, 12)
		rows := pick(r, 0, 1, 4, 9, -1, math.MinInt64)
		step := pick(r, cols, cols, cols+1, 1, 0, -1, math.MaxInt64, 1<<62)
		m := max(rows, 0) * cols
		return []any{make([]float32, cols), randomFloats(r, m+pick(r, 0, 0, 1, -1, -m, 5)), step, rows}
	}},
	{name: "Span", fn: kernels.Span, args: func(r *rand.Rand, n int) []any {
		size := min(n, 30)
		lo := pick(r, 0, 0, 1, 3, -1, size, math.MaxInt64-3, math.MinInt64)
		hi := pick(r, size, size, size+1, size-1, lo+4, lo, lo-1, math.MaxInt64)
		return []any{make([]int64, min(n, 9)), randomInts64(r, size), lo, hi}
	}},
	{name: "TableLookup", fn: kernels.TableLookup, args: func(r *rand.Rand, n int) []any {
		data := make([]uint8, n)
		for i := range data {
			data[i] = uint8(r.IntN(pick(r, 256, 200, 2)))
		}
		return []any{make([]uint16, max(n+pick(r, 0, 0, -1, -n), 0)), randomUints16(r, pick(r, 256, 256, 300, 255, 200, 0)), data}
	}},
	{name: "Guarded", fn: kernels.Guarded, args: func(r *rand.Rand, n int) []any {
		d := pick(r, 0, 1, 3, -1, -3, math.MaxInt64, math.MinInt64)
		in := randomInts32(r, n+pick(r, 0, 0, 3, -n))
		for i := range in {
			if r.IntN(4) != 0 {
				in[i] = -1 // mostly no read
			}
		}
		return []any{make([]int32, n), in, d}
	}},
	{name: "Fixed", fn: kernels.Fixed, args: func(r *rand.Rand, n int) []any {
		k := pick(r, 0, n-1, n/2, n, -1, math.MinInt64)
		return []any{randomFloats(r, n+pick(r, 0, 0, 1, -n)), randomFloats(r, n), k}
	}},
	{name: "Digits", fn: kernels.Digits, args: func(r *rand.Rand, n int) []any {
		// Not 1, whose loop never ends; a base of 0 faults only where a
		// value is positive, and values past 32 bits divide in 64.
		base := pick(r, 0, 0, 2, 10, 10, -1, -3, math.MaxInt64, math.MinInt64)
		in := make([]int, n)
		for i := range in {
			in[i] = int(r.Int64()>>pick(r, 0, 20, 40, 62)) * pick(r, 1, 1, -1)
			if r.IntN(8) == 0 {
				in[i] = 0
			}
		}
		// A longer out faults at index n: only where no division by zero
		// can fault too, as the GPU reports whichever fault comes first.
		extra := pick(r, 0, 0, 0, 1)
		if base == 0 {
			extra = 0
		}
		return []any{make([]int, n+extra), in, base}
	}},
}

func pick(r *rand.Rand, choices ...int) int { return choices[r.IntN(len(choices))] }

func randomFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, max(n, 0))
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func randomFloats64(r *rand.Rand, n int) []float64 {
	s := make([]float64, max(n, 0))
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

func randomInts32(r *rand.Rand, n int) []int32 {
	s := make([]int32, max(n, 0))
	for i := range s {
		s[i] = int32(r.Uint32())
	}
	return s
}

func randomInts64(r *rand.Rand, n int) []int64 {
	s := make([]int64, max(n, 0))
	for i := range s {
		s[i] = int64(r.Uint64() >> 8)
	}
	return s
}

func randomUints16(r *rand.Rand, n int) []uint16 {
	s := make([]uint16, max(n, 0))
	for i := range s {
		s[i] = uint16(r.Uint32())
	}
	return s
}

// hoistDraws is the number of argument lists drawn for each kernel and
// length.
const hoistDraws = 60

// outcome is what a run of a kernel gives: its slices, or the fault it
// reports, as kind, values and line.
type outcome struct {
	args  []any
	fault string
}

// faultOutcome describes a fault of any backend without its column, which
// Go's stack does not always give.
func faultOutcome(err error) (string, bool) {
	var f *rt.Fault
	if errors.As(err, &f) {
		pos := strings.SplitN(f.Pos, ":", 3)
		return f.Kind.String() + " " + strings.SplitN(f.Error(), " (", 2)[0] + " at " + strings.Join(pos[:min(2, len(pos))], ":"), true
	}
	var g *ir.Fault
	if errors.As(err, &g) {
		pos := strings.SplitN(g.Site.Pos(), ":", 3)
		return g.Site.Kind.String() + " " + strings.SplitN(g.Error(), " (", 2)[0] + " at " + strings.Join(pos[:2], ":"), true
	}
	return "", false
}

// kindOf is the kind of fault an outcome reports.
func (o outcome) kind() string { return strings.SplitN(o.fault, " ", 2)[0] }

// stubOutcome runs a case through its stub: on the CPU backend, its Go
// function.
func stubOutcome(t *testing.T, ks *kernels.Kernels, dev *rt.Device, c kernelCase, args []any, opts ...rt.LaunchOption) outcome {
	t.Helper()
	stubArgs, read, free, err := upload(dev, cloneArgs(args))
	if err != nil {
		t.Fatal(err)
	}
	defer free()
	if err := callStub(ks, c.name, stubArgs, opts...); err != nil {
		return faultOrFail(t, err)
	}
	got, err := read()
	if err != nil {
		return faultOrFail(t, err)
	}
	return outcome{args: got}
}

func faultOrFail(t *testing.T, err error) outcome {
	t.Helper()
	f, ok := faultOutcome(err)
	if !ok {
		t.Fatal(err)
	}
	return outcome{fault: f}
}

// sameOutcome compares a run with Go's: the same slices, or a fault where
// Go faults. When only one iteration can fail first, exact asks for the
// same fault, at the same check with the same values: the interpreter
// with one thread runs the iterations in Go's order.
func sameOutcome(t *testing.T, what string, want, got outcome, exact bool) {
	t.Helper()
	switch {
	case want.fault == "" && got.fault != "":
		t.Fatalf("%s: %s, where Go does not fault", what, got.fault)
	case want.fault == "":
		compareArgs(t, what, want.args, got.args)
	case got.fault == "":
		t.Fatalf("%s: no fault, where Go reports %s", what, want.fault)
	case exact && got.fault != want.fault, got.kind() != want.kind():
		t.Fatalf("%s: %s, where Go reports %s", what, got.fault, want.fault)
	}
}

// TestHoistedChecksInterpreted runs the kernels on the interpreter, on one
// thread, on three, and on blocks of two, against their Go functions.
func TestHoistedChecksInterpreted(t *testing.T) {
	compiled := loadKernels(t)
	dev := openCPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	must(t, err)
	for _, c := range hoistCases {
		t.Run(c.name, func(t *testing.T) {
			k := compiled[c.name]
			// RowWindows' two loops run as one collapsed index space, whose
			// checks stay in the loop: opt.HoistChecks takes out checks of
			// indices affine in one loop's counter.
			if !hasUncheckedLoop(k) && c.name != "RowWindows" {
				t.Errorf("%s: every loop still checks its indices", c.name)
			}
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 3))
			faults := 0
			for _, n := range []int{0, 1, 5, 33} {
				for range hoistDraws {
					args := drawArgs(c, r, n)
					want := stubOutcome(t, ks, dev, c, args)
					if want.fault != "" {
						faults++
					}
					for _, grid := range []struct{ threads, block int }{{1, 0}, {3, 0}, {5, 2}} {
						got := cloneArgs(args)
						var o outcome
						if err := interpretGrid(k, got, grid.threads, grid.block); err != nil {
							o = faultOrFail(t, err)
						} else {
							o.args = got
						}
						sameOutcome(t, c.name, want, o, grid.threads == 1)
					}
				}
			}
			if faults == 0 || faults == 4*hoistDraws {
				t.Errorf("%s: %d of %d launches fault: the draws should test both", c.name, faults, 4*hoistDraws)
			}
		})
	}
}

// TestHoistedChecksGPU runs the kernels on the GPU against their Go
// functions: the same results, or a fault of the same kind where Go
// faults (several threads may fail at once, and any one reports).
func TestHoistedChecksGPU(t *testing.T) {
	gpu := openGPU(t)
	defer gpu.Close()
	cpu := openCPU(t)
	defer cpu.Close()
	gks, err := kernels.Load(gpu)
	must(t, err)
	cks, err := kernels.Load(cpu)
	must(t, err)
	for _, c := range hoistCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 4))
			for _, n := range []int{0, 1, 5, 33, 4099} {
				for range hoistDraws {
					args := drawArgs(c, r, n)
					want := stubOutcome(t, cks, cpu, c, args)
					sameOutcome(t, c.name, want, stubOutcome(t, gks, gpu, c, args), false)
					sameOutcome(t, c.name+" on 3 blocks of 32", want, stubOutcome(t, gks, gpu, c, args, rt.GridSize(3), rt.BlockSize(32)), false)
				}
			}
		})
	}
}

// hasUncheckedLoop reports whether a task of k has a loop without index
// checks: the copy its checks left.
func hasUncheckedLoop(k *ir.Kernel) bool {
	for _, task := range k.Tasks {
		for _, lp := range task.Loops() {
			checks := false
			for _, b := range lp.Blocks() {
				for _, in := range task.Blocks[b].Instrs {
					checks = checks || in.Op.Info().Checks
				}
			}
			if !checks {
				return true
			}
		}
	}
	return false
}
