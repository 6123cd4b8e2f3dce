package generated_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// Fused has the fma option: on a GPU, and in the CPU backend's race mode
// (which interprets the kernel's IR), its float64 results are those of
// FusedReference, which calls math.FMA where the kernel fuses; its
// rounded products are Go's bit for bit; its float32 results are within
// one unit in the last place of FusedReference's, which rounds twice
// (through float64) where the GPU rounds once. On the CPU backend the Go
// function runs: Go's results.

func TestFusedGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	testFused(t, dev, true)
}

func TestFusedCPU(t *testing.T) {
	dev := openCPU(t)
	defer dev.Close()
	testFused(t, dev, false)
}

// TestFusedInterpreterCPU runs the fused IR in the CPU backend's race mode.
func TestFusedInterpreterCPU(t *testing.T) {
	rt.RunIterationsConcurrently(true)
	defer rt.RunIterationsConcurrently(false)
	dev := openCPU(t)
	defer dev.Close()
	testFused(t, dev, true)
}

// fusedArgs are Fused's arguments: products of normal numbers close to
// the addend, so that rounding once or twice differs in many elements.
type fusedArgs struct {
	out, rounded, x, y []float64
	out32, x32, y32    []float32
}

func newFusedArgs(n int) fusedArgs {
	r := rand.New(rand.NewPCG(7, 11))
	a := fusedArgs{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n),
		make([]float32, n), make([]float32, n), make([]float32, n)}
	for i := range n {
		a.x[i], a.y[i] = r.NormFloat64(), r.NormFloat64()
		a.out[i] = -a.x[i]*a.y[i] + r.NormFloat64()*1e-3
		a.rounded[i] = a.out[i]
		a.x32[i], a.y32[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		a.out32[i] = a.x32[i]*a.y32[i] + float32(r.NormFloat64()*1e-3)
	}
	return a
}

func (a fusedArgs) clone() fusedArgs {
	return fusedArgs{slices.Clone(a.out), slices.Clone(a.rounded), a.x, a.y, slices.Clone(a.out32), a.x32, a.y32}
}

func testFused(t *testing.T, dev *rt.Device, fused bool) {
	ks, err := kernels.Load(dev)
	must(t, err)
	const n = 4099
	in := newFusedArgs(n)
	goRes, ref := in.clone(), in.clone()
	kernels.Fused(goRes.out, goRes.rounded, goRes.x, goRes.y, goRes.out32, goRes.x32, goRes.y32)
	kernels.FusedReference(ref.out, ref.rounded, ref.x, ref.y, ref.out32, ref.x32, ref.y32)

	bufs64 := make([]*rt.Buffer[float64], 4)
	for i, s := range [][]float64{in.out, in.rounded, in.x, in.y} {
		bufs64[i], err = rt.FromSlice(dev, s)
		must(t, err)
		defer bufs64[i].Free()
	}
	bufs32 := make([]*rt.Buffer[float32], 3)
	for i, s := range [][]float32{in.out32, in.x32, in.y32} {
		bufs32[i], err = rt.FromSlice(dev, s)
		must(t, err)
		defer bufs32[i].Free()
	}
	must(t, ks.Fused(bufs64[0], bufs64[1], bufs64[2], bufs64[3], bufs32[0], bufs32[1], bufs32[2]))
	out, err := bufs64[0].Read()
	must(t, err)
	rounded, err := bufs64[1].Read()
	must(t, err)
	out32, err := bufs32[0].Read()
	must(t, err)

	want := goRes
	if fused {
		want = ref
	}
	differ := 0
	for i := range n {
		if math.Float64bits(out[i]) != math.Float64bits(want.out[i]) {
			t.Fatalf("out[%d] = %v, want %v (Go without fusing: %v)", i, out[i], want.out[i], goRes.out[i])
		}
		if out[i] != goRes.out[i] {
			differ++
		}
		if math.Float64bits(rounded[i]) != math.Float64bits(goRes.rounded[i]) {
			t.Fatalf("rounded[%d] = %v, want Go's %v: an explicit conversion must round", i, rounded[i], goRes.rounded[i])
		}
		if d := ulps32(out32[i], want.out32[i]); d > 1 || !fused && d != 0 {
			t.Fatalf("out32[%d] = %v, want %v within %d ulp", i, out32[i], want.out32[i], map[bool]int{true: 1, false: 0}[fused])
		}
	}
	if fused && differ == 0 {
		t.Errorf("no element of out differs from Go's unfused result: nothing was fused")
	}
	t.Logf("%d of %d fused results differ from Go's on amd64", differ, n)
}

// ulps32 is the distance of two float32s in units in the last place.
func ulps32(a, b float32) int64 {
	ia, ib := int64(int32(math.Float32bits(a))), int64(int32(math.Float32bits(b)))
	if ia < 0 {
		ia = math.MinInt32 - ia
	}
	if ib < 0 {
		ib = math.MinInt32 - ib
	}
	if ia > ib {
		return ia - ib
	}
	return ib - ia
}
