package analysis

import (
	"github.com/qdgo/qd/ir"
)

// Site is a place in a task: instruction At of block Block, or the
// block's terminator when At is the number of its instructions.
type Site struct{ Block, At int }

// Analysis holds the facts about one task: its loops, their induction
// variables, and what its registers hold where. It reads the task as it
// was when New ran; a pass that changes the task makes a new one.
type Analysis struct {
	Task  *ir.Task
	Dom   []ir.BlockSet // Dom[b] holds the blocks that dominate b
	Preds [][]int
	// Loops lists the natural loops, outer loops before the loops they
	// hold, in the order of their headers.
	Loops []*Loop

	innermost []*Loop // by block: the innermost loop holding it, or nil
	defs      []Site  // every site that assigns a register, in order
	defsOf    map[ir.Reg][]int
	reachIn   []bitset // by block: the defs that reach its start
	memo      map[key]resolved
	busy      map[key]bool
	rangeMemo map[key]interval
	facts     map[int][]Fact
	idoms     []int
	ivOf      map[ir.Reg][]*IndVar
	fromCount map[Site]bool // GridShared's memo
	// ignore reports the blocks whose checks give no facts (NewIgnoringChecks).
	ignore func(block int) bool
}

type key struct {
	reg  ir.Reg
	site Site
}

type resolved struct {
	form Affine
	ok   bool
}

// New analyses t.
func New(t *ir.Task) *Analysis { return NewIgnoringChecks(t, nil) }

// NewIgnoringChecks analyses t as New does, but takes no facts from the
// checks of the blocks that ignore reports (nil: none). A pass that
// decides a loop's checks before the loop, and removes them from it, must
// not bound their indices by those checks: after s[i] is checked, i+16 is
// at most len(s)+15 in its own check's eyes, a bound that the test before
// the loop could never pass.
func NewIgnoringChecks(t *ir.Task, ignore func(block int) bool) *Analysis {
	a := &Analysis{Task: t, Dom: t.Dominators(), Preds: t.Preds(),
		defsOf: map[ir.Reg][]int{}, memo: map[key]resolved{}, busy: map[key]bool{},
		rangeMemo: map[key]interval{}, facts: map[int][]Fact{}, ivOf: map[ir.Reg][]*IndVar{},
		ignore: ignore}
	a.findDefs()
	a.findLoops()
	// Every loop's variables are known before any start, test or range is
	// read, outer loops first: an inner loop's start and bound name the
	// outer loops' counters, and whether it wraps depends on their ranges.
	for _, lp := range a.Loops {
		a.findIndVars(lp)
	}
	for _, lp := range a.Loops {
		for _, iv := range lp.IndVars {
			a.findStart(iv)
			a.findExit(iv)
		}
	}
	for _, lp := range a.Loops {
		for _, iv := range lp.IndVars {
			a.findTrip(iv)
		}
	}
	for _, lp := range a.Loops {
		for _, iv := range lp.IndVars {
			if iv.StartKnown {
				iv.Least, iv.LeastKnown = iv.Start, iv.Up() && iv.NoWrap
			}
		}
	}
	// A loop that carries another's counter on may come before it.
	for changed := true; changed; {
		changed = false
		for _, lp := range a.Loops {
			for _, iv := range lp.IndVars {
				changed = a.findLeast(iv) || changed
			}
		}
	}
	// Ranges read before every loop's wrapping was known are forgotten.
	clear(a.rangeMemo)
	for _, lp := range a.Loops {
		a.findDerived(lp)
	}
	return a
}

// Instr returns the instruction at s, or nil at a terminator.
func (a *Analysis) Instr(s Site) *ir.Instr {
	b := a.Task.Blocks[s.Block]
	if s.At >= len(b.Instrs) {
		return nil
	}
	return &b.Instrs[s.At]
}

// End is the site of block b's terminator.
func (a *Analysis) End(b int) Site { return Site{b, len(a.Task.Blocks[b].Instrs)} }

// Dominates reports whether x dominates y, a block b dominating b.
func (a *Analysis) Dominates(x, y int) bool { return a.Dom[y].Has(x) }

// SiteDominates reports whether every path to y passes x first (or x is y).
func (a *Analysis) SiteDominates(x, y Site) bool {
	if x.Block == y.Block {
		return x.At <= y.At
	}
	return a.Dominates(x.Block, y.Block)
}

// Defs lists the sites that assign r.
func (a *Analysis) Defs(r ir.Reg) []Site {
	var out []Site
	for _, d := range a.defsOf[r] {
		out = append(out, a.defs[d])
	}
	return out
}

// DefsIn lists the sites of lp that assign r.
func (a *Analysis) DefsIn(r ir.Reg, lp *Loop) []Site {
	var out []Site
	for _, s := range a.Defs(r) {
		if lp.Has(s.Block) {
			out = append(out, s)
		}
	}
	return out
}

// Reaching lists the sites whose assignment of r may be what r holds at s.
func (a *Analysis) Reaching(r ir.Reg, s Site) []Site {
	var out []Site
	// The last assignment before s in its own block hides the others.
	b := a.Task.Blocks[s.Block]
	for i := min(s.At, len(b.Instrs)) - 1; i >= 0; i-- {
		for _, d := range b.Instrs[i].Defs() {
			if d == r {
				return []Site{{s.Block, i}}
			}
		}
	}
	for _, d := range a.defsOf[r] {
		if a.reachIn[s.Block].has(d) {
			out = append(out, a.defs[d])
		}
	}
	return out
}

func (a *Analysis) findDefs() {
	t := a.Task
	for bi, b := range t.Blocks {
		for i := range b.Instrs {
			for _, r := range b.Instrs[i].Defs() {
				a.defsOf[r] = append(a.defsOf[r], len(a.defs))
				a.defs = append(a.defs, Site{bi, i})
			}
		}
	}
	// Reaching definitions: out(b) = gen(b) ∪ (in(b) − kill(b)).
	n := len(a.defs)
	gen := make([]bitset, len(t.Blocks))
	killed := make([]map[ir.Reg]bool, len(t.Blocks))
	for bi := range t.Blocks {
		gen[bi] = newBitset(n)
		killed[bi] = map[ir.Reg]bool{}
	}
	for d := len(a.defs) - 1; d >= 0; d-- {
		s := a.defs[d]
		r := a.regOf(d)
		if !killed[s.Block][r] {
			gen[s.Block].add(d)
			killed[s.Block][r] = true
		}
	}
	kill := make([]bitset, len(t.Blocks))
	for bi := range t.Blocks {
		kill[bi] = newBitset(n)
		for r := range killed[bi] {
			for _, d := range a.defsOf[r] {
				kill[bi].add(d)
			}
		}
	}
	a.reachIn = make([]bitset, len(t.Blocks))
	out := make([]bitset, len(t.Blocks))
	for bi := range t.Blocks {
		a.reachIn[bi] = newBitset(n)
		out[bi] = gen[bi].clone()
	}
	// Sets only grow, so out(b) is updated in place, word by word.
	for changed := true; changed; {
		changed = false
		for bi := range t.Blocks {
			in := a.reachIn[bi]
			for _, p := range a.Preds[bi] {
				in.or(out[p])
			}
			o, g, k := out[bi], gen[bi], kill[bi]
			for w := range o {
				if x := g[w] | in[w]&^k[w]; x != o[w] {
					o[w], changed = x, true
				}
			}
		}
	}
}

// regOf is the register def number d assigns.
func (a *Analysis) regOf(d int) ir.Reg {
	s := a.defs[d]
	in := a.Instr(s)
	defs := in.Defs()
	if len(defs) == 1 {
		return defs[0]
	}
	// A call with several results: count the defs of this site before d.
	k := 0
	for e := d - 1; e >= 0 && a.defs[e] == s; e-- {
		k++
	}
	return defs[k]
}

type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (s bitset) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s bitset) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) clone() bitset  { return append(bitset(nil), s...) }
func (s bitset) or(o bitset) {
	for i := range s {
		s[i] |= o[i]
	}
}
