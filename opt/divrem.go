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
			var r ir.Reg = ir.NoReg
			if in.Op == ir.OpRem || partner >= 0 && b.Instrs[partner].Op == ir.OpRem {
				r = t.NewReg(in.Type)
			}
			b.Instrs[i] = ir.Instr{Op: ir.OpMove, Type: in.Type, Dst: in.Dst, Pos: in.Pos}
			rest := quotient(t, b, i, in, q, r)
			// rest starts with that move, then what followed it in b.
			at, partnerAt := 0, partner-i
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
		for _, d := range x.Defs() {
			if d == in.Dst || argIs(in.Args[0], d) || argIs(in.Args[1], d) {
				return -1
			}
		}
	}
	return -1
}

func argIs(a ir.Arg, r ir.Reg) bool { return !a.Imm && a.Reg == r }

// remainder appends r = x - q*y to b, for the operands of div.
func remainder(t *ir.Task, b *ir.Block, typ ir.Type, x, y ir.Arg, q, r ir.Reg) {
	prod := t.NewReg(typ)
	b.Instrs = append(b.Instrs,
		ir.Instr{Op: ir.OpMul, Type: typ, Dst: prod, Args: []ir.Arg{ir.R(q), y}},
		ir.Instr{Op: ir.OpSub, Type: typ, Dst: r, Args: []ir.Arg{x, ir.R(prod)}})
}

// quotient computes q = x/y, and r = x%y unless r is NoReg, for the
// division or remainder div, which was at index at of b, and returns the
// block where execution continues, whose first instruction is what was at
// index at. A 64-bit division branches, and each path takes the remainder
// in its own width:
//
//	b:     fits = uint32((x|y) >> 32) == 0; branch fits, fast, slow
//	fast:  q, r = x/y, x%y in 32 bits, converted; jump rest
//	slow:  q, r = x/y, x%y in 64 bits; jump rest
func quotient(t *ir.Task, b *ir.Block, at int, div ir.Instr, q, r ir.Reg) *ir.Block {
	typ := div.Type
	x, y := div.Args[0], div.Args[1]
	rest := splitBlock(t, b, at)
	divide := func(b *ir.Block, typ ir.Type, x, y ir.Arg, q, r ir.Reg) {
		b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpDiv, Type: typ, Dst: q, Args: []ir.Arg{x, y}, Pos: div.Pos})
		if r != ir.NoReg {
			remainder(t, b, typ, x, y, q, r)
		}
	}
	if typ.Bits() != 64 {
		divide(b, typ, x, y, q, r)
		return rest
	}
	u := ir.Uint64
	unsigned := func(a ir.Arg) ir.Arg {
		if typ == u || a.Imm {
			return a
		}
		reg := t.NewReg(u)
		b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpConvert, Type: u, From: typ, Dst: reg, Args: []ir.Arg{a}})
		return ir.R(reg)
	}
	ux, uy := unsigned(x), unsigned(y)
	// The high word is compared in 32 bits: a 64-bit comparison with 0
	// would also test the zeros the shift put above it.
	both, high, high32, fits := t.NewReg(u), t.NewReg(u), t.NewReg(ir.Uint32), t.NewReg(ir.Bool)
	b.Instrs = append(b.Instrs,
		ir.Instr{Op: ir.OpOr, Type: u, Dst: both, Args: []ir.Arg{ux, uy}},
		ir.Instr{Op: ir.OpShr, Type: u, From: ir.Uint32, Dst: high, Args: []ir.Arg{ir.R(both), ir.Imm(ir.Uint32, 32)}},
		ir.Instr{Op: ir.OpConvert, Type: ir.Uint32, From: u, Dst: high32, Args: []ir.Arg{ir.R(high)}},
		ir.Instr{Op: ir.OpEq, Type: ir.Uint32, Dst: fits, Args: []ir.Arg{ir.R(high32), ir.Imm(ir.Uint32, 0)}})
	fast, slow := t.NewBlock("divide in 32 bits"), t.NewBlock("divide in 64 bits")
	b.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(fits), Succs: [2]int{fast.Index, slow.Index}}
	x32, y32, q32 := t.NewReg(ir.Uint32), t.NewReg(ir.Uint32), t.NewReg(ir.Uint32)
	fast.Instrs = []ir.Instr{
		{Op: ir.OpConvert, Type: ir.Uint32, From: typ, Dst: x32, Args: []ir.Arg{x}},
		{Op: ir.OpConvert, Type: ir.Uint32, From: typ, Dst: y32, Args: []ir.Arg{y}},
	}
	r32 := ir.NoReg
	if r != ir.NoReg {
		r32 = t.NewReg(ir.Uint32)
	}
	divide(fast, ir.Uint32, ir.R(x32), ir.R(y32), q32, r32)
	fast.Instrs = append(fast.Instrs, ir.Instr{Op: ir.OpConvert, Type: typ, From: ir.Uint32, Dst: q, Args: []ir.Arg{ir.R(q32)}})
	if r != ir.NoReg {
		fast.Instrs = append(fast.Instrs, ir.Instr{Op: ir.OpConvert, Type: typ, From: ir.Uint32, Dst: r, Args: []ir.Arg{ir.R(r32)}})
	}
	fast.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{rest.Index}}
	divide(slow, typ, x, y, q, r)
	slow.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{rest.Index}}
	return rest
}
