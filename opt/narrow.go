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
		narrowLoop(t, lp)
	}
}

func narrowLoop(t *ir.Task, lp *ir.Loop) {
	head := t.Blocks[lp.Header]
	if head.Term.Kind != ir.Branch || head.Term.Cond.Imm {
		return
	}
	an := analysis.New(t)
	c, ok := countedLoop(an, lp)
	if !ok || c.slack != 0 || c.iv.Type != ir.Int64 {
		return
	}
	// The header's test, i < bound for a constant bound.
	var test *ir.Instr
	for _, x := range c.iv.Tests {
		if x.Block == lp.Header && x.Op == ir.OpLt && c.tests[x.Block] && x.BoundArg.Imm {
			test = an.Instr(x.Compare)
		}
	}
	if test == nil || int64(c.bound.Bits) > math.MaxInt32 || int64(c.bound.Bits) < math.MinInt32 {
		return
	}
	k := c.iv.Reg
	start, ok := c.start()
	entries := an.Entries(an.LoopAt(lp.Header))
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
	*test = ir.Instr{Op: ir.OpLt, Type: ir.Int32, Dst: test.Dst, Args: []ir.Arg{ir.R(k32), ir.Imm(ir.Int32, c.bound.Bits)}, Pos: test.Pos}
	step := []ir.Instr{
		{Op: ir.OpAdd, Type: ir.Int32, Dst: next, Args: []ir.Arg{ir.R(k32), ir.Imm(ir.Int32, 1)}},
		{Op: ir.OpMove, Type: ir.Int32, Dst: k32, Args: []ir.Arg{ir.R(next)}},
		{Op: ir.OpConvert, Type: ir.Int64, From: ir.Int32, Dst: k, Args: []ir.Arg{ir.R(k32)}, Pos: latch.Instrs[at].Pos},
	}
	latch.Instrs = append(latch.Instrs[:at], append(step, latch.Instrs[at+1:]...)...)
}
