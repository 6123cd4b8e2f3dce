package iterations

import (
	"encoding/binary"
	"strings"
	"testing"
	"unsafe"

	"github.com/qdgo/qd/ir"
)

// histogram counts the values of data into bins with an atomic add, and
// then writes element len(data) of out, one past its end.
const histogram = `kernel Histogram(data []u8, bins []u32, out []i32)

task Histogram_0 parallel count=(len data)
b0: # entry
	r0 = base data
	r1 = len data
	r2 = base bins
	r3 = threadindex
	r4 = threadcount
	jump b1
b1: # head
	r5 = lt.i64 r3, r1
	branch r5, b2, b3
b2: # body
	r6 = elemaddr r0, r3, 1
	r7 = load.u8 r6
	r8 = convert.i64.u8 r7
	r9 = elemaddr r2, r8, 4
	r10 = atomadd.u32 r9, 1
	r3 = add.i64 r3, r4
	jump b1
b3: # exit
	return

task Histogram_1 serial
b0: # entry
	r0 = base out
	r1 = len data
	r2 = elemaddr r0, r1, 4
	store.i32 r2, 7
	return
`

func TestConcurrentAtomicsAndBounds(t *testing.T) {
	ks, err := ir.Parse(histogram)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]uint8, 5000)
	want := make([]uint32, 256)
	for i := range data {
		data[i] = uint8(i * 7 % 13)
		want[data[i]]++
	}
	bins := make([]uint32, 256)
	out := make([]int32, len(data))
	k := ks[0]
	_, size := k.ArgSlots()
	args := make([]byte, size)
	for i, n := range []int{len(data), len(bins), len(out)} {
		binary.LittleEndian.PutUint64(args[16*i+8:], uint64(n))
	}
	bufs := []Buffer{{unsafe.Pointer(&data[0]), len(data)}, {unsafe.Pointer(&bins[0]), len(bins)}, {unsafe.Pointer(&out[0]), len(out)}}
	err = Run(k, []int64{int64(len(data)), 1}, args, bufs, false)
	for b := range bins {
		if bins[b] != want[b] {
			t.Errorf("bin %d = %d, want %d", b, bins[b], want[b])
		}
	}
	if err == nil || !strings.Contains(err.Error(), "access of element 5000 of out, which has 5000") {
		t.Errorf("a store past the end: %v", err)
	}
}

// ordered has a group of two blocks, the second of which reads what the
// first writes: run serially, as without the blocks mode, it sees it.
const ordered = `kernel Ordered(a []i32, b []i32)
groups [2]

task Ordered_0 serial block=1 group=1
b0: # entry
	r0 = base a
	store.i32 r0, 7
	return

task Ordered_1 serial block=2 group=1
b0: # entry
	r0 = base a
	r1 = load.i32 r0
	r2 = base b
	store.i32 r2, r1
	return
`

func TestBlocksInOrderWithoutTheirModeConcurrent(t *testing.T) {
	ks, err := ir.Parse(ordered)
	if err != nil {
		t.Fatal(err)
	}
	args := make([]byte, 32)
	args[8], args[24] = 1, 1
	for range 20 {
		a, b := []int32{0}, []int32{0}
		if err := Run(ks[0], []int64{1, 1}, args, []Buffer{{unsafe.Pointer(&a[0]), 1}, {unsafe.Pointer(&b[0]), 1}}, false); err != nil {
			t.Fatal(err)
		}
		if b[0] != 7 {
			t.Fatalf("the second block read %d", b[0])
		}
	}
}
