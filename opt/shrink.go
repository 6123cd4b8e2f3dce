package opt

import "github.com/qdgo/qd/ir"

// ShrinkLiveRanges moves a comparison that is the last read of a 64-bit
// value up to just after the value's assignment, so that the value's two
// 32-bit registers die at its previous read and only the one-bit result
// stays live until it is used. Go's math.Pow tests y < 0 at its very end:
// without this, y is held across Log, Exp and the squaring loop, and the
// registers that costs leave room for 6 blocks of 256 threads on a
// multiprocessor instead of 8. A comparison is pure and cannot fault, so
// running it earlier, on paths that may not reach it, changes no result;
// it moves when the value is assigned once, before every read (so the
// value it compares is the same there), and its result is assigned only
// by it.
func ShrinkLiveRanges(t *ir.Task) {
	// Each round moves the last reads; what was read before them may then
	// be a last read.
	for round := 0; round < 8 && shrink(t); round++ {
	}
}

// shrink moves the comparisons that are last reads and reports whether
// any moved.
func shrink(t *ir.Task) bool {
	dom := t.Dominators()
	defs := defSites(t)
	single := singleDefs(t, defs, dom)
	live := liveOut(t)
	after := map[site][]ir.Instr{} // comparisons to insert after a site
	moved := map[site]bool{}
	for bi, b := range t.Blocks {
		for i := range b.Instrs {
			x := &b.Instrs[i]
			r, ok := shrinkable(t, x, single, defs)
			if !ok || readAfter(t, live, r, bi, i) {
				continue
			}
			d := defs[r][0]
			if d.block == bi && d.at+1 == i {
				continue // already there
			}
			after[d] = append(after[d], *x)
			moved[site{bi, i}] = true
		}
	}
	if len(moved) == 0 {
		return false
	}
	for bi, b := range t.Blocks {
		var out []ir.Instr
		for i, x := range b.Instrs {
			if !moved[site{bi, i}] {
				out = append(out, x)
			}
			out = append(out, after[site{bi, i}]...)
		}
		b.Instrs = out
	}
	return true
}

// shrinkable returns the 64-bit register x compares with immediates (or
// with itself) when x is a comparison that may move to that register's
// assignment.
func shrinkable(t *ir.Task, x *ir.Instr, single []bool, defs [][]site) (ir.Reg, bool) {
	switch x.Op {
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
	default:
		return 0, false
	}
	if x.Type.Size() != 8 || len(defs[x.Dst]) != 1 {
		return 0, false
	}
	r := ir.NoReg
	for _, a := range x.Args {
		switch {
		case a.Imm:
		case r == ir.NoReg || r == a.Reg:
			r = a.Reg
		default:
			return 0, false
		}
	}
	if r == ir.NoReg || !single[r] || len(defs[r]) != 1 {
		return 0, false
	}
	return r, true
}

// readAfter reports whether r may be read after instruction i of block bi.
func readAfter(t *ir.Task, live []regSet, r ir.Reg, bi, i int) bool {
	b := t.Blocks[bi]
	for _, x := range b.Instrs[i+1:] {
		for _, a := range x.Args {
			if !a.Imm && a.Reg == r {
				return true
			}
		}
	}
	if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm && c.Reg == r {
		return true
	}
	return live[bi].has(r)
}

// regSet is a set of registers.
type regSet []uint64

func (s regSet) has(r ir.Reg) bool { return s[r/64]&(1<<(r%64)) != 0 }
func (s regSet) add(r ir.Reg)      { s[r/64] |= 1 << (r % 64) }

// liveOut computes, for each block, the registers that may be read after
// it before they are assigned again.
func liveOut(t *ir.Task) []regSet {
	words := (len(t.Regs) + 63) / 64
	n := len(t.Blocks)
	use, def := make([]regSet, n), make([]regSet, n)
	in, out := make([]regSet, n), make([]regSet, n)
	for bi, b := range t.Blocks {
		use[bi], def[bi] = make(regSet, words), make(regSet, words)
		in[bi], out[bi] = make(regSet, words), make(regSet, words)
		read := func(a ir.Arg) {
			if !a.Imm && !def[bi].has(a.Reg) {
				use[bi].add(a.Reg)
			}
		}
		for _, x := range b.Instrs {
			for _, a := range x.Args {
				read(a)
			}
			for _, d := range x.Defs() {
				def[bi].add(d)
			}
		}
		if b.Term.Kind == ir.Branch {
			read(b.Term.Cond)
		}
	}
	for changed := true; changed; {
		changed = false
		for bi := n - 1; bi >= 0; bi-- {
			for _, s := range t.Blocks[bi].Term.Successors() {
				for w := range out[bi] {
					out[bi][w] |= in[s][w]
				}
			}
			for w := range in[bi] {
				v := use[bi][w] | out[bi][w]&^def[bi][w]
				if v != in[bi][w] {
					in[bi][w] = v
					changed = true
				}
			}
		}
	}
	return out
}
