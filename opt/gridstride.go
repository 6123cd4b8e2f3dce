package opt

import "github.com/qdgo/qd/ir"

// DropGridStrideTests removes the loop's own exit test from the body of a
// grid-stride loop. The lowering keeps the source loop's test, p+1 < n,
// before the latch advances the thread's index i by the grid, where the
// head tests i < n again: when p+1 < n fails, so does the head's test
// after the latch, since the grid has at least one thread. One test per
// iteration goes, as in the loop nvcc makes of the same source.
//
// The head must be "if i < n goto body else exit", the latch "i += count"
// with count the grid size, and the test "p+1 < n" for p a copy of i, with
// the same n, leaving to the same exit.
func DropGridStrideTests(t *ir.Task) {
	if t.Kind != ir.Parallel {
		return
	}
	defs := defSites(t)
	dom := t.Dominators()
	single := singleDefs(t, defs, dom)
	defOf := func(a ir.Arg) *ir.Instr {
		if a.Imm || !single[a.Reg] {
			return nil
		}
		s := defs[a.Reg][0]
		return &t.Blocks[s.block].Instrs[s.at]
	}
	for _, lp := range t.Loops() {
		head := t.Blocks[lp.Header]
		if head.Term.Kind != ir.Branch || len(lp.Latches) != 1 {
			continue
		}
		test := defOf(head.Term.Cond)
		exit := head.Term.Succs[1]
		if test == nil || test.Op != ir.OpLt || test.Args[0].Imm {
			continue
		}
		// The head tests i+d < n, d often 0; the range s form has d = 1.
		index, d := offsetOf(defOf, test.Args[0].Reg)
		if !advancesByGrid(t, defs, t.Blocks[lp.Latches[0]], index) {
			continue
		}
		bound := test.Args[1]
		inLoop := definedIn(t, lp)
		if !bound.Imm && inLoop[bound.Reg] || assignedOutside(defs[index], lp, lp.Latches[0]) {
			continue
		}
		for _, bi := range lp.Blocks() {
			b := t.Blocks[bi]
			if bi == lp.Header || b.Term.Kind != ir.Branch || b.Term.Succs[1] != exit {
				continue
			}
			cmp := defOf(b.Term.Cond)
			if cmp == nil || cmp.Op != ir.OpLt || cmp.Type != test.Type || cmp.Args[1] != bound {
				continue
			}
			// p+e < n with p a copy of i fails only if i+count+d < n
			// would: count >= 1, so e <= d+1 suffices.
			if cmp.Args[0].Imm {
				continue
			}
			p, e := offsetOf(defOf, cmp.Args[0].Reg)
			if e > d+1 || e < 0 {
				continue
			}
			if x := defOf(ir.R(p)); x == nil || x.Op != ir.OpMove || x.Args[0] != ir.R(index) || !lp.Has(defs[p][0].block) {
				continue
			}
			b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{b.Term.Succs[0]}}
		}
	}
}

// advancesByGrid reports whether latch assigns i = i + threadcount, and
// nothing else assigns i but that and code outside the loop.
func advancesByGrid(t *ir.Task, defs [][]site, latch *ir.Block, i ir.Reg) bool {
	for _, x := range latch.Instrs {
		if x.Dst != i || x.Op != ir.OpAdd || x.Args[0] != ir.R(i) || x.Args[1].Imm {
			continue
		}
		return isThreadCount(t, defs, x.Args[1].Reg)
	}
	return false
}

// isThreadCount reports whether r holds the grid's thread count, in the
// type of the loop's index.
func isThreadCount(t *ir.Task, defs [][]site, r ir.Reg) bool {
	for range 4 {
		c := defs[r]
		if len(c) != 1 {
			return false
		}
		x := t.Blocks[c[0].block].Instrs[c[0].at]
		switch {
		case x.Op == ir.OpThreadCount:
			return true
		case (x.Op == ir.OpConvert || x.Op == ir.OpMove) && x.Type.Bits() == 64 && !x.Args[0].Imm:
			r = x.Args[0].Reg
		default:
			return false
		}
	}
	return false
}

// assignedOutside reports whether one of sites is in the loop but not in
// its latch.
func assignedOutside(sites []site, lp *ir.Loop, latch int) bool {
	for _, s := range sites {
		if lp.Has(s.block) && s.block != latch {
			return true
		}
	}
	return false
}

// offsetOf splits r into a register and a small constant it adds to it:
// r itself and 0, or x and c for r = x + c.
func offsetOf(defOf func(ir.Arg) *ir.Instr, r ir.Reg) (ir.Reg, int64) {
	x := defOf(ir.R(r))
	if x == nil || x.Op != ir.OpAdd || x.Args[0].Imm || !x.Args[1].Imm || !x.Type.IsSigned() {
		return r, 0
	}
	c := int64(x.Args[1].Bits)
	if c < -1<<20 || c > 1<<20 {
		return r, 0
	}
	return x.Args[0].Reg, c
}
