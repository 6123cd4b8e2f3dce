package lower

import (
	"fmt"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// gridStride is the grid-stride loop of a parallel task under
// construction: thread t runs iterations i = init+t, init+t+T, ..., with
// the loop's index phi = i.
type gridStride struct {
	pl    *parLoop
	f     *frame
	i     ir.Reg
	count ir.Arg // T, the grid's threads
	wide  ir.Type
	index *ir.Block // runs the iteration i
	exit  *ir.Block
}

// next computes the test of whether iteration i runs: x < bound.
func (gs *gridStride) next() (x, bound ir.Arg) {
	tb, pl := gs.f.tb, gs.pl
	phiType, _ := basicType(pl.phi.Type())
	bound = tb.convert(gs.f.pureArg(pl.bound), phiType, gs.wide)
	x = ir.R(gs.i)
	if pl.delta != 0 {
		x = ir.R(tb.op(ir.OpAdd, gs.wide, x, ir.Imm(gs.wide, uint64(pl.delta))))
	}
	return x, bound
}

// enter sets the loop's index to i and jumps to the loop's header, in the
// copy of the loop's blocks start.
func (gs *gridStride) enter(start map[*ssa.BasicBlock]*ir.Block) {
	tb := gs.f.tb
	phiType, _ := basicType(gs.pl.phi.Type())
	phiReg := gs.f.regsFor(gs.pl.phi)[0]
	if phiType == gs.wide {
		tb.move(phiReg, ir.R(gs.i))
	} else {
		tb.emit(ir.Instr{Op: ir.OpConvert, Type: phiType, From: gs.wide, Dst: phiReg, Args: []ir.Arg{ir.R(gs.i)}})
	}
	tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{start[gs.pl.lp.header].Index}}
}

// strideUnroll is how many iterations in a row a thread of a loop with
// reductions runs without testing between them, when its body has at most
// strideUnrollMax instructions: their loads are then in flight together,
// as nvcc's unrolled loops have them, which a reduction needs to read
// memory at full speed. The iterations run in the same order as one by
// one, so the results are the same bits.
const (
	strideUnroll    = 4
	strideUnrollMax = 48
)

func unrollable(pl *parLoop) bool {
	if len(pl.reductions) == 0 {
		return false
	}
	n := 0
	for _, b := range pl.lp.header.Parent().Blocks {
		if pl.lp.contains(b) {
			n += len(b.Instrs)
		}
	}
	return n <= strideUnrollMax
}

// unrolled builds the loop's fast path and returns its head: while
// strideUnroll iterations of the thread are left, it runs them in a row,
// each a copy of the loop's blocks in which the loop's own exit test is
// known to pass; then the iterations left run one by one from index.
func (gs *gridStride) unrolled() *ir.Block {
	f, tb := gs.f, gs.f.tb
	t := tb.t
	head := t.NewBlock("unrolled head")
	tb.cur = head
	x, bound := gs.next()
	more := t.NewBlock("unrolled test")
	tb.branch(tb.op(ir.OpLt, gs.wide, x, bound), more, gs.exit)
	// The distance to the bound, which x is below, fits in a u64.
	tb.cur = more
	left := tb.op(ir.OpSub, ir.Uint64, tb.convert(bound, gs.wide, ir.Uint64), tb.convert(x, gs.wide, ir.Uint64))
	span := tb.op(ir.OpMul, ir.Uint64, tb.convert(gs.count, gs.wide, ir.Uint64), ir.Imm(ir.Uint64, strideUnroll-1))
	copies := make([]*ir.Block, strideUnroll)
	for k := range copies {
		copies[k] = t.NewBlock(fmt.Sprintf("unrolled %d", k))
	}
	tb.branch(tb.op(ir.OpGt, ir.Uint64, ir.R(left), ir.R(span)), copies[0], gs.index)

	saveStart, saveRedirect := f.start, f.redirect
	defer func() { f.start, f.redirect, f.assume = saveStart, saveRedirect, nil }()
	f.assume = func(iff *ssa.If) (int, bool) { return 0, iff == gs.pl.test }
	fn := gs.pl.lp.header.Parent()
	for k, entry := range copies {
		f.start = map[*ssa.BasicBlock]*ir.Block{}
		for _, b := range fn.Blocks {
			if gs.pl.lp.contains(b) {
				f.start[b] = t.NewBlock(fmt.Sprintf("%s (unrolled %d)", b.Comment, k))
			}
		}
		tb.cur = entry
		gs.enter(f.start)
		next := head
		if k+1 < len(copies) {
			next = copies[k+1]
		}
		step := t.NewBlock(fmt.Sprintf("unrolled step %d", k))
		tb.cur = step
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: gs.wide, Dst: gs.i, Args: []ir.Arg{ir.R(gs.i), gs.count}})
		tb.jump(next)
		f.redirect = func(from, to *ssa.BasicBlock) (*ir.Block, bool) {
			switch {
			case !gs.pl.lp.contains(to):
				return gs.exit, true
			case to == gs.pl.lp.header:
				return step, true
			}
			return nil, false
		}
		for _, b := range fn.Blocks {
			if gs.pl.lp.contains(b) {
				f.lowerBlock(b)
			}
		}
	}
	return head
}
