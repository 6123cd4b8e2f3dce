package analysis

import (
	"slices"

	"github.com/qdgo/qd/ir"
)

// Loop is a natural loop of the task with its place in the loop nest.
type Loop struct {
	*ir.Loop
	// Index is the loop's position in Analysis.Loops; "L<Index>" names it
	// in the printed form.
	Index int
	// Blocks lists the loop's blocks in index order.
	Blocks []int
	// Exits are the edges that leave the loop, from a block of the loop
	// to one outside it, in the order of the blocks.
	Exits []Edge
	// Preheader is the one block outside the loop that enters it, when
	// it has only the header as a successor; -1 otherwise.
	Preheader int
	// Parent is the innermost loop holding this one; nil at the top.
	Parent   *Loop
	Children []*Loop
	// Depth is 1 for a loop at the top of its nest, 2 for one in it, ...
	Depth int
	// IndVars are the basic induction variables, in register order.
	IndVars []*IndVar
	// Derived are the registers the loop assigns with an affine function
	// of its basic induction variables, in site order.
	Derived []*Derived
}

// Edge is a control-flow edge between two blocks.
type Edge struct{ From, To int }

// Contains reports whether inner is lp or nested in it.
func (lp *Loop) Contains(inner *Loop) bool {
	for ; inner != nil; inner = inner.Parent {
		if inner == lp {
			return true
		}
	}
	return false
}

// LoopOf returns the innermost loop holding block b, or nil.
func (a *Analysis) LoopOf(b int) *Loop { return a.innermost[b] }

// LoopAt returns the loop whose header is block h, or nil.
func (a *Analysis) LoopAt(h int) *Loop {
	for _, lp := range a.Loops {
		if lp.Header == h {
			return lp
		}
	}
	return nil
}

// Innermost lists the loops that hold no other loop.
func (a *Analysis) Innermost() []*Loop {
	var out []*Loop
	for _, lp := range a.Loops {
		if len(lp.Children) == 0 {
			out = append(out, lp)
		}
	}
	return out
}

func (a *Analysis) findLoops() {
	t := a.Task
	found := ir.NaturalLoops(len(t.Blocks),
		func(b int) []int { return t.Blocks[b].Term.Successors() },
		func(b int) []int { return a.Preds[b] },
		a.Dominates)
	for _, l := range found {
		a.Loops = append(a.Loops, &Loop{Loop: l, Blocks: l.Blocks(), Preheader: -1})
	}
	a.innermost = make([]*Loop, len(t.Blocks))
	for _, lp := range a.Loops {
		for _, other := range a.Loops {
			if other != lp && other.Has(lp.Header) && len(other.Blocks) > len(lp.Blocks) &&
				(lp.Parent == nil || len(other.Blocks) < len(lp.Parent.Blocks)) {
				lp.Parent = other
			}
		}
	}
	var ordered []*Loop
	var visit func(parent *Loop)
	visit = func(parent *Loop) {
		var kids []*Loop
		for _, lp := range a.Loops {
			if lp.Parent == parent {
				kids = append(kids, lp)
			}
		}
		slices.SortFunc(kids, func(x, y *Loop) int { return x.Header - y.Header })
		for _, k := range kids {
			ordered = append(ordered, k)
			if parent != nil {
				parent.Children = append(parent.Children, k)
				k.Depth = parent.Depth + 1
			} else {
				k.Depth = 1
			}
			visit(k)
		}
	}
	visit(nil)
	a.Loops = ordered
	for i, lp := range a.Loops {
		lp.Index = i
		for _, b := range lp.Blocks {
			if in := a.innermost[b]; in == nil || len(in.Blocks) > len(lp.Blocks) {
				a.innermost[b] = lp
			}
		}
		for _, b := range lp.Blocks {
			for _, s := range t.Blocks[b].Term.Successors() {
				if !lp.Has(s) {
					lp.Exits = append(lp.Exits, Edge{b, s})
				}
			}
		}
		var entries []int
		for _, p := range a.Preds[lp.Header] {
			if !lp.Has(p) {
				entries = append(entries, p)
			}
		}
		if len(entries) == 1 && len(t.Blocks[entries[0]].Term.Successors()) == 1 {
			lp.Preheader = entries[0]
		}
	}
}

// Entries lists the blocks outside lp that jump to its header.
func (a *Analysis) Entries(lp *Loop) []int {
	var out []int
	for _, p := range a.Preds[lp.Header] {
		if !lp.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// loopsWithin reports whether every loop holding block x holds block y.
func (a *Analysis) loopsWithin(x, y int) bool {
	for lp := a.innermost[x]; lp != nil; lp = lp.Parent {
		if !lp.Has(y) {
			return false
		}
	}
	return true
}
