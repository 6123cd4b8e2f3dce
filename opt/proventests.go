package opt

import (
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// RemoveProvenTests turns a branch on a signed 64-bit comparison that
// ir/analysis proves true where it is computed into a jump to its true
// successor. A collapsed loop nest (lower/nest.go) enters its levels'
// loops with indices the head has already bounded, first+i with i below
// the level's count, and the loops' own tests, y < h-1 and x < w-1 of
//
//	for y := 1; y < h-1; y++ {
//		for x := 1; x < w-1; x++ {
//
// then hold in every iteration; without this pass each iteration runs
// them, with the subtractions of their bounds, after the head's tests.
//
// It runs after opt.HoistChecks, which reads those tests as the bounds of
// the counters whose checks it decides before the loop. Unsigned tests,
// which the nest's head makes, stay: the later passes read the offsets'
// ranges from them.
func RemoveProvenTests(t *ir.Task) {
	an := analysis.New(t)
	var proven []int
	for bi, b := range t.Blocks {
		if b.Term.Kind != ir.Branch || b.Term.Cond.Imm || b.Term.Succs[0] == b.Term.Succs[1] {
			continue
		}
		end := an.End(bi)
		in, at := comparison(an, b.Term.Cond.Reg, end)
		if in == nil {
			continue
		}
		// The comparison is proven where it is computed, or at the branch
		// when its operands still hold the same values there: the branch
		// may be under tests that the comparison is not.
		if provenTrue(an, in, at) || sameOperands(an, in, at, end) && provenTrue(an, in, end) {
			proven = append(proven, bi)
		}
	}
	for _, bi := range proven {
		b := t.Blocks[bi]
		b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{b.Term.Succs[0]}}
	}
	if len(proven) > 0 {
		emptyUnreachable(t)
	}
}

// emptyUnreachable empties the blocks that no path from the entry reaches
// any more, ending them with a return. Their edges would stay the
// predecessors of the blocks they jumped to, and a block entered from one
// is dominated by nothing else: a test proven true before a level of a
// collapsed nest leaves the level's exit block, which jumps back to the
// latch, and the nest is then no loop to the passes that follow, until
// SimplifyCFG removes the blocks. Their numbers stay, as the passes
// between expect.
func emptyUnreachable(t *ir.Task) {
	reached := make([]bool, len(t.Blocks))
	for _, bi := range reversePostorder(t) {
		reached[bi] = true
	}
	for bi, b := range t.Blocks {
		if !reached[bi] {
			b.Instrs = nil
			b.Term = ir.Term{Kind: ir.Return}
		}
	}
}

// comparison returns the instruction that computed what the boolean r
// holds at s, through moves, and its site; nil if there is not one.
func comparison(an *analysis.Analysis, r ir.Reg, s analysis.Site) (*ir.Instr, analysis.Site) {
	for range 8 {
		defs := an.Reaching(r, s)
		if len(defs) != 1 {
			return nil, s
		}
		in := an.Instr(defs[0])
		if in == nil || in.Op != ir.OpMove || in.Args[0].Imm {
			return in, defs[0]
		}
		r, s = in.Args[0].Reg, defs[0]
	}
	return nil, s
}

// sameOperands reports whether the registers that in reads at site at
// hold the same assignments at site s.
func sameOperands(an *analysis.Analysis, in *ir.Instr, at, s analysis.Site) bool {
	for _, arg := range in.Args {
		if arg.Imm {
			continue
		}
		x, y := an.Reaching(arg.Reg, at), an.Reaching(arg.Reg, s)
		if len(x) != 1 || len(y) != 1 || x[0] != y[0] {
			return false
		}
	}
	return true
}

// provenTrue reports whether the comparison in, at s, always holds.
func provenTrue(an *analysis.Analysis, in *ir.Instr, s analysis.Site) bool {
	if in.Type != ir.Int64 {
		return false
	}
	x, y := in.Args[0], in.Args[1]
	strict := false
	switch in.Op {
	case ir.OpLt:
		strict = true
	case ir.OpLe:
	case ir.OpGt:
		x, y, strict = y, x, true
	case ir.OpGe:
		x, y = y, x
	default:
		return false
	}
	// x <= u, and u - y is a constant c: x < y when c < 0, x <= y when
	// c <= 0 (the bounds are exact, as provenIndices reads them).
	rx, ry := an.RangeOf(x, s), an.RangeOf(y, s)
	if rx.Max < ry.Min || !strict && rx.Max == ry.Min {
		return true
	}
	fy, ok := an.AffineOf(y, s)
	if !ok {
		return false
	}
	for _, u := range rx.Upper {
		if c, ok := u.Sub(fy).IsConst(); ok && (c < 0 || !strict && c == 0) {
			return true
		}
	}
	return false
}
