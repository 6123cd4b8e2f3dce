package main

import (
	"errors"
	"testing"

	"github.com/qdgo/qd/ir"
)

// A launch of Sgemm at the benchmark's size, 4096³, runs the copies of
// its loops without checks and with 32-bit indices: the tests before
// them, which opt.HoistChecks and opt.NarrowIndices put there, pass
// wherever no index can leave its slice or 32 bits. A test that fails
// sends every launch to a copy with checks and 64-bit indices, which
// computes the same, only slower, so only the instructions the threads
// run show it. Each thread of the grid's last block runs through the
// slabs' loads and some of the sums, then stops.
func TestSgemmTakesFastCopies(t *testing.T) {
	ks, err := ir.Parse(qdIR)
	if err != nil {
		t.Fatal(err)
	}
	const m, n, k = 4096, 4096, 4096
	heap := &ir.Heap{}
	args := &ir.Values{Scalar: make([]uint64, 6), Base: make([]uint64, 6), Len: make([]int64, 6)}
	for i, size := range []int{m * k, k * n, m * n} {
		args.Base[i], args.Len[i] = heap.Alloc(4*size), int64(size)
	}
	args.Scalar[3], args.Scalar[4], args.Scalar[5] = m, n, k
	for _, kern := range ks {
		for _, task := range kern.Tasks {
			if task.Kind != ir.BlockLevel {
				continue
			}
			checks, wide, narrow := 0, 0, 0
			ip := &ir.Interp{Mem: heap, StepLimit: 20000, Visit: func(_ *ir.Task, b *ir.Block) {
				for _, in := range b.Instrs {
					switch {
					case in.Op == ir.OpCheckIndex:
						checks++
					case (in.Op == ir.OpMul || in.Op == ir.OpAdd) && in.Type.IsInteger() && in.Type.Size() == 8:
						wide++
					case (in.Op == ir.OpMul || in.Op == ir.OpAdd) && in.Type.IsInteger() && in.Type.Size() == 4:
						narrow++
					}
				}
			}}
			blocks := int64(m / tile * n / tile)
			if err := ip.RunBlock(kern, task, args, blocks-1, blocks); err != nil && !errors.Is(err, ir.ErrStepLimit) {
				t.Fatalf("%s: %v", task.Name, err)
			}
			// The copy with 64-bit indices makes one integer add or
			// multiply in a hundred a 32-bit one; the 32-bit copy, about
			// half (the addresses stay 64-bit).
			if checks > 0 || 4*narrow < wide {
				t.Errorf("%s at m=n=k=%d: its threads ran %d checks, and %d 64-bit and %d 32-bit integer adds and multiplies; want no checks, and a 32-bit one in four at least",
					task.Name, m, checks, wide, narrow)
			}
		}
	}
}
