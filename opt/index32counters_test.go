package opt

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
)

// nestIR is a collapsed 2-level nest as lower/nest.go builds it:
// out[i*w+j] = i*w+j, thread t starting at (t/w, t%w) and stepping by
// (T/w, T%w) with a carry from j into i.
const nestIR = `kernel Nest(out []f32, h i64, w i64)

task Nest_0 parallel count=(mul.i64 (param h) (param w))
b0: # entry
	r0 = param.i64 h
	r1 = param.i64 w
	r2 = base out
	r4 = threadindex
	r5 = threadcount
	r27 = gt.i64 r0, 0
	branch r27, b1, b8
b1: # setup
	r28 = gt.i64 r1, 0
	branch r28, b2, b8
b2: # setup
	r6 = convert.u64.i64 r0
	r7 = convert.u64.i64 r1
	r8 = convert.u64.i64 r4
	r9 = convert.u64.i64 r5
	r10 = div.u64 r8, r7
	r11 = mul.u64 r10, r7
	r12 = sub.u64 r8, r11
	r13 = div.u64 r9, r7
	r14 = mul.u64 r13, r7
	r15 = sub.u64 r9, r14
	jump b3
b3: # head
	r16 = move.u64 r10
	r17 = move.u64 r12
	r18 = lt.u64 r17, r7
	branch r18, b4, b8
b4: # head
	r19 = lt.u64 r16, r6
	branch r19, b5, b8
b5: # body
	r20 = convert.i64.u64 r16
	r21 = convert.i64.u64 r17
	r22 = mul.i64 r20, r1
	r23 = add.i64 r22, r21
	r24 = elemaddr r2, r23, 4
	r25 = convert.f32.i64 r23
	store.f32 r24, r25
	jump b6
b6: # latch
	r12 = add.u64 r12, r15
	r26 = ge.u64 r12, r7
	branch r26, b7, b9
b7: # carry
	r12 = sub.u64 r12, r7
	r10 = add.u64 r10, 1
	jump b9
b8: # exit
	return
b9: # stepped
	r10 = add.u64 r10, r13
	jump b3
`

// TestNarrowIndicesNestCounters checks that the 32-bit copy of a
// collapsed nest steps its carry counters in 32 bits, and that it
// computes what the nest did for every thread count, including counts
// that are no multiple of a row and counts past the whole nest.
func TestNarrowIndicesNestCounters(t *testing.T) {
	before, after := narrowedPair(t, nestIR)
	text := after.String()
	for _, want := range []string{"add.u32", "sub.u32", "ge.u32", "lt.u32"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in the 32-bit copy:\n%s", want, text)
		}
	}
	for _, b := range after.Tasks[0].Blocks {
		if !strings.HasSuffix(b.Comment, "(int32)") {
			continue
		}
		for _, in := range b.Instrs {
			if in.Type == ir.Uint64 && in.Op != ir.OpConvert {
				t.Errorf("b%d (%s) keeps 64-bit counter arithmetic: %v", b.Index, b.Comment, in)
			}
		}
	}
	for _, size := range [][2]uint64{{1, 1}, {3, 5}, {4, 2}, {2, 7}} {
		h, w := size[0], size[1]
		args := testArgs{scalars: []uint64{0, h, w}, slices: [][]byte{make([]byte, 4*h*w), nil, nil}}
		for threads := 1; threads <= 2*int(h*w)+1; threads++ {
			want, err := runKernel(before, args, threads)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runKernel(after, args, threads)
			if err != nil || !bytes.Equal(got[0], want[0]) {
				t.Fatalf("%d×%d, %d threads: got %v, %v; want %v", h, w, threads, got, err, want)
			}
			for k := range h * w {
				if v := binary.LittleEndian.Uint32(want[0][4*k:]); v == 0 && k > 0 {
					t.Fatalf("%d×%d, %d threads: element %d not written", h, w, threads, k)
				}
			}
		}
	}
}
