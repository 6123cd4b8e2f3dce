package lower

import (
	"go/types"

	"github.com/qdgo/qd/check"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// buildBlocks builds the task of a qd.Blocks loop (planBlocks). Block B of
// a grid of G blocks runs the iterations B, B+G, ... of the loop, or of
// its two levels taken as one:
//
//	entry:   prologue (parameters, values of earlier statements)
//	setup:   each level's first index and count; blk = blockindex
//	head:    if blk < count goto index else exit
//	index:   φ_k = first_k + blk split into levels; goto the loop's header
//	...      the body's blocks; a thread loop's entry goes to its start,
//	         its back edges and exit to its end
//	start:   φ = blockthread (split into two levels); if it runs fewer
//	         threads than the block has, the others go to end
//	end:     barrier; goto the thread loop's exit
//	latch:   blk += blockcount; goto head
//	exit:    return
func (l *lowerer) buildBlocks(fn *ssa.Function, pl *parLoop, bn *blockNest) *ir.Task {
	tb := l.newTaskBuilder(ir.BlockLevel, pl.pos)
	t := tb.t
	t.Threads = int(bn.size)
	f := tb.newFrame(fn, pl.lp.contains)
	setup, head, index, latch, exit := t.NewBlock("setup"), t.NewBlock("head"), t.NewBlock("index"), t.NewBlock("latch"), t.NewBlock("exit")
	for _, b := range fn.Blocks {
		if pl.lp.contains(b) {
			f.start[b] = t.NewBlock(b.Comment)
		}
	}
	f.skipPhis = map[*ssa.Phi]bool{}
	pretests := map[*ssa.If]bool{}
	for _, lv := range bn.levels {
		f.skipPhis[lv.phi] = true
	}
	for i, lv := range bn.levels {
		if i > 0 && lv.pretest {
			pretests[lv.pre.Instrs[len(lv.pre.Instrs)-1].(*ssa.If)] = true
		}
	}
	for _, tl := range bn.threads {
		tl.start, tl.end = t.NewBlock("threads"), t.NewBlock("barrier")
		for _, lv := range tl.levels {
			f.skipPhis[lv.phi] = true
			if lv.pretest {
				pretests[lv.pre.Instrs[len(lv.pre.Instrs)-1].(*ssa.If)] = true
			}
		}
	}
	f.assume = func(iff *ssa.If) (int, bool) { return 0, pretests[iff] }
	f.redirect = bn.redirect(latch, exit)
	l.sharedAllocs, l.sharedNoZero, l.threadAllocs, l.threadOwn = bn.shared, bn.written, bn.perThread, bn.own
	t.MaxRegs = twoBlockRegs(bn.perThread, t.Threads)
	l.sharedNoWait = bn.ownZeroes

	tb.cur = setup
	ranges := make([]levelRange, len(bn.levels))
	for k, lv := range bn.levels {
		ranges[k] = f.levelRange(lv, ranges[:k], exit)
	}
	u := ir.Uint64
	count := ranges[0].count
	for _, r := range ranges[1:] {
		count = ir.R(tb.op(ir.OpMul, u, count, r.count))
	}
	blk := t.NewReg(u)
	tb.convertInto(blk, ir.R(tb.op(ir.OpBlockIndex, ir.Int64)), ir.Int64)
	step := tb.convert(ir.R(tb.op(ir.OpBlockCount, ir.Int64)), ir.Int64, u)
	tb.jump(head)
	more := tb.op(ir.OpLt, u, ir.R(blk), count)
	head.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(more), Succs: [2]int{index.Index, exit.Index}}

	tb.cur = index
	at := ir.R(blk)
	offsets := make([]ir.Arg, len(bn.levels))
	for k := len(bn.levels) - 1; k >= 0; k-- {
		offsets[k] = at
		if k > 0 {
			// A remainder rather than at - q·count: the range analysis
			// bounds a remainder by the test below, where the affine form
			// of the difference would lose the bound in the sums that
			// use it. opt.FuseDivRem divides once for both.
			offsets[k] = ir.R(tb.op(ir.OpRem, u, at, ranges[k].count))
			at = ir.R(tb.op(ir.OpDiv, u, at, ranges[k].count))
		}
	}
	// As a collapsed nest's head does (nest.go), the levels' offsets of a
	// 2-D grid are tested against their counts, tests that always pass:
	// they tell the range analysis that each index lies in its level's
	// range, the bounds that decide the body's checks before the loop
	// (opt.HoistChecks); opt.RemoveProvenTests drops them afterwards.
	for k := 0; len(bn.levels) > 1 && k < len(bn.levels); k++ {
		more := tb.op(ir.OpLt, u, offsets[k], ranges[k].count)
		next := t.NewBlock("index")
		tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(more), Succs: [2]int{next.Index, exit.Index}}
		tb.cur = next
	}
	for k := range bn.levels {
		v := tb.op(ir.OpAdd, u, ranges[k].first, offsets[k])
		tb.convertInto(f.regsFor(bn.levels[k].phi)[0], ir.R(v), u)
	}
	tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{f.start[pl.lp.header].Index}}

	tb.cur = latch
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: u, Dst: blk, Args: []ir.Arg{ir.R(blk), step}})
	tb.jump(head)
	for _, tl := range bn.threads {
		f.threadStart(tl, bn.size)
	}
	exit.Term = ir.Term{Kind: ir.Return}
	for _, b := range fn.Blocks {
		if pl.lp.contains(b) {
			f.lowerBlock(b)
		}
	}
	l.sharedAllocs, l.sharedNoZero, l.threadAllocs, l.threadOwn = nil, nil, nil, nil
	l.sharedNoWait = nil
	if n := t.SharedBytes(); n > ir.MaxSharedBytes {
		l.errorf(pl.pos, "the variables of this qd.Blocks loop's body take %d bytes of shared memory, more than the %d bytes a block may have on every GPU: use smaller tiles, or keep per-thread values in arrays indexed only by the thread index (acc[t]), which live in registers", n, ir.MaxSharedBytes)
	}
	tb.pro.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{setup.Index}}
	if len(bn.levels) == 1 {
		t.Count = l.loopCount(pl)
	} else {
		t.Count = l.nestCount(bn.levels)
	}
	for k, lv := range bn.levels {
		ranges[k].reg = f.regsFor(lv.phi)[0]
	}
	// The dependence check compares the iterations of the qd.Blocks loop,
	// each with all its threads' indices as counters of inner levels.
	ixs := nestIndexes(ranges)
	for _, ix := range ixs {
		for _, tl := range bn.threads {
			for i, lv := range tl.levels {
				ix.Counters[f.regsFor(lv.phi)[0]] = check.Counter{Init: ir.Imm(ir.Int64, 0), Wide: ir.Int64, Count: ir.Imm(u, uint64(tl.extents[i]))}
			}
		}
	}
	l.loopIndexes[t] = ixs[0]
	for _, tl := range bn.threads {
		l.threadIndexes[t] = append(l.threadIndexes[t], f.threadIndexes(tl, bn, ranges)...)
	}
	return t
}

// threadIndexes describes the thread loop tl to the dependence check
// (check.ThreadLoops): one loop per level, whose blocks are those between
// its start and its end, in which the indices of the qd.Blocks loop are
// the same for every thread.
func (f *frame) threadIndexes(tl *threadLoop, bn *blockNest, ranges []levelRange) []*check.Loop {
	t := f.tb.t
	within := make([]bool, len(t.Blocks))
	stack := []int{tl.start.Index}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if within[b] || b == tl.end.Index {
			continue
		}
		within[b] = true
		stack = append(stack, t.Blocks[b].Term.Successors()...)
	}
	var loops []*check.Loop
	for k, lv := range tl.levels {
		lp := &check.Loop{Index: f.regsFor(lv.phi)[0], Init: ir.Imm(ir.Int64, 0), Bound: ir.Imm(ir.Int64, uint64(tl.extents[k])), Wide: ir.Int64,
			Fixed: map[ir.Reg]bool{}, Counters: map[ir.Reg]check.Counter{}, Within: within}
		for _, r := range ranges {
			lp.Fixed[r.reg] = true
		}
		for j, other := range tl.levels {
			switch {
			case j < k:
				lp.Fixed[f.regsFor(other.phi)[0]] = true
			case j > k:
				lp.Counters[f.regsFor(other.phi)[0]] = check.Counter{Init: ir.Imm(ir.Int64, 0), Wide: ir.Int64, Count: ir.Imm(ir.Uint64, uint64(tl.extents[j]))}
			}
		}
		loops = append(loops, lp)
	}
	return loops
}

// redirect sends the edges that the task's own blocks handle: those that
// leave or go round the qd.Blocks loop to exit or latch, and those that
// enter, go round or leave a thread loop to its start or end.
func (bn *blockNest) redirect(latch, exit *ir.Block) func(from, to *ssa.BasicBlock) (*ir.Block, bool) {
	outer := bn.levels[0].lp
	return func(from, to *ssa.BasicBlock) (*ir.Block, bool) {
		switch {
		case !outer.contains(to):
			return exit, true
		case to == outer.header:
			return latch, true
		}
		for _, lv := range bn.levels[1:] {
			if lv.lp.contains(from) && (to == lv.lp.header || !lv.lp.contains(to)) {
				return latch, true
			}
		}
		for _, tl := range bn.threads {
			first := tl.levels[0].lp
			if to == first.header && !first.contains(from) {
				return tl.start, true
			}
			for _, lv := range tl.levels {
				if lv.lp.contains(from) && (to == lv.lp.header || !lv.lp.contains(to)) {
					return tl.end, true
				}
			}
		}
		return nil, false
	}
}

// threadStart fills the blocks that start and end the thread loop tl in a
// block of size threads: each thread runs the iteration of its index in
// the block, the last level's index varying fastest, and all wait at the
// end for each other.
func (f *frame) threadStart(tl *threadLoop, size int64) {
	tb := f.tb
	tb.cur = tl.start
	thread := ir.R(tb.op(ir.OpBlockThread, ir.Int64))
	at := thread
	for k := len(tl.levels) - 1; k >= 0; k-- {
		offset := at
		if k > 0 {
			extent := ir.Imm(ir.Int64, uint64(tl.extents[k]))
			q := tb.op(ir.OpDiv, ir.Int64, at, extent)
			offset = ir.R(tb.op(ir.OpRem, ir.Int64, at, extent))
			at = ir.R(q)
		}
		lv := tl.levels[k]
		phiType, _ := basicType(lv.phi.Type())
		first := f.pureArg(lv.init)
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: phiType, Dst: f.regsFor(lv.phi)[0], Args: []ir.Arg{first, tb.convert(offset, ir.Int64, phiType)}})
	}
	body := f.start[tl.levels[0].lp.header]
	if n := tl.threads(); n < size {
		runs := tb.op(ir.OpLt, ir.Int64, thread, ir.Imm(ir.Int64, uint64(n)))
		tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(runs), Succs: [2]int{body.Index, tl.end.Index}}
	} else {
		tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{body.Index}}
	}
	tb.cur = tl.end
	tb.emit(ir.Instr{Op: ir.OpBarrier})
	tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{f.start[tl.levels[0].exit].Index}}
}

// blockMarker lowers a call of qd.Blocks or qd.Threads, which returns its
// argument, and reports one that does not bound a loop planned as a
// qd.Blocks loop or a thread loop.
func (f *frame) blockMarker(call *ssa.Call, name string, dst []ir.Reg) {
	if !f.tb.l.markers[call] {
		if name == "Blocks" {
			f.errorf(call.Pos(), "qd.Blocks must be the range of a top-level loop of a kernel: for b := range qd.Blocks(n) { ... } (or of the only statement of one's body, for a 2-D grid)")
		} else {
			f.errorf(call.Pos(), "qd.Threads must be the range of a loop in the body of a qd.Blocks loop: for t := range qd.Threads(256) { ... }, directly or inside serial loops and ifs there, not in a thread loop or a helper")
		}
	}
	f.tb.move(dst[0], f.arg(call.Call.Args[0]))
}

// sharedAlloc lowers a variable of a qd.Blocks loop's body: one per block,
// in shared memory, which the block's threads zero together, word k by
// thread k mod the block's size, before any uses it; unless a thread loop
// stores all of it before any other use (blockzero.go). The threads wait
// for each other's zeroes unless each word is first used by the thread
// that zeroed it (zeroedByOwner).
func (f *frame) sharedAlloc(v *ssa.Alloc, elem types.Type) {
	tb := f.tb
	aux := tb.newVar(v.Comment, elem)
	tb.t.Vars[aux].Space = ir.Shared
	dst := f.regsFor(v)[0]
	tb.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: dst, Aux: aux, Pos: v.Pos()})
	if tb.l.sharedNoZero[v] {
		return
	}
	word := wordOf(elem)
	words, size := hostSizes.Sizeof(elem)/int64(word.Size()), int64(tb.t.Threads)
	thread := ir.R(tb.op(ir.OpBlockThread, ir.Int64))
	for first := int64(0); first < words; first += size {
		i := thread
		if first > 0 {
			i = ir.R(tb.op(ir.OpAdd, ir.Int64, thread, ir.Imm(ir.Int64, uint64(first))))
		}
		var done *ir.Block
		if first+size > words {
			zero, after := tb.t.NewBlock("zero"), tb.t.NewBlock("zeroed")
			tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(tb.op(ir.OpLt, ir.Int64, i, ir.Imm(ir.Int64, uint64(words)))), Succs: [2]int{zero.Index, after.Index}}
			tb.cur, done = zero, after
		}
		at := tb.t.NewReg(ir.Ptr)
		tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: at, Args: []ir.Arg{ir.R(dst), i}, Aux: int64(word.Size()), Pos: v.Pos()})
		tb.emit(ir.Instr{Op: ir.OpStore, Type: word, Args: []ir.Arg{ir.R(at), ir.Imm(word, 0)}, Pos: v.Pos()})
		if done != nil {
			tb.jump(done)
		}
	}
	if !tb.l.sharedNoWait[v] {
		tb.emit(ir.Instr{Op: ir.OpBarrier, Pos: v.Pos()})
	}
}

// perThreadHeavy is the size, in bytes, from which a thread's own
// variables (acc[ty][tx][8][8], held in registers) make a kernel heavy in
// registers.
const perThreadHeavy = 256

// twoBlockRegs caps the registers of a thread whose own variables take
// perThreadHeavy bytes or more at what leaves room for two blocks on a
// multiprocessor, 65536/(2·threads): left to itself ptxas gave a tiled
// SGEMM's 256 threads 150 registers, one block a multiprocessor, and no
// block then works while the other waits at a barrier (3.8 ms at 128
// registers, 5.9 at 150, on an H200). Other block kernels keep no cap:
// a cap is a budget to ptxas as well as a bound, and under one of 128 the
// halo stencil's 31 registers grew to 48 and its blocks a multiprocessor
// from eight to five. 0 where there is no cap.
func twoBlockRegs(perThread map[*ssa.Alloc]types.Type, threads int) int {
	var bytes int64
	for _, elem := range perThread {
		bytes += hostSizes.Sizeof(elem)
	}
	if bytes < perThreadHeavy || threads <= 0 || 65536/(2*threads) >= 255 {
		return 0 // blocks of 128 threads or fewer fit two at any count
	}
	return 65536 / (2 * threads) &^ 7
}
