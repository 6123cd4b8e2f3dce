package lower

import (
	"fmt"
	"go/types"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lowers the block collectives, qd.Sum, qd.InclusiveScan and
// qd.ExclusiveScan, called in a qd.Blocks loop's body on a shared array:
// statements the block's threads run together. Sum adds within each warp
// by shuffles and then the warps' sums, which every thread reads in the
// same order, so all get the same total; the scans scan each warp by
// shuffles and then add the sums of the warps before, one element per
// thread.

// collectiveCallee reports whether call calls one of the collectives, and
// which.
func collectiveCallee(call *ssa.Call) string {
	callee := call.Common().StaticCallee()
	if callee == nil {
		return ""
	}
	if o := callee.Origin(); o != nil {
		callee = o
	}
	if callee.Pkg == nil || callee.Pkg.Pkg.Path() != QDPath {
		return ""
	}
	switch callee.Name() {
	case "Sum", "InclusiveScan", "ExclusiveScan":
		return callee.Name()
	}
	return ""
}

// collectiveArray returns the shared array a collective's argument slices
// whole (v[:]), its element type and its length.
func (f *frame) collectiveArray(call *ssa.Call) (ssa.Value, ir.Type, int64, bool) {
	s, ok := call.Call.Args[0].(*ssa.Slice)
	if !ok || s.Low != nil || s.High != nil || s.Max != nil {
		return nil, ir.Invalid, 0, false
	}
	alloc, ok := s.X.(*ssa.Alloc)
	if !ok || !f.tb.l.sharedAllocs[alloc] {
		return nil, ir.Invalid, 0, false
	}
	arr, ok := alloc.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array)
	if !ok {
		return nil, ir.Invalid, 0, false
	}
	et, ok := basicType(arr.Elem())
	return alloc, et, arr.Len(), ok
}

// collective lowers a call of a collective in a qd.Blocks loop's body.
func (f *frame) collective(call *ssa.Call, name string, dst []ir.Reg) {
	if !f.tb.l.collectives[call] {
		f.errorf(call.Pos(), "qd.%s in a kernel is a step of a whole block: call it in the body of a qd.Blocks loop, outside its thread loops, on a variable of the body (qd.%s(v[:]) with var v [256]int32)", name, name)
		return
	}
	alloc, et, n, ok := f.collectiveArray(call)
	if !ok {
		f.errorf(call.Pos(), "qd.%s in a qd.Blocks loop works on a whole array variable of the loop's body, in shared memory: qd.%s(v[:]) with var v [256]int32 declared in the body", name, name)
		return
	}
	size := int64(f.tb.t.Threads)
	base := f.regs(alloc)[0]
	switch name {
	case "Sum":
		f.tb.move(dst[0], ir.R(f.blockSum(base, et, n, size)))
	default:
		if n > size {
			f.errorf(call.Pos(), "qd.%s in a qd.Blocks loop scans one element per thread, but the array has %d elements and the block %d threads: use an array of at most as many elements as threads", name, n, size)
			return
		}
		total := f.blockScan(base, et, n, name == "ExclusiveScan")
		if len(dst) > 0 && dst[0] != ir.NoReg {
			f.tb.move(dst[0], ir.R(total))
		}
	}
}

// blockSum adds the n elements of type et at base, a shared array, on a
// block of size threads, and returns the total, which every thread gets.
func (f *frame) blockSum(base ir.Reg, et ir.Type, n, size int64) ir.Reg {
	tb := f.tb
	thread := ir.R(tb.op(ir.OpBlockThread, ir.Int64))
	acc := tb.t.NewReg(et)
	tb.move(acc, ir.Imm(et, 0))
	// Each thread's partial sum of the elements thread, thread+size, ...
	for first := int64(0); first < n; first += size {
		i := thread
		if first > 0 {
			i = ir.R(tb.op(ir.OpAdd, ir.Int64, thread, ir.Imm(ir.Int64, uint64(first))))
		}
		add, next := tb.t.NewBlock("sum.load"), tb.t.NewBlock("sum.loaded")
		tb.branch(tb.op(ir.OpLt, ir.Int64, i, ir.Imm(ir.Int64, uint64(n))), add, next)
		tb.cur = add
		x := f.loadShared(base, i, et)
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: et, Dst: acc, Args: []ir.Arg{ir.R(acc), ir.R(x)}})
		tb.jump(next)
	}
	// The warp's sum, in its lane 0: lane l adds lane l+d's for d = warp/2,
	// ..., 1, where that lane is a thread of the block. The steps are
	// written out for warps of up to maxWarp threads, each behind a test
	// of the warp's size, so that a backend that knows the size (PTX's
	// 32) folds the tests away and keeps the shuffles alone, with no loop.
	// Only lane 0's sum is kept, and its lanes l+d are in its warp: where
	// the block is whole warps, lane l+d is a thread of the block.
	warp := ir.R(tb.op(ir.OpWarpSize, ir.Int64))
	whole := tb.op(ir.OpEq, ir.Int64, ir.R(tb.op(ir.OpRem, ir.Int64, ir.Imm(ir.Int64, uint64(size)), warp)), ir.Imm(ir.Int64, 0))
	for d := int64(maxWarp / 2); d >= 1; d /= 2 {
		step, check, add, next := tb.t.NewBlock("sum.shuffle"), tb.t.NewBlock("sum.check"), tb.t.NewBlock("sum.add"), tb.t.NewBlock("sum.step")
		tb.branch(tb.op(ir.OpLt, ir.Int64, ir.Imm(ir.Int64, uint64(d)), warp), step, next)
		tb.cur = step
		other := tb.op(ir.OpShuffleDown, et, ir.R(acc), ir.Imm(ir.Int64, uint64(d)))
		tb.branch(whole, add, check)
		tb.cur = check
		tb.branch(tb.op(ir.OpLt, ir.Int64, ir.R(tb.op(ir.OpAdd, ir.Int64, thread, ir.Imm(ir.Int64, uint64(d)))), ir.Imm(ir.Int64, uint64(size))), add, next)
		tb.cur = add
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: et, Dst: acc, Args: []ir.Arg{ir.R(acc), ir.R(other)}})
		tb.jump(next)
	}
	// Lane 0 of each warp writes the warp's sum; every thread adds them.
	sums := f.warpSums(et)
	lane := tb.op(ir.OpLane, ir.Int64)
	warpIndex := ir.R(tb.op(ir.OpWarpIndex, ir.Int64))
	write, written := tb.t.NewBlock("sum.write"), tb.t.NewBlock("sum.written")
	tb.branch(tb.op(ir.OpEq, ir.Int64, ir.R(lane), ir.Imm(ir.Int64, 0)), write, written)
	tb.cur = write
	f.storeShared(sums, warpIndex, et, ir.R(acc))
	tb.jump(written)
	tb.emit(ir.Instr{Op: ir.OpBarrier})
	warps := tb.op(ir.OpDiv, ir.Int64, ir.Imm(ir.Int64, uint64(size-1)), warp)
	total := tb.t.NewReg(et)
	tb.move(total, ir.Imm(et, 0))
	w := tb.t.NewReg(ir.Int64)
	tb.move(w, ir.Imm(ir.Int64, 0))
	whead, wbody, wdone := tb.t.NewBlock("sum.total"), tb.t.NewBlock("sum.warp"), tb.t.NewBlock("sum.done")
	tb.jump(whead)
	tb.branch(tb.op(ir.OpLe, ir.Int64, ir.R(w), ir.R(warps)), wbody, wdone)
	tb.cur = wbody
	x := f.loadShared(sums, ir.R(w), et)
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: et, Dst: total, Args: []ir.Arg{ir.R(total), ir.R(x)}})
	f.countUp(w)
	tb.jump(whead)
	tb.cur = wdone
	tb.emit(ir.Instr{Op: ir.OpBarrier}) // before the warps' sums are written again
	return total
}

// blockScan replaces the n elements at base, a shared array of a block
// of at least n threads, by their inclusive (or exclusive) prefix sums,
// and returns the sum of all of them. Each warp scans its threads'
// elements by shuffles from the lanes below, its last lane leaves the
// warp's sum in shared memory, and after one barrier each thread adds the
// sums of the warps before its own: two barriers in all.
func (f *frame) blockScan(base ir.Reg, et ir.Type, n int64, exclusive bool) ir.Reg {
	tb := f.tb
	size := int64(tb.t.Threads)
	thread := ir.R(tb.op(ir.OpBlockThread, ir.Int64))
	mine := tb.op(ir.OpLt, ir.Int64, thread, ir.Imm(ir.Int64, uint64(n)))
	// x is the thread's element, zero past n, then its warp's prefix sum.
	x := tb.t.NewReg(et)
	tb.move(x, ir.Imm(et, 0))
	read, readDone := tb.t.NewBlock("scan.read"), tb.t.NewBlock("scan.readdone")
	tb.branch(mine, read, readDone)
	tb.cur = read
	tb.move(x, ir.R(f.loadShared(base, thread, et)))
	tb.jump(readDone)
	// Lane l adds lane l-d's for d = 1, 2, ..., below the warp's size:
	// written out, like blockSum's steps, for warps of up to maxWarp.
	lane := ir.R(tb.op(ir.OpLane, ir.Int64))
	warp := ir.R(tb.op(ir.OpWarpSize, ir.Int64))
	for d := int64(1); d < maxWarp; d *= 2 {
		step, add, next := tb.t.NewBlock("scan.shuffle"), tb.t.NewBlock("scan.add"), tb.t.NewBlock("scan.step")
		tb.branch(tb.op(ir.OpLt, ir.Int64, ir.Imm(ir.Int64, uint64(d)), warp), step, next)
		tb.cur = step
		other := tb.op(ir.OpShuffleUp, et, ir.R(x), ir.Imm(ir.Int64, uint64(d)))
		tb.branch(tb.op(ir.OpGe, ir.Int64, lane, ir.Imm(ir.Int64, uint64(d))), add, next)
		tb.cur = add
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: et, Dst: x, Args: []ir.Arg{ir.R(x), ir.R(other)}})
		tb.jump(next)
	}
	// The sum of the warp's elements before the lane's own.
	var below ir.Reg
	if exclusive {
		below = tb.t.NewReg(et)
		up := tb.op(ir.OpShuffleUp, et, ir.R(x), ir.Imm(ir.Int64, 1))
		tb.move(below, ir.Imm(et, 0))
		take, taken := tb.t.NewBlock("scan.below"), tb.t.NewBlock("scan.belowdone")
		tb.branch(tb.op(ir.OpGt, ir.Int64, lane, ir.Imm(ir.Int64, 0)), take, taken)
		tb.cur = take
		tb.move(below, ir.R(up))
		tb.jump(taken)
	}
	// The last lane of each warp, or the block's last thread, writes the
	// warp's sum.
	sums := f.warpSums(et)
	warpIndex := ir.R(tb.op(ir.OpWarpIndex, ir.Int64))
	last := tb.op(ir.OpOr, ir.Bool,
		ir.R(tb.op(ir.OpEq, ir.Int64, lane, ir.R(tb.op(ir.OpSub, ir.Int64, warp, ir.Imm(ir.Int64, 1))))),
		ir.R(tb.op(ir.OpEq, ir.Int64, thread, ir.Imm(ir.Int64, uint64(size-1)))))
	write, written := tb.t.NewBlock("scan.write"), tb.t.NewBlock("scan.written")
	tb.branch(last, write, written)
	tb.cur = write
	f.storeShared(sums, warpIndex, et, ir.R(x))
	tb.jump(written)
	tb.emit(ir.Instr{Op: ir.OpBarrier})
	// Every thread adds up the warps' sums, in order, those before its
	// warp apart.
	warps := tb.op(ir.OpDiv, ir.Int64, ir.Imm(ir.Int64, uint64(size-1)), warp)
	before, total := tb.t.NewReg(et), tb.t.NewReg(et)
	tb.move(before, ir.Imm(et, 0))
	tb.move(total, ir.Imm(et, 0))
	w := tb.t.NewReg(ir.Int64)
	tb.move(w, ir.Imm(ir.Int64, 0))
	whead, wbody, wdone := tb.t.NewBlock("scan.total"), tb.t.NewBlock("scan.warp"), tb.t.NewBlock("scan.done")
	tb.jump(whead)
	tb.branch(tb.op(ir.OpLe, ir.Int64, ir.R(w), ir.R(warps)), wbody, wdone)
	tb.cur = wbody
	s := f.loadShared(sums, ir.R(w), et)
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: et, Dst: total, Args: []ir.Arg{ir.R(total), ir.R(s)}})
	earlier, counted := tb.t.NewBlock("scan.earlier"), tb.t.NewBlock("scan.counted")
	tb.branch(tb.op(ir.OpLt, ir.Int64, ir.R(w), warpIndex), earlier, counted)
	tb.cur = earlier
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: et, Dst: before, Args: []ir.Arg{ir.R(before), ir.R(s)}})
	tb.jump(counted)
	// Not countUp: unrolled fully, this loop left example/scan's
	// ScanTiles at 96 registers a thread, its checked copy's doing, where
	// unrolled by UnrollLoops it takes 32.
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: ir.Int64, Dst: w, Args: []ir.Arg{ir.R(w), ir.Imm(ir.Int64, 1)}})
	tb.jump(whead)
	tb.cur = wdone
	mineSum := x
	if exclusive {
		mineSum = below
	}
	store, stored := tb.t.NewBlock("scan.store"), tb.t.NewBlock("scan.stored")
	tb.branch(mine, store, stored)
	tb.cur = store
	f.storeShared(base, thread, et, ir.R(tb.op(ir.OpAdd, et, ir.R(mineSum), ir.R(before))))
	tb.jump(stored)
	tb.emit(ir.Instr{Op: ir.OpBarrier}) // before the scan is read, or the warps' sums written again
	return total
}

// countUp adds 1 to the counter w of a loop over the warps' sums, as the
// sum of w and 1 moved into w, the form of Go's loops, which the loop
// analysis counts: the loop runs a constant number of times once the
// warp's size is a constant, and unrolls fully.
func (f *frame) countUp(w ir.Reg) {
	tb := f.tb
	tb.move(w, ir.R(tb.op(ir.OpAdd, ir.Int64, ir.R(w), ir.Imm(ir.Int64, 1))))
}

// maxWarp is the most threads a warp has on any GPU the backends target:
// AMD's wavefronts of 64. The collectives' shuffle steps are written out
// for it, each behind a test of the warp's size.
const maxWarp = 64

// warpSums declares the shared array where each warp of a block leaves
// its sum: 32 elements, enough for 1024 threads in warps of 32.
func (f *frame) warpSums(et ir.Type) ir.Reg {
	tb := f.tb
	// Go names have no $, so the name is the task's own.
	name := fmt.Sprintf("warpsums_%d", len(tb.t.Vars))
	tb.t.Vars = append(tb.t.Vars, ir.Var{Name: name, Space: ir.Shared, Size: 32 * et.Size(), Align: et.Size()})
	r := tb.t.NewReg(ir.Ptr)
	tb.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: r, Aux: int64(len(tb.t.Vars) - 1)})
	return r
}

// loadShared loads element i of type et of the shared array at base.
func (f *frame) loadShared(base ir.Reg, i ir.Arg, et ir.Type) ir.Reg {
	tb := f.tb
	at := tb.t.NewReg(ir.Ptr)
	tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: at, Args: []ir.Arg{ir.R(base), i}, Aux: int64(et.Size())})
	return tb.op(ir.OpLoad, et, ir.R(at))
}

// storeShared stores x as element i of type et of the shared array at
// base.
func (f *frame) storeShared(base ir.Reg, i ir.Arg, et ir.Type, x ir.Arg) {
	tb := f.tb
	at := tb.t.NewReg(ir.Ptr)
	tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: at, Args: []ir.Arg{ir.R(base), i}, Aux: int64(et.Size())})
	tb.emit(ir.Instr{Op: ir.OpStore, Type: et, Args: []ir.Arg{ir.R(at), x}})
}
