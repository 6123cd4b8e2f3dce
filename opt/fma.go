package opt

import "github.com/qdgo/qd/ir"

// FuseMultiplyAdds contracts, in a kernel with the fma option
// (ir.Kernel.FMA), a float multiply and the add or subtract that uses it
// into one fused multiply-add, rounded once: x*y+z, z+x*y, x*y-z (as
// fma(x, y, -z)) and z-x*y (as fma(-x, y, z)), in float32 and float64.
// Go's specification allows this fusion; the results may differ from the
// two roundings of Go on amd64 in the last bits. A multiply is fused only
// where the add is its one use, so that no product is computed twice,
// and where its operands still hold at the add what they held at the
// multiply. A product an explicit conversion rounds reaches the add through a
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
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			for _, a := range b.Instrs[i].Args {
				if !a.Imm {
					uses[a.Reg]++
				}
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm {
			uses[c.Reg]++
		}
	}
	for _, r := range t.Results {
		uses[r]++ // read by the caller
	}
	defs := defSites(t)
	single := singleDefs(t, defs, t.Dominators())
	// product returns where the multiply is that alone computes a, which
	// only the add at reads: one whose operands hold the same values at
	// the add, because each is assigned once, before the multiply, or in
	// the add's block not between the two.
	// Copies between them, as inlined calls leave, are followed.
	product := func(a ir.Arg, typ ir.Type, at site) ([]site, bool) {
		var chain []site
		for {
			if a.Imm || uses[a.Reg] != 1 || !single[a.Reg] {
				return nil, false
			}
			d := defs[a.Reg][0]
			chain = append(chain, d)
			if m := &t.Blocks[d.block].Instrs[d.at]; m.Op != ir.OpMove {
				break
			}
			a = t.Blocks[d.block].Instrs[d.at].Args[0]
		}
		d := chain[len(chain)-1]
		m := &t.Blocks[d.block].Instrs[d.at]
		if m.Op != ir.OpMul || m.Type != typ {
			return nil, false
		}
		for _, x := range m.Args {
			if !x.Imm && !single[x.Reg] && (d.block != at.block || assignedIn(t.Blocks[at.block].Instrs[d.at+1:at.at], x.Reg)) {
				return nil, false
			}
		}
		return chain, true
	}
	type fusion struct {
		mul  ir.Instr
		side int
	}
	plan := map[site]fusion{}
	fused := map[site]bool{}
	for bi, b := range t.Blocks {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			if in.Op != ir.OpAdd && in.Op != ir.OpSub || !in.Type.IsFloat() {
				continue
			}
			for side := range 2 {
				if chain, ok := product(in.Args[side], in.Type, site{bi, i}); ok {
					m := chain[len(chain)-1]
					plan[site{bi, i}] = fusion{t.Blocks[m.block].Instrs[m.at], side}
					for _, c := range chain {
						fused[c] = true
					}
					break
				}
			}
		}
	}
	for bi, b := range t.Blocks {
		var out []ir.Instr
		for i, in := range b.Instrs {
			f, ok := plan[site{bi, i}]
			switch {
			case fused[site{bi, i}]:
				continue // the fma computes it now, or it copied the product
			case in.Op == ir.OpConvert && in.Type == in.From && in.Type.IsFloat():
				// Nothing fuses after this pass: the rounding a
				// conversion marked is a plain copy again.
				in.Op, in.From = ir.OpMove, ir.Invalid
			case ok:
				x, y, z := f.mul.Args[0], f.mul.Args[1], in.Args[1-f.side]
				switch {
				case in.Op == ir.OpSub && f.side == 0: // x*y - z
					z, out = negate(t, in, z, out)
				case in.Op == ir.OpSub: // z - x*y
					x, out = negate(t, in, x, out)
				}
				in = ir.Instr{Op: ir.OpFMA, Type: in.Type, Dst: in.Dst, Args: []ir.Arg{x, y, z}, Pos: in.Pos}
			}
			out = append(out, in)
		}
		b.Instrs = out
	}
}

// assignedIn reports whether an instruction of instrs assigns r.
func assignedIn(instrs []ir.Instr, r ir.Reg) bool {
	for i := range instrs {
		for _, d := range instrs[i].Defs() {
			if d == r {
				return true
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
