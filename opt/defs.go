package opt

import "github.com/qdgo/qd/ir"

// The IR is not SSA: a register may be assigned in several places (the
// moves that replaced phis, the copies of unrolled loops). Most registers
// are still assigned once, by an instruction that dominates their uses, as
// go/ssa made them; the passes that move or share computations work on
// those, which they find here.

// site is where an instruction is: its block and its index in the block.
type site struct{ block, at int }

// defSites lists, for each register, the instructions that assign it.
func defSites(t *ir.Task) [][]site {
	defs := make([][]site, len(t.Regs))
	for bi, b := range t.Blocks {
		for i := range b.Instrs {
			for _, d := range b.Instrs[i].Defs() {
				defs[d] = append(defs[d], site{bi, i})
			}
		}
	}
	return defs
}

// dominates reports whether the instruction at a runs before the one at b
// on every path from the entry to b.
func dominates(dom []ir.BlockSet, a, b site) bool {
	if a.block == b.block {
		return a.at < b.at
	}
	return dom[b.block].Has(a.block)
}

// singleDef reports whether r is assigned exactly once and that assignment
// dominates every read of it, so that r names one value wherever it is read.
func singleDef(t *ir.Task, defs [][]site, dom []ir.BlockSet, r ir.Reg) bool {
	if len(defs[r]) != 1 {
		return false
	}
	d := defs[r][0]
	for bi, b := range t.Blocks {
		for i := range b.Instrs {
			for _, a := range b.Instrs[i].Args {
				if !a.Imm && a.Reg == r && !dominates(dom, d, site{bi, i}) {
					return false
				}
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm && c.Reg == r && !dominates(dom, d, site{bi, len(b.Instrs)}) {
			return false
		}
	}
	return true
}

// singleDefs computes singleDef for every register at once.
func singleDefs(t *ir.Task, defs [][]site, dom []ir.BlockSet) []bool {
	ok := make([]bool, len(t.Regs))
	for r := range ok {
		ok[r] = len(defs[r]) == 1
	}
	check := func(a ir.Arg, at site) {
		if !a.Imm && ok[a.Reg] && !dominates(dom, defs[a.Reg][0], at) {
			ok[a.Reg] = false
		}
	}
	for bi, b := range t.Blocks {
		for i := range b.Instrs {
			for _, a := range b.Instrs[i].Args {
				check(a, site{bi, i})
			}
		}
		if b.Term.Kind == ir.Branch {
			check(b.Term.Cond, site{bi, len(b.Instrs)})
		}
	}
	return ok
}

// preheader returns a block outside lp that is the loop's only entry:
// every edge into the header from outside the loop comes from it. One is
// made when the header has several such predecessors or one that has
// other successors too.
func preheader(t *ir.Task, lp *ir.Loop) *ir.Block {
	preds := t.Preds()
	var outside []int
	for _, p := range preds[lp.Header] {
		if !lp.Has(p) {
			outside = append(outside, p)
		}
	}
	if len(outside) == 1 && t.Blocks[outside[0]].Term.Kind == ir.Jump && outside[0] != 0 {
		return t.Blocks[outside[0]]
	}
	pre := t.NewBlock("preheader")
	pre.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{lp.Header}}
	for _, p := range outside {
		succs := t.Blocks[p].Term.Successors()
		for j, s := range succs {
			if s == lp.Header {
				succs[j] = pre.Index
			}
		}
	}
	return pre
}

// definedIn reports which registers are assigned in the blocks of lp.
func definedIn(t *ir.Task, lp *ir.Loop) []bool {
	in := make([]bool, len(t.Regs))
	for _, bi := range lp.Blocks() {
		for _, x := range t.Blocks[bi].Instrs {
			for _, d := range x.Defs() {
				in[d] = true
			}
		}
	}
	return in
}

// splitBlock moves the instructions of b from index at on, and its
// terminator, into a new block, which it returns; b is left without a
// terminator for the caller to set.
func splitBlock(t *ir.Task, b *ir.Block, at int) *ir.Block {
	rest := t.NewBlock(b.Comment)
	rest.Checked = b.Checked
	rest.Instrs = append([]ir.Instr(nil), b.Instrs[at:]...)
	rest.Term = b.Term
	b.Instrs = b.Instrs[:at:at]
	b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{rest.Index}}
	return rest
}
