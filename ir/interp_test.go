package ir_test

import (
	"errors"
	"testing"

	"github.com/qdgo/qd/ir"
)

// blockKernel has every thread of a block write its index in the block to
// shared memory, wait at a barrier, read back the mirror of its slot,
// shuffle it down one lane and store it at its grid index, which is
// checked.
const blockKernel = `kernel K(s []i64)
site 0 index k.go:3:4

task K_0 parallel
var sh shared 64 align 8
b0:
	r0 = blockthread
	r1 = addr sh
	r2 = elemaddr r1, r0, 8
	store.shared.i64 r2, r0
	barrier
	r3 = blocksize
	r4 = sub.i64 r3, 1
	r5 = sub.i64 r4, r0
	r6 = elemaddr r1, r5, 8
	r7 = load.shared.i64 r6
	r8 = shuffledown.i64 r7, 1
	r9 = threadindex
	r10 = base s
	r11 = len s
	checkindex r9, r11, site 0
	r12 = elemaddr r10, r9, 8
	store.i64 r12, r8
	return
`

// TestInterpBlocks runs two blocks of four threads in warps of two: the
// barrier waits for the whole block, the shuffle reads the next lane of a
// warp, and the last thread's index fails its check.
func TestInterpBlocks(t *testing.T) {
	ks, err := ir.Parse(blockKernel)
	if err != nil {
		t.Fatal(err)
	}
	if err := ks[0].Check(); err != nil {
		t.Fatal(err)
	}
	heap := &ir.Heap{}
	base := heap.Alloc(8 * 7)
	ip := &ir.Interp{Mem: heap, Threads: 8, BlockSize: 4, WarpSize: 2}
	err = ip.Run(ks[0], &ir.Values{Base: []uint64{base}, Len: []int64{7}})
	var f *ir.Fault
	if !errors.As(err, &f) || f.Task != "K_0" || f.X != 7 || f.Y != 7 {
		t.Fatalf("Run = %v, want the fault of index 7", err)
	}
	if want := "runtime error: index out of range [7] with length 7 (k.go:3:4)"; err.Error() != want {
		t.Errorf("fault %q, want %q", err, want)
	}
	for i, want := range []uint64{2, 2, 0, 0, 2, 2, 0} {
		if got, _ := heap.Load(base+uint64(8*i), ir.Int64); got != want {
			t.Errorf("s[%d] = %d, want %d", i, got, want)
		}
	}
}

// TestInterpMismatchedSync rejects a block whose threads wait at a barrier
// and a shuffle at once, which would hang a GPU.
func TestInterpMismatchedSync(t *testing.T) {
	ks, err := ir.Parse(`kernel K(s []i64)

task K_0 parallel
b0:
	r0 = blockthread
	r1 = eq.i64 r0, 0
	branch r1, b1, b2
b1:
	barrier
	return
b2:
	r2 = shuffledown.i64 r0, 1
	return
`)
	if err != nil {
		t.Fatal(err)
	}
	err = (&ir.Interp{Mem: &ir.Heap{}, Threads: 2}).Run(ks[0], &ir.Values{Base: []uint64{0}, Len: []int64{0}})
	if err == nil {
		t.Fatal("no error")
	}
}

// TestInterpShuffleUp runs a block of eight threads in warps of four:
// each reads the index of the lane two below in its warp, and the first
// two lanes of a warp, with none there, keep their own.
func TestInterpShuffleUp(t *testing.T) {
	ks, err := ir.Parse(`kernel K(s []i64)

task K_0 parallel
b0:
	r0 = blockthread
	r1 = shuffleup.i64 r0, 2
	r2 = base s
	r3 = elemaddr r2, r0, 8
	store.i64 r3, r1
	return
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := ks[0].Check(); err != nil {
		t.Fatal(err)
	}
	heap := &ir.Heap{}
	base := heap.Alloc(8 * 8)
	if err := (&ir.Interp{Mem: heap, Threads: 8, BlockSize: 8, WarpSize: 4}).Run(ks[0], &ir.Values{Base: []uint64{base}, Len: []int64{8}}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []uint64{0, 1, 0, 1, 4, 5, 4, 5} {
		if got, _ := heap.Load(base+uint64(8*i), ir.Int64); got != want {
			t.Errorf("s[%d] = %d, want %d", i, got, want)
		}
	}
}

// visitKernel runs b1 or b2 by its argument's sign, each thread once,
// through a barrier in b1.
const visitKernel = `kernel K(x i64)

task K_0 parallel
b0:
	r0 = param.i64 x
	r1 = lt.i64 r0, 0
	branch r1, b1, b2
b1:
	barrier
	jump b2
b2:
	return
`

// TestInterpVisit counts the blocks each thread begins: a block is begun
// once, though its thread waits at a barrier in it and goes on there.
func TestInterpVisit(t *testing.T) {
	ks, err := ir.Parse(visitKernel)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []int64{-1, 1} {
		counts := map[int]int{}
		ip := &ir.Interp{Mem: &ir.Heap{}, Threads: 4, Visit: func(_ *ir.Task, b *ir.Block) { counts[b.Index]++ }}
		if err := ip.Run(ks[0], &ir.Values{Scalar: []uint64{uint64(x)}}); err != nil {
			t.Fatal(err)
		}
		want := map[int]int{0: 4, 1: 4, 2: 4}
		if x > 0 {
			want = map[int]int{0: 4, 2: 4}
		}
		if len(counts) != len(want) || counts[0] != want[0] || counts[1] != want[1] || counts[2] != want[2] {
			t.Errorf("x=%d: blocks begun %v, want %v", x, counts, want)
		}
	}
}
