package lower

import (
	"github.com/qdgo/qd/check"
	"github.com/qdgo/qd/ir"
)

// This file gives a parallel loop a serial version, for a loop whose
// iterations are distinct only under conditions on the kernel's parameters
// and lengths (check.Result.Conditions): x[i*stride] touches one element
// per iteration unless stride is 0. Each thread tests the conditions
// before its first iteration. Where they hold, the loop runs in parallel;
// where they do not, thread 0 runs every iteration in Go's order, striding
// by 1, and the other threads leave at once, as threads beyond the
// iterations do, so reductions and the launch are unchanged.

// serialSwitch is where a loop task built by buildLoop can choose: the
// end of its setup block, which goes on to first; exit, where threads
// without iterations go; the thread's index and the grid stride, of type
// wide.
type serialSwitch struct {
	setup, first, exit *ir.Block
	tid, count         ir.Arg
	wide               ir.Type
}

// insert makes task t test conds at the end of its setup:
//
//	setup:   ...; ok = conds; branch ok, first, serial
//	serial:  branch tid == 0, one, exit
//	one:     count = 1; jump first
func (s *serialSwitch) insert(t *ir.Task, conds []check.Condition) {
	b := s.setup
	var ok ir.Arg
	for i, c := range conds {
		r := emitExpr(t, b, c.Test)
		if i == 0 {
			ok = r
			continue
		}
		dst := t.NewReg(ir.Bool)
		b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpAnd, Type: ir.Bool, Dst: dst, Args: []ir.Arg{ok, r}})
		ok = ir.R(dst)
	}
	serial, one := t.NewBlock("serial version"), t.NewBlock("serial version's thread")
	b.Term = ir.Term{Kind: ir.Branch, Cond: ok, Succs: [2]int{s.first.Index, serial.Index}}
	first := t.NewReg(ir.Bool)
	serial.Instrs = append(serial.Instrs, ir.Instr{Op: ir.OpEq, Type: s.wide, Dst: first, Args: []ir.Arg{s.tid, ir.Imm(s.wide, 0)}})
	serial.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(first), Succs: [2]int{one.Index, s.exit.Index}}
	one.Instrs = append(one.Instrs, ir.Instr{Op: ir.OpMove, Type: s.wide, Dst: s.count.Reg, Args: []ir.Arg{ir.Imm(s.wide, 1)}})
	one.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{s.first.Index}}
}

// emitExpr appends to b the instructions that compute a launch expression
// and returns its value.
func emitExpr(t *ir.Task, b *ir.Block, e *ir.Expr) ir.Arg {
	if e.Op == ir.OpConst {
		return ir.Imm(e.Type, e.Bits)
	}
	in := ir.Instr{Op: e.Op, Type: e.Type, From: e.From, Aux: e.Aux}
	for _, a := range e.Args {
		in.Args = append(in.Args, emitExpr(t, b, a))
	}
	result := e.Type
	if e.Op.Info().Result == ir.Fixed(ir.Bool) {
		result = ir.Bool
	}
	in.Dst = t.NewReg(result)
	b.Instrs = append(b.Instrs, in)
	return ir.R(in.Dst)
}
