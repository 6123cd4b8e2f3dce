package opt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
)

const stridedIR = `kernel Strided(out []f32, a []f32, n i64, s i64)
site 0 index strided.go:5:9
site 1 index strided.go:5:3

task Strided_0 parallel count=(param n)
b0: # entry: out[i] = a[i*s+1]
	r0 = param.i64 n
	r1 = param.i64 s
	r2 = base a
	r3 = base out
	r4 = threadindex
	r5 = threadcount
	r6 = len a
	r7 = len out
	jump b1
b1: # loop
	r8 = lt.i64 r4, r0
	branch r8, b2, b3
b2: # body
	r9 = mul.i64 r4, r1
	r10 = add.i64 r9, 1
	checkindex r10, r6, site 0
	r11 = elemaddr r2, r10, 4
	r12 = load.f32 r11
	checkindex r4, r7, site 1
	r13 = elemaddr r3, r4, 4
	store.f32 r13, r12
	r4 = add.i64 r4, r5
	jump b1
b3: # exit
	return
`

// TestNarrowIndicesBothVersions runs a strided kernel before and after
// NarrowIndices: with small sizes, where the 32-bit copy runs, and with a
// stride of 2^32, where it must not, since a[i*s+1] would read a[1] in
// 32 bits instead of failing its check at 2^32+1. Forcing the copy shows
// that the test before the loop is what keeps the second case right.
func TestNarrowIndicesBothVersions(t *testing.T) {
	parse := func() *ir.Kernel {
		ks, err := ir.Parse(stridedIR)
		if err != nil {
			t.Fatal(err)
		}
		return ks[0]
	}
	before, after, forced := parse(), parse(), parse()
	NarrowIndices(after.Tasks[0])
	NarrowIndices(forced.Tasks[0])
	if err := after.Check(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after.String(), "mul.i32") {
		t.Fatalf("no 32-bit multiply after the pass:\n%s", after)
	}
	// The test sits on the loop's entry edge, from b0, and enters the
	// 32-bit copy when it holds.
	blocks := forced.Tasks[0].Blocks
	guard := blocks[blocks[0].Term.Succs[0]]
	if guard.Term.Kind != ir.Branch {
		t.Fatalf("b0 does not lead to the test:\n%s", forced)
	}
	guard.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{guard.Term.Succs[0]}}
	floats := func(n int) []byte {
		var out []byte
		for i := range n {
			out = binary.LittleEndian.AppendUint32(out, uint32(1000+i))
		}
		return out
	}
	small := testArgs{scalars: []uint64{0, 0, 4, 3}, slices: [][]byte{floats(4), floats(16), nil, nil}}
	huge := testArgs{scalars: []uint64{0, 0, 2, 1 << 32}, slices: [][]byte{floats(2), floats(16), nil, nil}}
	for threads := 1; threads <= 3; threads++ {
		want, err := runKernel(before, small, threads)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []*ir.Kernel{after, forced} {
			got, err := runKernel(k, small, threads)
			if err != nil || !bytes.Equal(got[0], want[0]) {
				t.Fatalf("small sizes, %d threads: got %v, %v; want %v", threads, got, err, want)
			}
		}
		_, wantErr := runKernel(before, huge, threads)
		_, gotErr := runKernel(after, huge, threads)
		var fault *ir.Fault
		if !errors.As(wantErr, &fault) || gotErr == nil || gotErr.Error() != wantErr.Error() {
			t.Fatalf("stride 2^32, %d threads: got %v, want %v", threads, gotErr, wantErr)
		}
		if _, err := runKernel(forced, huge, threads); err != nil && err.Error() == wantErr.Error() {
			t.Fatalf("stride 2^32, %d threads: the forced 32-bit copy fails as Go does; the test proves nothing", threads)
		}
	}
}

// TestNarrowIndicesWindowHandsOver runs a loop that HoistChecks split
// around its window (testdata/index32/window.ir) before and after
// NarrowIndices: with a row of 5, where the 32-bit copies run, and with
// one of 2^40, where the test fails and the window's iterations all run
// in the checked copy after it, the 64-bit window loops being gone.
func TestNarrowIndicesWindowHandsOver(t *testing.T) {
	text, err := os.ReadFile("testdata/index32/window.ir")
	if err != nil {
		t.Fatal(err)
	}
	before, after := narrowedPair(t, string(text))
	floats := func(n int) []byte {
		var out []byte
		for i := range n {
			out = binary.LittleEndian.AppendUint32(out, uint32(1000+i))
		}
		return out
	}
	for _, w := range []uint64{5, 1 << 40} {
		for threads := 1; threads <= 3; threads++ {
			args := func() testArgs {
				return testArgs{scalars: []uint64{0, 0, w}, slices: [][]byte{floats(37), floats(37), nil}}
			}
			want, err := runKernel(before, args(), threads)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runKernel(after, args(), threads)
			if err != nil || !bytes.Equal(got[0], want[0]) {
				t.Fatalf("w %d, %d threads: got %v, %v; want %v", w, threads, got, err, want)
			}
		}
	}
}

// narrowedPair parses the one-kernel IR text twice and runs NarrowIndices
// on the second copy's first task: the kernel before and after the pass,
// to be run side by side.
func narrowedPair(t *testing.T, text string) (before, after *ir.Kernel) {
	t.Helper()
	parse := func() *ir.Kernel {
		ks, err := ir.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		return ks[0]
	}
	before, after = parse(), parse()
	NarrowIndices(after.Tasks[0])
	if err := after.Check(); err != nil {
		t.Fatal(err)
	}
	return before, after
}
