package opt

import (
	"math"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// NarrowCounters counts a 64-bit loop index in 32 bits where its range
// proves that safe: the index starts at a constant, goes up by one at the
// end of each iteration, and the loop's header leaves unless it is below a
// constant bound, both within int32. Then the index never leaves
// [start, bound], the 32-bit count equals the 64-bit one, and the loop's
// increment and test take one instruction each instead of two. The 64-bit
// index is still assigned, by conversion, for what else reads it; when
// nothing does (strength reduction has turned its element addresses into
// stepping pointers), it is removed as dead code.
func NarrowCounters(t *ir.Task) {
	for _, lp := range t.Loops() {
		narrowLoop(t, &irLoop{Loop: lp, header: lp.Header, blocks: lp.Blocks()})
	}
}

func narrowLoop(t *ir.Task, lp *irLoop) {
	head := t.Blocks[lp.header]
	if head.Term.Kind != ir.Branch || head.Term.Cond.Imm || lp.has(head.Term.Succs[1]) || len(lp.Latches) != 1 {
		return
	}
	var test *ir.Instr
	for i := range head.Instrs {
		if head.Instrs[i].Dst == head.Term.Cond.Reg {
			test = &head.Instrs[i]
		}
	}
	if test == nil || test.Op != ir.OpLt || test.Type != ir.Int64 || test.Args[0].Imm || !test.Args[1].Imm ||
		int64(test.Args[1].Bits) > math.MaxInt32 || int64(test.Args[1].Bits) < math.MinInt32 {
		return
	}
	k := test.Args[0].Reg
	an := analysis.New(t)
	c, ok := countedLoop(an, lp)
	if !ok || c.index != k || c.slack != 0 {
		return
	}
	start, ok := c.start()
	entries := an.Entries(an.LoopAt(lp.header))
	if !ok || int64(start) < math.MinInt32 || int64(start) > math.MaxInt32 || len(entries) != 1 {
		return
	}
	// The increment: k = move s, s = add k, 1, in the latch, where
	// countedLoop found it.
	latch := t.Blocks[lp.Latches[0]]
	at := c.iv.Update.At
	k32, next := t.NewReg(ir.Int32), t.NewReg(ir.Int32)
	entry := t.Blocks[entries[0]]
	entry.Instrs = append(entry.Instrs, ir.Instr{Op: ir.OpMove, Type: ir.Int32, Dst: k32, Args: []ir.Arg{ir.Imm(ir.Int32, start)}})
	*test = ir.Instr{Op: ir.OpLt, Type: ir.Int32, Dst: test.Dst, Args: []ir.Arg{ir.R(k32), ir.Imm(ir.Int32, test.Args[1].Bits)}, Pos: test.Pos}
	step := []ir.Instr{
		{Op: ir.OpAdd, Type: ir.Int32, Dst: next, Args: []ir.Arg{ir.R(k32), ir.Imm(ir.Int32, 1)}},
		{Op: ir.OpMove, Type: ir.Int32, Dst: k32, Args: []ir.Arg{ir.R(next)}},
		{Op: ir.OpConvert, Type: ir.Int64, From: ir.Int32, Dst: k, Args: []ir.Arg{ir.R(k32)}, Pos: latch.Instrs[at].Pos},
	}
	latch.Instrs = append(latch.Instrs[:at], append(step, latch.Instrs[at+1:]...)...)
}
