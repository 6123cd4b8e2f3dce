package analysis

import (
	"github.com/qdgo/qd/ir"
)

// Fact is a comparison known to hold at the sites of a block: X Op Y,
// with Op one of lt, le, eq and ne, compared as signed 64-bit integers.
type Fact struct {
	Op   ir.Op
	X, Y Affine
	// From is the block whose branch or check gives the fact.
	From int
}

// Facts lists what the branches and checks that dominate block b prove
// there, nearest first. A branch gives its condition (or its negation) to
// the blocks that only its true (false) edge reaches; a check gives
// 0 <= x < y (checkindex) or 0 <= x <= y (checkslice) to the blocks it
// dominates. Facts about counters hold in the same iteration only, so a
// block takes the facts of a dominator d only when every loop around d is
// around b too.
func (a *Analysis) Facts(b int) []Fact {
	if fs, ok := a.facts[b]; ok {
		return fs
	}
	a.facts[b] = nil // a guard while they are computed
	var fs []Fact
	for d := b; ; {
		idom := a.idom(d)
		fs = append(fs, a.checkFacts(d, b)...)
		if idom < 0 {
			break
		}
		if a.loopsWithin(idom, b) {
			fs = append(fs, a.branchFacts(idom, d)...)
		}
		d = idom
	}
	a.facts[b] = fs
	return fs
}

// idom returns the immediate dominator of b, or -1 for the entry.
func (a *Analysis) idom(b int) int {
	if a.idoms == nil {
		a.idoms = make([]int, len(a.Task.Blocks))
		for i := range a.idoms {
			a.idoms[i] = a.findIdom(i)
		}
	}
	return a.idoms[b]
}

func (a *Analysis) findIdom(b int) int {
	best := -1
	for d := range a.Task.Blocks {
		if d != b && a.Dominates(d, b) && (best < 0 || a.Dominates(best, d)) {
			best = d
		}
	}
	return best
}

// branchFacts is what d's branch proves in its successor s, when s is
// entered from d alone and by one edge.
func (a *Analysis) branchFacts(d, s int) []Fact {
	term := a.Task.Blocks[d].Term
	if term.Kind != ir.Branch || term.Succs[0] == term.Succs[1] || len(a.Preds[s]) != 1 || term.Cond.Imm {
		return nil
	}
	if term.Succs[0] != s && term.Succs[1] != s {
		return nil
	}
	reach := a.Reaching(term.Cond.Reg, a.End(d))
	if len(reach) != 1 || !a.loopsWithin(reach[0].Block, d) {
		return nil
	}
	cmp := a.Instr(reach[0])
	f, ok := a.compareFact(cmp, reach[0], d)
	if !ok {
		if term.Succs[0] == s {
			return a.minFacts(cmp, reach[0], d, a.unsignedFacts(cmp, reach[0], d))
		}
		return nil
	}
	if term.Succs[1] == s {
		return []Fact{f.negate()}
	}
	return a.minFacts(cmp, reach[0], d, []Fact{f})
}

// minFacts adds to the facts fs of comparison cmp at site c, where it
// holds, that x < min(y, z) (or <=) bounds x by y and by z, those known
// not to be negative: a striped nest's outermost offset is tested against
// its stripe's end, the lesser of the stripe's and the level's end, and
// the level's count bounds the index for the checks as a plain test does.
// An unsigned x is not negative either, being below them.
func (a *Analysis) minFacts(cmp *ir.Instr, c Site, from int, fs []Fact) []Fact {
	if cmp.Op != ir.OpLt && cmp.Op != ir.OpLe || cmp.Args[1].Imm || len(cmp.Args) != 2 {
		return fs
	}
	reach := a.Reaching(cmp.Args[1].Reg, c)
	if len(reach) != 1 || reach[0].Block < 0 {
		return fs
	}
	in := a.Instr(reach[0])
	x, ok := a.AffineOf(cmp.Args[0], c)
	if in == nil || in.Op != ir.OpMin || in.Type != cmp.Type || !ok {
		return fs
	}
	bounded := false
	for _, arg := range in.Args {
		y, ok := a.AffineOf(arg, reach[0])
		if ok && a.numeric(y, reach[0], true).lo >= 0 {
			fs = append(fs, Fact{Op: cmp.Op, X: x, Y: y, From: from})
			bounded = true
		}
	}
	if bounded && cmp.Type.IsUnsigned() {
		fs = append(fs, Fact{Op: ir.OpLe, X: Constant(0), Y: x, From: from})
	}
	return fs
}

// unsignedFacts is what a 64-bit unsigned x < y or x <= y proves where it
// holds, when only y is known not to be negative: x is below y as an
// unsigned number, so below 2^63 too, and the signed comparison agrees.
// The index of a collapsed loop nest is such an x, tested against its
// level's count.
func (a *Analysis) unsignedFacts(cmp *ir.Instr, c Site, from int) []Fact {
	if cmp.Op != ir.OpLt && cmp.Op != ir.OpLe || !cmp.Type.IsUnsigned() || cmp.Type.Size() != 8 {
		return nil
	}
	x, ok1 := a.AffineOf(cmp.Args[0], c)
	y, ok2 := a.AffineOf(cmp.Args[1], c)
	if !ok1 || !ok2 || a.numeric(y, c, true).lo < 0 {
		return nil
	}
	return []Fact{{Op: cmp.Op, X: x, Y: y, From: from}, {Op: ir.OpLe, X: Constant(0), Y: x, From: from}}
}

// compareFact reads a comparison instruction at site c as a fact.
func (a *Analysis) compareFact(cmp *ir.Instr, c Site, from int) (Fact, bool) {
	switch cmp.Op {
	case ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe, ir.OpEq, ir.OpNe:
	default:
		return Fact{}, false
	}
	if !cmp.Type.IsInteger() {
		return Fact{}, false
	}
	x, ok1 := a.AffineOf(cmp.Args[0], c)
	y, ok2 := a.AffineOf(cmp.Args[1], c)
	if !ok1 || !ok2 {
		return Fact{}, false
	}
	// Unsigned comparisons agree with signed ones on values that are not
	// negative, which narrow unsigned types are; 64-bit ones need both
	// sides known not to be negative.
	if cmp.Type.IsUnsigned() && cmp.Type.Size() == 8 &&
		(a.numeric(x, c, false).lo < 0 || a.numeric(y, c, false).lo < 0) {
		return Fact{}, false
	}
	f := Fact{Op: cmp.Op, X: x, Y: y, From: from}
	switch cmp.Op {
	case ir.OpGt:
		f = Fact{Op: ir.OpLt, X: y, Y: x, From: from}
	case ir.OpGe:
		f = Fact{Op: ir.OpLe, X: y, Y: x, From: from}
	}
	return f, true
}

// negate returns the fact that holds when f does not.
func (f Fact) negate() Fact {
	switch f.Op {
	case ir.OpLt: // !(x < y) is y <= x
		return Fact{Op: ir.OpLe, X: f.Y, Y: f.X, From: f.From}
	case ir.OpLe:
		return Fact{Op: ir.OpLt, X: f.Y, Y: f.X, From: f.From}
	case ir.OpEq:
		return Fact{Op: ir.OpNe, X: f.X, Y: f.Y, From: f.From}
	}
	return Fact{Op: ir.OpEq, X: f.X, Y: f.Y, From: f.From}
}

// checkFacts is what the checks of block d prove at the end of d, for
// block b that d dominates (d may be b: then its checks hold at its
// terminator, which is where Range reads them only if the site is after
// them; checks of b itself are left out for simplicity unless b != d).
func (a *Analysis) checkFacts(d, b int) []Fact {
	if d == b || !a.loopsWithin(d, b) || a.ignore != nil && a.ignore(d) {
		return nil
	}
	var fs []Fact
	for i, in := range a.Task.Blocks[d].Instrs {
		if in.Op != ir.OpCheckIndex && in.Op != ir.OpCheckSlice {
			continue
		}
		s := Site{d, i}
		x, ok1 := a.AffineOf(in.Args[0], s)
		y, ok2 := a.AffineOf(in.Args[1], s)
		if !ok1 || !ok2 || a.numeric(y, s, false).lo < 0 {
			continue
		}
		op := ir.OpLt
		if in.Op == ir.OpCheckSlice {
			op = ir.OpLe
		}
		fs = append(fs, Fact{Op: op, X: x, Y: y, From: d}, Fact{Op: ir.OpLe, X: Constant(0), Y: x, From: d})
	}
	return fs
}
