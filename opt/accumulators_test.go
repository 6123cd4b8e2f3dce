package opt

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/qdgo/qd/ir"
)

// dot is the Go function of kernel Dot in testdata/accumulators: the
// conversion keeps Go from fusing the multiply and the add.
func dot(c, a, b []float32, n, i int) {
	n, i = min(n, 12), i&7
	for k := 0; k < n; k++ {
		c[i] += float32(a[k] * b[k])
	}
}

// tested is the Go function of kernel Tested, whose first loop tests
// before its body and may run no iteration.
func tested(c, a, _ []float32, n, i int) {
	n, i = min(n, 12), i&7
	for k := 0; k < n; k++ {
		c[i] += a[k]
	}
	for k := 0; k < n; k++ {
		c[i] += a[k]
	}
}

// TestAccumulatorsOverlap runs kernels Dot and Tested of
// testdata/accumulators after
// the accumulators pass, and after the whole pipeline, with c placed over
// a (c[j] is a[j+off]), over b, and apart from both, and compares the
// memory with what the Go function leaves, bit for bit. Where c overlaps,
// iteration k reads what earlier ones stored, so only the loop as Go
// wrote it gives Go's result.
func TestAccumulatorsOverlap(t *testing.T) {
	cases := []struct {
		kernel int // in the file
		goFunc func(c, a, b []float32, n, i int)
	}{{0, dot}, {3, tested}}
	for _, p := range []Pipeline{{mustLookup(t, "accumulators")}, Default} {
		for _, cs := range cases {
			ks := parseFile(t, filepath.Join("testdata", "accumulators", "product.ir"))
			k := ks[cs.kernel]
			if err := p.Run(k); err != nil {
				t.Fatal(err)
			}
			runOverlapping(t, k, cs.goFunc)
		}
	}
}

// runOverlapping runs k, with parameters c, a and perhaps b of []f32
// and then n and i, on slices that overlap as Go's do, and compares the
// memory with what goFunc leaves.
func runOverlapping(t *testing.T, k *ir.Kernel, goFunc func(c, a, b []float32, n, i int)) {
	r := rand.New(rand.NewPCG(1, 2))
	for draw := range 200 {
		n, i, off := r.IntN(14), r.IntN(8), r.IntN(8)
		overlap := draw % 3 // 0: c over a, 1: c over b, 2: apart
		a := randomFloats(r, 24)
		b := randomFloats(r, 24)
		// Go's run, on slices sharing memory as the kernel's do.
		ga, gb := append([]float32(nil), a...), append([]float32(nil), b...)
		gc := make([]float32, 16)
		switch overlap {
		case 0:
			gc = ga[off : off+16]
		case 1:
			gc = gb[off : off+16]
		}
		goFunc(gc, ga, gb, n, i)

		heap := &ir.Heap{}
		base := func(v []float32) uint64 {
			at := heap.Alloc(4 * len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(heap.Bytes(at)[4*j:], math.Float32bits(x))
			}
			return at
		}
		baseA, baseB := base(a), base(b)
		baseC := base(make([]float32, 16))
		switch overlap {
		case 0:
			baseC = baseA + uint64(4*off)
		case 1:
			baseC = baseB + uint64(4*off)
		}
		vals := &ir.Values{Scalar: []uint64{0, 0, 0, uint64(n), uint64(i)},
			Base: []uint64{baseC, baseA, baseB, 0, 0}, Len: []int64{16, 24, 24, 0, 0}}
		if len(k.Params) == 4 { // no b
			vals = &ir.Values{Scalar: []uint64{0, 0, uint64(n), uint64(i)},
				Base: []uint64{baseC, baseA, 0, 0}, Len: []int64{16, 24, 0, 0}}
		}
		ip := &ir.Interp{Mem: heap, Threads: 1, StepLimit: 1 << 16}
		if err := ip.Run(k, vals); err != nil {
			t.Fatalf("kernel %s, draw %d: %v", k.Name, draw, err)
		}
		got := map[string][]byte{"a": heap.Bytes(baseA), "b": heap.Bytes(baseB)}
		want := map[string][]float32{"a": ga, "b": gb}
		if overlap == 2 {
			got["c"], want["c"] = heap.Bytes(baseC), gc
		}
		for name, w := range want {
			for j, x := range w {
				if g := binary.LittleEndian.Uint32(got[name][4*j:]); g != math.Float32bits(x) {
					t.Fatalf("kernel %s, draw %d (overlap %d, n=%d i=%d off=%d): %s[%d] = %#x, Go has %#x", k.Name, draw, overlap, n, i, off, name, j, g, math.Float32bits(x))
				}
			}
		}
	}
}

func mustLookup(t *testing.T, name string) Pass {
	p, ok := Default.Lookup(name)
	if !ok {
		t.Fatalf("no pass %s", name)
	}
	return p
}

func randomFloats(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for j := range v {
		v[j] = float32(r.NormFloat64())
	}
	return v
}
