package opt

import (
	"fmt"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// RemoveProvenChecks deletes the index, slice and division checks
// that cannot fail:
//
//   - a check of constants that holds;
//   - a check of the same values as a check that ran before it on every
//     path: had that one failed, the thread would have ended there;
//   - an index check whose index ir/analysis bounds to [0, n) with n the
//     length it checks against: for s[i] in a grid-stride loop over
//     range len(s), which every parallel loop over a slice is, the head's
//     test i < len(s) and i's start at the thread's index prove it.
func RemoveProvenChecks(t *ir.Task) {
	defs := defSites(t)
	dom := t.Dominators()
	single := singleDefs(t, defs, dom)
	source := copySource(t, defs, single)
	proven := provenIndices(t)
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
			if proven[site{bi, i}] || passes(x, source) {
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

// provenIndices finds the index checks whose index the analysis bounds
// to [0, length) at the check: for s[i] in a loop over range len(s),
// which every parallel loop over a slice is, the loop's own test and the
// index's start prove it.
func provenIndices(t *ir.Task) map[site]bool {
	proven := map[site]bool{}
	an := analysis.New(t)
	for bi, b := range t.Blocks {
		for i, x := range b.Instrs {
			if x.Op != ir.OpCheckIndex {
				continue
			}
			at := analysis.Site{Block: bi, At: i}
			length, ok := an.AffineOf(x.Args[1], at)
			if !ok {
				continue
			}
			r := an.RangeOf(x.Args[0], at)
			if r.Min < 0 || an.FormRange(length, at).Min < 0 {
				continue
			}
			if n, ok := length.IsConst(); ok && r.Max < n {
				proven[site{bi, i}] = true // a thread's index in its block of n threads
				continue
			}
			for _, u := range r.Upper {
				if c, ok := u.Sub(length).IsConst(); ok && c < 0 {
					proven[site{bi, i}] = true
					break
				}
			}
		}
	}
	return proven
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
