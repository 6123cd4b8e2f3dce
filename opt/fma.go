package opt

import "github.com/qdgo/qd/ir"

// FuseMultiplyAdds contracts, in a kernel with the fma option
// (ir.Kernel.FMA), a float multiply and the add or subtract that uses it
// into one fused multiply-add, rounded once: x*y+z, z+x*y, x*y-z (as
// fma(x, y, -z)) and z-x*y (as fma(-x, y, z)), in float32 and float64.
// Go's specification allows this fusion; the results may differ from the
// two roundings of Go on amd64 in the last bits. A multiply is fused only
// where the add is its one use, so that no product is computed twice, and
// only in the add's block, after which its operands still hold what it
// read. A product an explicit conversion rounds reaches the add through a
// convert to its own type, which is not a multiply; once nothing can fuse,
// those converts become moves. Kernels without the option are left as
// they are: Go's results, bit for bit.
func FuseMultiplyAdds(k *ir.Kernel) {
	if !k.FMA {
		return
	}
	for _, t := range k.Bodies() {
		fuseTask(t)
	}
}

func fuseTask(t *ir.Task) {
	uses := make([]int, len(t.Regs))
	defs := make([]int, len(t.Regs))
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			for _, a := range b.Instrs[i].Args {
				if !a.Imm {
					uses[a.Reg]++
				}
			}
			for _, d := range b.Instrs[i].Defs() {
				defs[d]++
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm {
			uses[c.Reg]++
		}
	}
	for _, r := range t.Results {
		uses[r]++ // read by the caller
	}
	for _, b := range t.Blocks {
		fuseBlock(t, b, uses, defs)
		for i := range b.Instrs {
			if in := &b.Instrs[i]; in.Op == ir.OpConvert && in.Type == in.From && in.Type.IsFloat() {
				in.Op, in.From = ir.OpMove, ir.Invalid
			}
		}
	}
}

// fuseBlock fuses the multiplies of b into the adds and subtracts of b
// that are their one use.
func fuseBlock(t *ir.Task, b *ir.Block, uses, defs []int) {
	// product returns the index of the multiply before at that alone
	// assigns a, which only instruction at reads, when its operands keep
	// their values up to at.
	product := func(a ir.Arg, typ ir.Type, at int) (int, bool) {
		if a.Imm || uses[a.Reg] != 1 || defs[a.Reg] != 1 {
			return 0, false
		}
		for j := at - 1; j >= 0; j-- {
			if m := &b.Instrs[j]; m.Dst == a.Reg {
				return j, m.Op == ir.OpMul && m.Type == typ && !assignedIn(b.Instrs[j+1:at], m.Args)
			}
		}
		return 0, false
	}
	type fusion struct{ mul, side int }
	plan := map[int]fusion{}
	fused := map[int]bool{}
	for i := range b.Instrs {
		in := &b.Instrs[i]
		if in.Op != ir.OpAdd && in.Op != ir.OpSub || !in.Type.IsFloat() {
			continue
		}
		for side := range 2 {
			if j, ok := product(in.Args[side], in.Type, i); ok && !fused[j] {
				plan[i], fused[j] = fusion{j, side}, true
				break
			}
		}
	}
	if len(plan) == 0 {
		return
	}
	var out []ir.Instr
	for i, in := range b.Instrs {
		f, ok := plan[i]
		switch {
		case fused[i]:
			continue // computed by the fma now
		case !ok:
			out = append(out, in)
			continue
		}
		m := b.Instrs[f.mul]
		x, y, z := m.Args[0], m.Args[1], in.Args[1-f.side]
		switch {
		case in.Op == ir.OpSub && f.side == 0: // x*y - z
			z, out = negate(t, in, z, out)
		case in.Op == ir.OpSub: // z - x*y
			x, out = negate(t, in, x, out)
		}
		out = append(out, ir.Instr{Op: ir.OpFMA, Type: in.Type, Dst: in.Dst, Args: []ir.Arg{x, y, z}, Pos: in.Pos})
	}
	b.Instrs = out
}

// assignedIn reports whether an instruction of instrs assigns one of the
// registers args.
func assignedIn(instrs []ir.Instr, args []ir.Arg) bool {
	for i := range instrs {
		for _, d := range instrs[i].Defs() {
			for _, a := range args {
				if !a.Imm && a.Reg == d {
					return true
				}
			}
		}
	}
	return false
}

// negate returns -a for the fma that replaces in: an immediate with its
// sign flipped, or a new register that a neg, appended to out, computes.
// Negation is exact, so fma(x, y, -z) rounds x*y - z once.
func negate(t *ir.Task, in ir.Instr, a ir.Arg, out []ir.Instr) (ir.Arg, []ir.Instr) {
	if a.Imm {
		return ir.Imm(in.Type, a.Bits^(1<<(in.Type.Bits()-1))), out
	}
	r := t.NewReg(in.Type)
	return ir.R(r), append(out, ir.Instr{Op: ir.OpNeg, Type: in.Type, Dst: r, Args: []ir.Arg{a}, Pos: in.Pos})
}
