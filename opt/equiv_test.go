package opt

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
)

// TestPassesKeepResults runs the input of every pass golden through the
// IR interpreter before and after its pass, on random arguments, and
// requires the same memory afterwards, bit for bit, and the same lines
// printed: each pass's
// transformations are checked on many inputs, not only printed.
func TestPassesKeepResults(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*", "*.ir"))
	for _, input := range inputs {
		if strings.HasSuffix(input, ".out.ir") {
			continue
		}
		name := filepath.Base(filepath.Dir(input))
		pass, ok := Default.Lookup(name)
		if !ok {
			continue
		}
		t.Run(name+"/"+filepath.Base(input), func(t *testing.T) {
			checkEquivalent(t, input, Pipeline{pass})
		})
	}
}

// TestPipelineKeepsResults does the same for the whole default pipeline.
func TestPipelineKeepsResults(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*", "*.ir"))
	for _, input := range inputs {
		if !strings.HasSuffix(input, ".out.ir") {
			t.Run(input, func(t *testing.T) { checkEquivalent(t, input, Default) })
		}
	}
}

func parseFile(t *testing.T, path string) []*ir.Kernel {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ir.Parse(string(text))
	if err != nil {
		t.Fatalf("%s:%v", path, err)
	}
	return ks
}

// checkEquivalent compares the kernels of path before and after p.
func checkEquivalent(t *testing.T, path string, p Pipeline) {
	before, after := parseFile(t, path), parseFile(t, path)
	for _, k := range after {
		if err := p.Run(k); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(uint64(len(path)), 7))
	compared := 0
	for k := range before {
		if before[k].FMA {
			continue // fusing changes the last bits, as the option allows
		}
		for draw := 0; draw < 300; draw++ {
			args := randomValues(before[k], r)
			want, err := runKernel(before[k], args, 1+draw%3)
			var fault *ir.Fault
			if errors.As(err, &fault) {
				// A check fails: it must fail after the pass too.
				if _, err := runKernel(after[k], args, 1+draw%3); !errors.As(err, &fault) {
					t.Fatalf("kernel %s, draw %d: a check fails before the pass, not after it (%v)", before[k].Name, draw, err)
				}
				compared++
				continue
			}
			if err != nil {
				continue // an access out of range, a division by zero, too long a loop
			}
			got, err := runKernel(after[k], args, 1+draw%3)
			if err != nil {
				t.Fatalf("kernel %s: the input runs, the output fails: %v", before[k].Name, err)
			}
			for i := range want {
				if bytes.Equal(want[i], got[i]) {
					continue
				}
				if i == len(before[k].Params) {
					t.Fatalf("kernel %s, draw %d: what it prints differs after the pass:\nwant %q\ngot  %q",
						before[k].Name, draw, want[i], got[i])
				}
				t.Fatalf("kernel %s, draw %d: parameter %s differs after the pass:\nwant %v\ngot  %v",
					before[k].Name, draw, before[k].Params[i].Name, want[i], got[i])
			}
			compared++
		}
	}
	if compared < 20 {
		t.Errorf("only %d of the random draws ran: the test proves little", compared)
	}
}

// testArgs are the arguments of one run: scalar bits and slice contents.
type testArgs struct {
	scalars []uint64
	slices  [][]byte
}

// randomValues draws values that exercise the passes: small integers (loop
// bounds, indices), large ones (the 64-bit paths), special floats.
func randomValues(k *ir.Kernel, r *rand.Rand) testArgs {
	a := testArgs{scalars: make([]uint64, len(k.Params)), slices: make([][]byte, len(k.Params))}
	for i, p := range k.Params {
		if !p.Slice {
			a.scalars[i] = p.Type.Normalize(randomBits(p.Type, r))
			continue
		}
		n := 1 + r.IntN(64)
		b := make([]byte, 0, n*p.Type.Size())
		for range n {
			v := p.Type.Normalize(randomBits(p.Type, r))
			for j := range p.Type.Size() {
				b = append(b, byte(v>>(8*j)))
			}
		}
		a.slices[i] = b
	}
	return a
}

var testFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 3, math.Inf(1), math.Inf(-1), math.NaN(),
	1e-310, math.SmallestNonzeroFloat64, 1e-40, math.MaxFloat64, 1e38, 3.4e38}

func randomBits(t ir.Type, r *rand.Rand) uint64 {
	switch {
	case t == ir.Bool:
		return uint64(r.IntN(2))
	case t.IsFloat():
		f := r.NormFloat64() * math.Pow(10, float64(r.IntN(10)-5))
		if r.IntN(3) == 0 {
			f = testFloats[r.IntN(len(testFloats))]
		}
		if t == ir.Float32 {
			return uint64(math.Float32bits(float32(f)))
		}
		return math.Float64bits(f)
	}
	switch r.IntN(4) {
	case 0:
		return r.Uint64()
	case 1:
		return r.Uint64N(1 << 34)
	}
	return uint64(r.IntN(28) - 4)
}

// runKernel interprets k on a copy of args and returns each slice's bytes.
func runKernel(k *ir.Kernel, args testArgs, threads int) ([][]byte, error) {
	heap := &ir.Heap{}
	vals := &ir.Values{Scalar: args.scalars, Base: make([]uint64, len(args.slices)), Len: make([]int64, len(args.slices))}
	for i, p := range k.Params {
		if p.Slice {
			vals.Base[i] = heap.Alloc(len(args.slices[i]))
			copy(heap.Bytes(vals.Base[i]), args.slices[i])
			vals.Len[i] = int64(len(args.slices[i]) / p.Type.Size())
		}
	}
	var printed strings.Builder
	ip := &ir.Interp{Mem: heap, Threads: threads, StepLimit: 1 << 16, Out: &printed}
	if err := ip.Run(k, vals); err != nil {
		return nil, err
	}
	out := make([][]byte, len(k.Params), len(k.Params)+1)
	for i, p := range k.Params {
		if p.Slice {
			out[i] = append([]byte(nil), heap.Bytes(vals.Base[i])...)
		}
	}
	// What the kernel prints, last, its lines sorted: threads print in no
	// defined order.
	lines := strings.SplitAfter(printed.String(), "\n")
	slices.Sort(lines)
	return append(out, []byte(strings.Join(lines, ""))), nil
}
