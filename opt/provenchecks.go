package opt

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

// RemoveProvenChecks deletes the index, slice and division checks
// that cannot fail:
//
//   - a check of constants that holds;
//   - a check of the same values as a check that ran before it on every
//     path: had that one failed, the thread would have ended there;
//   - in a grid-stride loop whose head tests i+d < n, a check that i+d is
//     an index of a slice of length n, when i starts at the thread's
//     index plus c with c+d >= 0, so that i+d is never negative: for
//     s[i] in a loop over range len(s), which every parallel loop over a
//     slice is.
func RemoveProvenChecks(t *ir.Task) {
	defs := defSites(t)
	dom := t.Dominators()
	single := singleDefs(t, defs, dom)
	source := copySource(t, defs, single)
	proven := provenIndices(t, defs, single, source)
	seen := map[string][]site{}
	// The blocks keep their instructions until every block is done:
	// source reads definitions by their sites.
	order := reversePostorder(t)
	kepts := make([][]ir.Instr, len(t.Blocks))
	for _, bi := range order {
		b := t.Blocks[bi]
		var kept []ir.Instr
		for i, x := range b.Instrs {
			if !x.Op.Info().Checks || !checkOperandsFixed(x, single) {
				kept = append(kept, x)
				continue
			}
			if x.Op == ir.OpCheckIndex && proven[indexKey(source(x.Args[0]), source(x.Args[1]))] || passes(x, source) {
				continue
			}
			key := ir.Instr{Op: x.Op, Type: x.Type, Args: []ir.Arg{source(x.Args[0])}}
			if len(x.Args) > 1 {
				key.Args = append(key.Args, source(x.Args[1]))
			}
			k := fmt.Sprint(key.Op, key.Type, key.Args)
			redundant := false
			for _, s := range seen[k] {
				if dominates(dom, s, site{bi, i}) {
					redundant = true
					break
				}
			}
			if redundant {
				continue
			}
			seen[k] = append(seen[k], site{bi, i})
			kept = append(kept, x)
		}
		kepts[bi] = kept
	}
	for _, bi := range order {
		t.Blocks[bi].Instrs = kepts[bi]
	}
}

// checkOperandsFixed reports whether a check's register operands are
// assigned once, so that equal operands are equal values.
func checkOperandsFixed(x ir.Instr, single []bool) bool {
	for _, a := range x.Args {
		if !a.Imm && !single[a.Reg] {
			return false
		}
	}
	return true
}

func indexKey(index, length ir.Arg) [2]ir.Arg { return [2]ir.Arg{index, length} }

// provenIndices finds, for each grid-stride loop of a parallel task, the
// index i+d its head tests against n, as registers p+e with p a copy of i
// made in the loop and e = d; those indices are in [0, n) in the loop.
func provenIndices(t *ir.Task, defs [][]site, single []bool, source func(ir.Arg) ir.Arg) map[[2]ir.Arg]bool {
	proven := map[[2]ir.Arg]bool{}
	if t.Kind != ir.Parallel {
		return proven
	}
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
		if test == nil || test.Op != ir.OpLt || test.Type != ir.Int64 || test.Args[0].Imm {
			continue
		}
		index, d := offsetOf(defOf, test.Args[0].Reg)
		if !advancesByGrid(t, defs, t.Blocks[lp.Latches[0]], index) || assignedOutside(defs[index], lp, lp.Latches[0]) {
			continue
		}
		start, ok := gridStart(t, defs, lp, index)
		if !ok || start+d < 0 {
			continue
		}
		n := source(test.Args[1])
		// The copies of i in the loop, and the registers holding copy+d.
		for _, bi := range lp.Blocks() {
			if bi == lp.Header {
				continue
			}
			for _, x := range t.Blocks[bi].Instrs {
				if x.Dst == ir.NoReg || !single[x.Dst] {
					continue
				}
				p, e := offsetOf(defOf, x.Dst)
				if e != d {
					continue
				}
				if c := defOf(ir.R(p)); c != nil && c.Op == ir.OpMove && c.Args[0] == ir.R(index) && lp.Has(defs[p][0].block) && defs[p][0].block != lp.Header {
					proven[indexKey(source(ir.R(x.Dst)), n)] = true
				}
			}
		}
	}
	return proven
}

// gridStart finds c for the index i of a grid-stride loop assigned, once
// outside the loop, i = threadindex + c (or threadindex itself).
func gridStart(t *ir.Task, defs [][]site, lp *ir.Loop, i ir.Reg) (int64, bool) {
	var outside []site
	for _, s := range defs[i] {
		if !lp.Has(s.block) {
			outside = append(outside, s)
		}
	}
	if len(outside) != 1 {
		return 0, false
	}
	x := t.Blocks[outside[0].block].Instrs[outside[0].at]
	isThreadIndex := func(a ir.Arg) bool {
		if a.Imm || len(defs[a.Reg]) != 1 {
			return false
		}
		s := defs[a.Reg][0]
		return t.Blocks[s.block].Instrs[s.at].Op == ir.OpThreadIndex
	}
	switch {
	case x.Op == ir.OpMove && isThreadIndex(x.Args[0]):
		return 0, true
	case x.Op == ir.OpAdd && x.Type == ir.Int64 && isThreadIndex(x.Args[0]) && x.Args[1].Imm:
		c := int64(x.Args[1].Bits)
		return c, c > -1<<20 && c < 1<<20
	}
	return 0, false
}

// passes reports whether a check of constants holds.
func passes(x ir.Instr, source func(ir.Arg) ir.Arg) bool {
	a := source(x.Args[0])
	switch x.Op {
	case ir.OpCheckDivide:
		return a.Imm && a.Bits != 0
	case ir.OpCheckIndex, ir.OpCheckSlice:
		n := source(x.Args[1])
		return a.Imm && n.Imm && (a.Bits < n.Bits || x.Op == ir.OpCheckSlice && a.Bits == n.Bits)
	}
	return false
}
