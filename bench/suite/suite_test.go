package suite

import (
	"math/rand/v2"
	"os/exec"
	"reflect"
	"testing"
	"unsafe"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower/lowertest"
	"github.com/qdgo/qd/rt"
)

// suiteCase is one benchmark kernel with small arguments, in the order of
// its Go function's parameters.
type suiteCase struct {
	name string
	fn   any
	args func(r *rand.Rand) []any
}

func f32s(r *rand.Rand, n int) []float32 {
	return Fill(n, func(uint64) float32 { return float32(r.NormFloat64()) })
}

const w, h, d = 37, 23, 5

var cases = []suiteCase{
	{"Stencil2D", Stencil2D, func(r *rand.Rand) []any { return []any{make([]float32, w*h), f32s(r, w*h), w, h} }},
	{"Stencil3D", Stencil3D, func(r *rand.Rand) []any { return []any{make([]float32, w*h*d), f32s(r, w*h*d), w, h, d} }},
	{"Matmul", Matmul, func(r *rand.Rand) []any { return []any{make([]float32, 19*19), f32s(r, 19*19), f32s(r, 19*19), 19} }},
	{"Blur", Blur, func(r *rand.Rand) []any {
		return []any{make([]uint8, w*h), Fill(w*h, func(uint64) uint8 { return uint8(r.Uint32()) }), w, h}
	}},
	{"DigitSum", DigitSum, func(r *rand.Rand) []any {
		in := Fill(999, func(uint64) int { return int(r.Uint64() >> r.IntN(64)) })
		return []any{make([]int, len(in)), in, []int{10, 7, 1 << 33, -3}[r.IntN(4)]}
	}},
	{"Options", Options, func(r *rand.Rand) []any {
		return []any{make([]float32, 999), Fill(999, func(uint64) float32 { return 50 + 100*float32(r.Float64()) }), float32(100)}
	}},
	{"NBody", NBody, func(r *rand.Rand) []any {
		return []any{make([]float32, 300), make([]float32, 300), make([]float32, 300), f32s(r, 300), f32s(r, 300), f32s(r, 300)}
	}},
	{"Mandelbrot64", Mandelbrot64, func(r *rand.Rand) []any { return []any{make([]int32, w*h), w, h, int32(64)} }},
	{"Mandelbrot32", Mandelbrot32, func(r *rand.Rand) []any { return []any{make([]int32, w*h), w, h, int32(64)} }},
	{"Xorshift", Xorshift, func(r *rand.Rand) []any {
		return []any{make([]uint32, 999), Fill(999, func(uint64) uint32 { return r.Uint32() }), 37}
	}},
	{"MatVec", MatVec, func(r *rand.Rand) []any { return []any{make([]float32, 19), f32s(r, 19*w), f32s(r, w), w} }},
	{"Daxpy", Daxpy, func(r *rand.Rand) []any {
		return []any{-1.5, Fill(999, func(uint64) float64 { return r.NormFloat64() }), Fill(999, func(uint64) float64 { return r.NormFloat64() })}
	}},
	{"Hash", Hash, func(r *rand.Rand) []any {
		return []any{make([]uint64, 999), Fill(999, func(uint64) uint64 { return r.Uint64() }), 5}
	}},
	{"Transpose", Transpose, func(r *rand.Rand) []any {
		return []any{make([]float64, w*h), Fill(w*h, func(uint64) float64 { return r.NormFloat64() }), w, h}
	}},
	{"Conv2D", Conv2D, func(r *rand.Rand) []any { return []any{make([]float32, w*h), f32s(r, w*h), w, h} }},
	{"Conv3D", Conv3D, func(r *rand.Rand) []any { return []any{make([]float32, w*h*d), f32s(r, w*h*d), w, h, d} }},
	{"Stencil5", Stencil5, func(r *rand.Rand) []any { return []any{make([]float32, w*h), f32s(r, w*h), w, h} }},
	{"Stencil9", Stencil9, func(r *rand.Rand) []any { return []any{make([]float32, w*h), f32s(r, w*h), w, h} }},
	{"JacobiStep", JacobiStep, func(r *rand.Rand) []any { return []any{make([]float32, w*w), f32s(r, w*w), w} }},
	{"JacobiCopy", JacobiCopy, func(r *rand.Rand) []any { return []any{f32s(r, w*w), f32s(r, w*w), w} }},
	{"FDTDEy", FDTDEy, func(r *rand.Rand) []any { return []any{f32s(r, w*h), f32s(r, w*h), h, w, float32(0.25)} }},
	{"FDTDEx", FDTDEx, func(r *rand.Rand) []any { return []any{f32s(r, w*h), f32s(r, w*h), h, w} }},
	{"FDTDHz", FDTDHz, func(r *rand.Rand) []any { return []any{f32s(r, w*h), f32s(r, w*h), f32s(r, w*h), h, w} }},
	{"MatmulAcc", MatmulAcc, func(r *rand.Rand) []any { return []any{f32s(r, 19*19), f32s(r, 19*19), f32s(r, 19*19), 19} }},
	{"Gemm", Gemm, func(r *rand.Rand) []any {
		return []any{f32s(r, 19*19), f32s(r, 19*19), f32s(r, 19*19), 19, float32(1.5), float32(0.5)}
	}},
	{"TriMul", TriMul, func(r *rand.Rand) []any { return []any{make([]float32, 19*19), f32s(r, 19*19), f32s(r, 19*19), 19} }},
	{"SyrkLower", SyrkLower, func(r *rand.Rand) []any {
		return []any{f32s(r, 19*19), f32s(r, 19*23), 19, 23, float32(1.5), float32(0.5)}
	}},
	{"SymvLower", SymvLower, func(r *rand.Rand) []any { return []any{make([]float32, w), f32s(r, w*w), f32s(r, w), w} }},
	{"ColNorm", ColNorm, func(r *rand.Rand) []any { return []any{make([]float32, w*h), f32s(r, w*h), 5, w, h} }},
	{"ColNorms", ColNorms, func(r *rand.Rand) []any { return []any{make([]float32, h), f32s(r, w*h), w} }},
}

// TestSuiteInterpreted runs the optimized IR of every benchmark kernel on
// the IR interpreter and compares with the Go function: the passes are
// checked on realistic kernels before any GPU is involved.
func TestSuiteInterpreted(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not available (GPU machines run prebuilt test binaries)")
	}
	kernels := map[string]*ir.Kernel{}
	for _, f := range lowertest.Load(t, ".") {
		for _, k := range f.Kernels {
			kernels[k.Name] = k
		}
	}
	// Three blocks of 32 threads walk the nests' stripes as a GPU's
	// blocks do, several rows each.
	for _, c := range cases {
		for _, grid := range []struct{ threads, block int }{{1, 0}, {5, 0}, {96, 32}} {
			compare(t, c, func(args []any) error { return interpret(kernels[c.name], args, grid.threads, grid.block) })
		}
	}
}

// TestSuiteGPU runs every benchmark kernel on the GPU and compares with
// the Go function, bit for bit; it skips without a GPU.
func TestSuiteGPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CUDA))
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer dev.Close()
	ks, err := Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		compare(t, c, func(args []any) error { return launch(dev, ks, c.name, args) })
	}
}

// compare runs c as Go and through run on the same arguments, and compares
// every slice afterwards.
func compare(t *testing.T, c suiteCase, run func([]any) error) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(len(c.name)), 3))
	for range 3 {
		args := c.args(r)
		want, got := clone(args), clone(args)
		in := make([]reflect.Value, len(want))
		for i, a := range want {
			in[i] = reflect.ValueOf(a)
		}
		reflect.ValueOf(c.fn).Call(in)
		if err := run(got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range want {
			if w, g := bytesOf(want[i]), bytesOf(got[i]); w != nil && string(w) != string(g) {
				t.Fatalf("%s: argument %d differs from Go's result", c.name, i)
			}
		}
	}
}

func clone(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if v := reflect.ValueOf(a); v.Kind() == reflect.Slice {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			a = c.Interface()
		}
		out[i] = a
	}
	return out
}

// bytesOf is the memory of a slice argument; nil for a scalar.
func bytesOf(a any) []byte {
	v := reflect.ValueOf(a)
	if v.Kind() != reflect.Slice || v.Len() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(v.UnsafePointer()), v.Len()*int(v.Type().Elem().Size()))
}

// interpret runs k on args in the IR interpreter, writing results back.
func interpret(k *ir.Kernel, args []any, threads, block int) error {
	heap := &ir.Heap{}
	vals := &ir.Values{Scalar: make([]uint64, len(args)), Base: make([]uint64, len(args)), Len: make([]int64, len(args))}
	for i, a := range args {
		if b := bytesOf(a); b != nil {
			vals.Base[i] = heap.Alloc(len(b))
			copy(heap.Bytes(vals.Base[i]), b)
			vals.Len[i] = int64(reflect.ValueOf(a).Len())
			continue
		}
		vals.Scalar[i], _ = ir.Bits(a)
	}
	if err := (&ir.Interp{Mem: heap, Threads: threads, BlockSize: block}).Run(k, vals); err != nil {
		return err
	}
	for i, a := range args {
		if b := bytesOf(a); b != nil {
			copy(b, heap.Bytes(vals.Base[i]))
		}
	}
	return nil
}

// launch calls the kernel's stub with device buffers for the slices and
// reads them back into args.
func launch(dev *rt.Device, ks *Kernels, name string, args []any) error {
	in := make([]reflect.Value, len(args))
	var reads []func() error
	for i, a := range args {
		switch s := a.(type) {
		case []float32:
			in[i], reads = buffer(dev, s, reads)
		case []float64:
			in[i], reads = buffer(dev, s, reads)
		case []uint8:
			in[i], reads = buffer(dev, s, reads)
		case []int32:
			in[i], reads = buffer(dev, s, reads)
		case []uint32:
			in[i], reads = buffer(dev, s, reads)
		case []int:
			in[i], reads = buffer(dev, s, reads)
		case []uint64:
			in[i], reads = buffer(dev, s, reads)
		default:
			in[i] = reflect.ValueOf(a)
		}
	}
	out := reflect.ValueOf(ks).MethodByName(name).Call(in)
	if err, _ := out[0].Interface().(error); err != nil {
		return err
	}
	for _, read := range reads {
		if err := read(); err != nil {
			return err
		}
	}
	return nil
}

func buffer[T rt.Number](dev *rt.Device, s []T, reads []func() error) (reflect.Value, []func() error) {
	b, err := rt.FromSlice(dev, s)
	if err != nil {
		panic(err)
	}
	return reflect.ValueOf(b), append(reads, func() error {
		defer b.Free()
		got, err := b.Read()
		copy(s, got)
		return err
	})
}
