package opt

import "github.com/qdgo/qd/ir"

// FuseDivRem divides once for a division and a remainder of the same
// operands, x/y and x%y, taking the remainder as x - (x/y)*y, which Go's
// truncated division makes exact (x/-1 included, whose remainder is 0).
// A 64-bit division by a variable, which the GPU does in a long software
// routine, first tests at run time whether both operands fit in 32
// unsigned bits, and if so divides in 32 bits: for signed operands both
// are then non-negative, where signed and unsigned division agree.
func FuseDivRem(t *ir.Task) {
	// The blocks to visit: the task's, and the rest of each block split;
	// the divisions this pass makes are not visited again.
	work := append([]*ir.Block(nil), t.Blocks...)
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for i := 0; i < len(b.Instrs); i++ {
			in := b.Instrs[i]
			if in.Op != ir.OpDiv && in.Op != ir.OpRem || !in.Type.IsInteger() || in.Args[1].Imm || in.Type.Bits() < 32 {
				continue
			}
			partner := findPartner(b, i)
			q := t.NewReg(in.Type)
			b.Instrs[i] = ir.Instr{Op: ir.OpMove, Type: in.Type, Dst: in.Dst, Pos: in.Pos}
			rest := quotient(t, b, i, in, q)
			// rest starts with that move, then what followed it in b.
			at, partnerAt := 0, partner-i
			var r ir.Reg = ir.NoReg
			if in.Op == ir.OpRem || partner >= 0 && rest.Instrs[partnerAt].Op == ir.OpRem {
				r = remainderOf(t, rest, 0, in, q)
				at, partnerAt = at+2, partnerAt+2
			}
			result := func(op ir.Op) ir.Arg {
				if op == ir.OpDiv {
					return ir.R(q)
				}
				return ir.R(r)
			}
			rest.Instrs[at].Args = []ir.Arg{result(in.Op)}
			if partner >= 0 {
				p := rest.Instrs[partnerAt]
				rest.Instrs[partnerAt] = ir.Instr{Op: ir.OpMove, Type: p.Type, Dst: p.Dst, Args: []ir.Arg{result(p.Op)}, Pos: p.Pos}
			}
			work = append(work, rest)
			break
		}
	}
}

// findPartner finds, after the division or remainder at i, the other of
// the pair with the same operands, before either operand or the first
// result is assigned again; -1 if there is none.
func findPartner(b *ir.Block, i int) int {
	in := b.Instrs[i]
	if argIs(in.Args[0], in.Dst) || argIs(in.Args[1], in.Dst) {
		return -1
	}
	want := ir.OpRem
	if in.Op == ir.OpRem {
		want = ir.OpDiv
	}
	for j := i + 1; j < len(b.Instrs); j++ {
		x := b.Instrs[j]
		if x.Op == want && x.Type == in.Type && x.Args[0] == in.Args[0] && x.Args[1] == in.Args[1] {
			return j
		}
		if x.Dst != ir.NoReg && (x.Dst == in.Dst || argIs(in.Args[0], x.Dst) || argIs(in.Args[1], x.Dst)) {
			return -1
		}
	}
	return -1
}

func argIs(a ir.Arg, r ir.Reg) bool { return !a.Imm && a.Reg == r }

// remainderOf inserts r = x - q*y before index at of b and returns r.
func remainderOf(t *ir.Task, b *ir.Block, at int, div ir.Instr, q ir.Reg) ir.Reg {
	typ := div.Type
	prod, r := t.NewReg(typ), t.NewReg(typ)
	seq := []ir.Instr{
		{Op: ir.OpMul, Type: typ, Dst: prod, Args: []ir.Arg{ir.R(q), div.Args[1]}, Pos: div.Pos},
		{Op: ir.OpSub, Type: typ, Dst: r, Args: []ir.Arg{div.Args[0], ir.R(prod)}, Pos: div.Pos},
	}
	b.Instrs = append(b.Instrs[:at], append(seq, b.Instrs[at:]...)...)
	return r
}

// quotient computes q = x/y for the division or remainder div, which was at
// index at of b, and returns the block where execution continues, whose
// first instruction is what was at index at. A 64-bit quotient branches:
//
//	b:     fits = (x|y) >> 32 == 0; branch fits, fast, slow
//	fast:  q = convert(div.u32(convert x, convert y)); jump rest
//	slow:  q = div x, y; jump rest
func quotient(t *ir.Task, b *ir.Block, at int, div ir.Instr, q ir.Reg) *ir.Block {
	typ := div.Type
	x, y := div.Args[0], div.Args[1]
	rest := splitBlock(t, b, at)
	if typ.Bits() != 64 {
		b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpDiv, Type: typ, Dst: q, Args: []ir.Arg{x, y}, Pos: div.Pos})
		return rest
	}
	u := ir.Uint64
	unsigned := func(a ir.Arg) ir.Arg {
		if typ == u || a.Imm {
			return a
		}
		r := t.NewReg(u)
		b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpConvert, Type: u, From: typ, Dst: r, Args: []ir.Arg{a}})
		return ir.R(r)
	}
	ux, uy := unsigned(x), unsigned(y)
	both, high, fits := t.NewReg(u), t.NewReg(u), t.NewReg(ir.Bool)
	b.Instrs = append(b.Instrs,
		ir.Instr{Op: ir.OpOr, Type: u, Dst: both, Args: []ir.Arg{ux, uy}},
		ir.Instr{Op: ir.OpShr, Type: u, From: ir.Uint32, Dst: high, Args: []ir.Arg{ir.R(both), ir.Imm(ir.Uint32, 32)}},
		ir.Instr{Op: ir.OpEq, Type: u, Dst: fits, Args: []ir.Arg{ir.R(high), ir.Imm(u, 0)}})
	fast, slow := t.NewBlock("divide in 32 bits"), t.NewBlock("divide in 64 bits")
	b.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(fits), Succs: [2]int{fast.Index, slow.Index}}
	x32, y32, q32 := t.NewReg(ir.Uint32), t.NewReg(ir.Uint32), t.NewReg(ir.Uint32)
	fast.Instrs = []ir.Instr{
		{Op: ir.OpConvert, Type: ir.Uint32, From: typ, Dst: x32, Args: []ir.Arg{x}},
		{Op: ir.OpConvert, Type: ir.Uint32, From: typ, Dst: y32, Args: []ir.Arg{y}},
		{Op: ir.OpDiv, Type: ir.Uint32, Dst: q32, Args: []ir.Arg{ir.R(x32), ir.R(y32)}, Pos: div.Pos},
		{Op: ir.OpConvert, Type: typ, From: ir.Uint32, Dst: q, Args: []ir.Arg{ir.R(q32)}},
	}
	fast.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{rest.Index}}
	slow.Instrs = []ir.Instr{{Op: ir.OpDiv, Type: typ, Dst: q, Args: []ir.Arg{x, y}, Pos: div.Pos}}
	slow.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{rest.Index}}
	return rest
}
