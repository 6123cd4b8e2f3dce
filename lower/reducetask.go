package lower

import (
	"fmt"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file builds the code of reductions (reduce.go): the end of the
// parallel task, where each block combines its threads' partial results,
// and the task that combines the blocks'.

// maxWarps is the most warps a block holds: 1024 threads in warps of 32.
const maxWarps = 32

// carriedMoves returns the moves of pl's reductions along an edge
// from→to that the task redirects: on a back edge the variable takes the value it
// has for the next iteration, on an exit the value it leaves the loop with.
func (f *frame) carriedMoves(pl *parLoop) func(from, to *ssa.BasicBlock) ([]ir.Reg, []ir.Arg) {
	return func(from, to *ssa.BasicBlock) ([]ir.Reg, []ir.Arg) {
		var dsts []ir.Reg
		var srcs []ir.Arg
		for _, red := range pl.reductions {
			edge := ssa.Value(nil)
			switch p, ok := red.result.(*ssa.Phi); {
			case to == pl.lp.header:
				edge = red.phi.Edges[predIndex(to, from)]
			case ok && p.Block() == to && p != red.phi:
				edge = p.Edges[predIndex(to, from)]
			}
			if edge != nil && edge != ssa.Value(red.phi) {
				d, a := f.phiMove(f.regsFor(red.phi), edge)
				dsts, srcs = append(dsts, d...), append(srcs, a...)
			}
		}
		return dsts, srcs
	}
}

// slotted returns the reductions whose results are read after the loop.
func slotted(reds []*reduction) []*reduction {
	var out []*reduction
	for _, red := range reds {
		if red.slot >= 0 {
			out = append(out, red)
		}
	}
	return out
}

// scratch returns the register holding the address of scratch memory,
// read once in the prologue.
func (tb *taskBuilder) scratch() ir.Reg {
	if tb.scratchReg != nil {
		return *tb.scratchReg
	}
	saved := tb.cur
	tb.cur = tb.pro
	r := tb.op(ir.OpScratch, ir.Ptr)
	tb.pro = tb.cur
	tb.cur = saved
	tb.scratchReg = &r
	return r
}

// word is the address of 8-byte word i of scratch memory.
func (tb *taskBuilder) word(i ir.Arg) ir.Reg { return tb.elemAddr(tb.scratch(), i, 8) }

// elemAddr is the address of element i, of size bytes, of the array at base.
func (tb *taskBuilder) elemAddr(base ir.Reg, i ir.Arg, size int64) ir.Reg {
	dst := tb.t.NewReg(ir.Ptr)
	tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: dst, Args: []ir.Arg{ir.R(base), i}, Aux: size})
	return dst
}

// halve emits dst = x >> 1 of i64 values.
func (tb *taskBuilder) halve(dst ir.Reg, x ir.Reg) {
	tb.emit(ir.Instr{Op: ir.OpShr, Type: ir.Int64, From: ir.Int64, Dst: dst, Args: []ir.Arg{ir.R(x), imm64(1)}})
}

// partialWord is the address of block b's partial result of red.
func (tb *taskBuilder) partialWord(b ir.Reg, red *reduction) ir.Reg {
	k := tb.l.k
	i := tb.op(ir.OpMul, ir.Int64, ir.R(b), imm64(int64(k.Reductions)))
	i = tb.op(ir.OpAdd, ir.Int64, ir.R(i), imm64(int64(k.ScratchFixed()/8+red.slot)))
	return tb.word(ir.R(i))
}

func imm64(v int64) ir.Arg { return ir.Imm(ir.Int64, uint64(v)) }

// resultLoad reads the result of red, computed by an earlier task, from
// scratch memory into a new register.
func (tb *taskBuilder) resultLoad(red *reduction) ir.Reg {
	return tb.op(ir.OpLoad, red.typ, ir.R(tb.word(imm64(ir.ScratchResult(red.slot)/8))))
}

// writePartials ends the parallel task of a loop with reductions: the
// block's threads combine their partial results, the registers regs, and
// the block's first thread writes them to scratch memory, with the number
// of blocks from the first block.
func (tb *taskBuilder) writePartials(reds []*reduction, regs []ir.Reg) {
	t := tb.t
	done := t.NewBlock("reduction done")
	done.Term = ir.Term{Kind: ir.Return}
	tb.blockReduce(reds, regs, done)
	b := tb.op(ir.OpBlockIndex, ir.Int64)
	for i, red := range reds {
		tb.emit(ir.Instr{Op: ir.OpStore, Type: red.typ, Args: []ir.Arg{ir.R(tb.partialWord(b, red)), ir.R(regs[i])}})
	}
	count := t.NewBlock("reduction count")
	tb.branch(tb.op(ir.OpEq, ir.Int64, ir.R(b), imm64(0)), count, done)
	tb.cur = count
	n := tb.op(ir.OpBlockCount, ir.Int64)
	for _, red := range reds {
		tb.emit(ir.Instr{Op: ir.OpStore, Type: ir.Int64, Args: []ir.Arg{ir.R(tb.word(imm64(ir.ScratchBlocks(red.slot) / 8))), ir.R(n)}})
	}
	tb.jump(done)
}

// buildCombine builds the task that combines the blocks' partial results
// of pl's reductions, in the order of the blocks, strided over the threads
// of one block, and then with each variable's value before the loop, and
// writes the results to scratch memory. Its one iteration gets it a grid
// of one block; on more, every block writes the same results.
func (l *lowerer) buildCombine(fn *ssa.Function, pl *parLoop) *ir.Task {
	reds := slotted(pl.reductions)
	tb := l.newTaskBuilder(ir.Parallel, pl.pos)
	t := tb.t
	t.Count = &ir.Expr{Op: ir.OpConst, Type: ir.Int64, Bits: 1}
	f := tb.newFrame(fn, func(*ssa.BasicBlock) bool { return false })
	inits := make([]ir.Arg, len(reds))
	for i, red := range reds {
		inits[i] = f.pureArg(red.init)
	}
	setup := t.NewBlock("setup")
	tb.pro.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{setup.Index}}
	tb.cur = setup
	n := tb.op(ir.OpLoad, ir.Int64, ir.R(tb.word(imm64(ir.ScratchBlocks(reds[0].slot)/8))))
	j := tb.op(ir.OpBlockThread, ir.Int64)
	size := tb.op(ir.OpBlockSize, ir.Int64)
	regs := make([]ir.Reg, len(reds))
	for i, red := range reds {
		regs[i] = t.NewReg(red.typ)
		tb.move(regs[i], red.identity())
	}
	head, body, after := t.NewBlock("combine head"), t.NewBlock("combine"), t.NewBlock("combine done")
	tb.jump(head)
	tb.branch(tb.op(ir.OpLt, ir.Int64, ir.R(j), ir.R(n)), body, after)
	tb.cur = body
	for i, red := range reds {
		v := tb.op(ir.OpLoad, red.typ, ir.R(tb.partialWord(j, red)))
		tb.emit(ir.Instr{Op: red.op, Type: red.typ, Dst: regs[i], Args: []ir.Arg{ir.R(regs[i]), ir.R(v)}})
	}
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: ir.Int64, Dst: j, Args: []ir.Arg{ir.R(j), ir.R(size)}})
	tb.jump(head)
	tb.cur = after
	done := t.NewBlock("exit")
	done.Term = ir.Term{Kind: ir.Return}
	tb.blockReduce(reds, regs, done)
	for i, red := range reds {
		r := tb.op(red.op, red.typ, inits[i], ir.R(regs[i]))
		tb.emit(ir.Instr{Op: ir.OpStore, Type: red.typ, Args: []ir.Arg{ir.R(tb.word(imm64(ir.ScratchResult(red.slot) / 8))), ir.R(r)}})
	}
	tb.jump(done)
	return t
}

// blockReduce combines the registers regs, one per reduction, over the
// threads of the block: within each warp by shuffles, then the warps'
// results through shared memory in the first warp. The block's first
// thread goes on in the current block with the block's results in regs;
// the others go to done.
func (tb *taskBuilder) blockReduce(reds []*reduction, regs []ir.Reg, done *ir.Block) {
	t := tb.t
	n := int64(len(reds))
	shared := int64(len(t.Vars))
	t.Vars = append(t.Vars, ir.Var{Name: fmt.Sprintf("reduce%d", shared), Space: ir.Shared, Size: int(n) * maxWarps * 8, Align: 8})
	lane, warp, width := tb.op(ir.OpLane, ir.Int64), tb.op(ir.OpWarpIndex, ir.Int64), tb.op(ir.OpWarpSize, ir.Int64)
	tb.warpReduce(reds, regs, lane, warp, width)
	// The first thread of each warp leaves the warp's results in shared
	// memory, at word warp*n + i.
	slot := func(w ir.Reg, i int) ir.Reg {
		base := t.NewReg(ir.Ptr)
		tb.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: base, Aux: shared})
		k := tb.op(ir.OpMul, ir.Int64, ir.R(w), imm64(n))
		k = tb.op(ir.OpAdd, ir.Int64, ir.R(k), imm64(int64(i)))
		return tb.elemAddr(base, ir.R(k), 8)
	}
	leave, wait := t.NewBlock("reduction warp result"), t.NewBlock("reduction barrier")
	tb.branch(tb.op(ir.OpEq, ir.Int64, ir.R(lane), imm64(0)), leave, wait)
	tb.cur = leave
	for i, red := range reds {
		tb.emit(ir.Instr{Op: ir.OpStore, Type: red.typ, Space: ir.Shared, Args: []ir.Arg{ir.R(slot(warp, i)), ir.R(regs[i])}})
	}
	tb.jump(wait)
	tb.emit(ir.Instr{Op: ir.OpBarrier})
	// The first warp combines the warps' results: lane l takes warp l's,
	// or the identity when the block has fewer warps.
	first, take, none, merge := t.NewBlock("reduction first warp"), t.NewBlock("reduction take"), t.NewBlock("reduction none"), t.NewBlock("reduction warps")
	tb.branch(tb.op(ir.OpEq, ir.Int64, ir.R(warp), imm64(0)), first, done)
	tb.cur = first
	covered := tb.op(ir.OpMul, ir.Int64, ir.R(lane), ir.R(width))
	tb.branch(tb.op(ir.OpLt, ir.Int64, ir.R(covered), ir.R(tb.op(ir.OpBlockSize, ir.Int64))), take, none)
	tb.cur = take
	for i, red := range reds {
		tb.emit(ir.Instr{Op: ir.OpLoad, Type: red.typ, Space: ir.Shared, Dst: regs[i], Args: []ir.Arg{ir.R(slot(lane, i))}})
	}
	tb.jump(merge)
	tb.cur = none
	for i, red := range reds {
		tb.move(regs[i], red.identity())
	}
	tb.jump(merge)
	tb.warpReduce(reds, regs, lane, warp, width)
	out := t.NewBlock("reduction block result")
	tb.branch(tb.op(ir.OpEq, ir.Int64, ir.R(lane), imm64(0)), out, done)
	tb.cur = out
}

// warpReduce combines each register of regs over the threads of a warp of
// width threads, halving the distance of the shuffles from width/2 to 1,
// so that the warp's first thread holds the warp's results. A thread
// combines what it reads only from a thread of the block: the warp of a
// block that is not a whole number of warps (which the interpreter runs)
// has fewer.
func (tb *taskBuilder) warpReduce(reds []*reduction, regs []ir.Reg, lane, warp, width ir.Reg) {
	t := tb.t
	inWarp := tb.op(ir.OpMul, ir.Int64, ir.R(warp), ir.R(width))
	inWarp = tb.op(ir.OpSub, ir.Int64, ir.R(tb.op(ir.OpBlockSize, ir.Int64)), ir.R(inWarp))
	inWarp = tb.op(ir.OpMin, ir.Int64, ir.R(inWarp), ir.R(width))
	dist := t.NewReg(ir.Int64)
	tb.halve(dist, width)
	loop, combine, next, after := t.NewBlock("reduction shuffle"), t.NewBlock("reduction combine"), t.NewBlock("reduction next"), t.NewBlock("reduction shuffled")
	tb.jump(loop)
	got := make([]ir.Reg, len(reds))
	for i, red := range reds {
		got[i] = tb.op(ir.OpShuffleDown, red.typ, ir.R(regs[i]), ir.R(dist))
	}
	from := tb.op(ir.OpAdd, ir.Int64, ir.R(lane), ir.R(dist))
	tb.branch(tb.op(ir.OpLt, ir.Int64, ir.R(from), ir.R(inWarp)), combine, next)
	tb.cur = combine
	for i, red := range reds {
		tb.emit(ir.Instr{Op: red.op, Type: red.typ, Dst: regs[i], Args: []ir.Arg{ir.R(regs[i]), ir.R(got[i])}})
	}
	tb.jump(next)
	tb.halve(dist, dist)
	tb.branch(tb.op(ir.OpNe, ir.Int64, ir.R(dist), imm64(0)), loop, after)
	tb.cur = after
}

// branch ends the current block with a branch on cond.
func (tb *taskBuilder) branch(cond ir.Reg, yes, no *ir.Block) {
	tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(cond), Succs: [2]int{yes.Index, no.Index}}
}
