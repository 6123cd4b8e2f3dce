package analysis

import (
	"slices"

	"github.com/qdgo/qd/ir"
)

// IndVar is a basic induction variable of a loop: a register the loop
// assigns once per iteration, with its own value plus a step the loop
// does not change: "i = add i, 1", or "t = add i, s; ...; i = move t".
type IndVar struct {
	Loop *Loop
	Reg  ir.Reg
	Type ir.Type
	// Update is the one assignment of Reg in the loop; its block is in no
	// inner loop and dominates every latch, so it runs once per iteration.
	Update Site
	// Sum is where Reg + Step is computed: Update itself, or the add whose
	// result Update copies.
	Sum Site
	// Step is what each iteration adds, an invariant of the loop: a
	// constant, or a value known before it, such as the grid's thread
	// count of a grid-stride loop.
	Step Affine
	// StepArg is Sum's operand that holds the step: what it adds, or
	// subtracts where Sum is a sub.
	StepArg ir.Arg
	// Start is Reg's value on entry to the loop; StartKnown is false when
	// the entries give different values.
	Start      Affine
	StartKnown bool
	// Least is a form Reg's value on entry is at least, for a counter
	// that goes up without wrapping: Start where it is known, else the
	// Least of the counters of other loops that the entries carry on. A
	// grid-stride loop split in pieces (checked iterations first, then a
	// window of unrolled ones, then the rest) enters each piece with what
	// the one before left, which no piece knows, yet each piece counts on
	// from the thread's index.
	Least      Affine
	LeastKnown bool
	// Exit is the test that ends the loop, when one is found: one that
	// runs in every iteration if there is one, else the first.
	Exit *ExitTest
	// Tests are all the branches out of the loop that compare the counter
	// with an invariant, in block order; Exit is one of them.
	Tests []*ExitTest
	// NoWrap is true when the counter provably never wraps around its
	// type before the exit test fails: then it moves monotonically from
	// Start towards the bound, and Trip counts the iterations.
	NoWrap bool
	// Trip is the number of times the exit test passes, when known:
	// max(0, ceil(Trip.Num / Trip.Div)).
	Trip *TripCount

	stepPositive bool
}

// ExitTest is a branch of the loop that leaves it when a comparison of
// the counter with an invariant bound fails: the loop stays while
// counter + Offset Op Bound, Op one of lt, le, gt, ge and ne, compared
// in Type. Offset includes the step when the test reads the counter after
// Update.
type ExitTest struct {
	Block   int  // the block whose branch it is
	Compare Site // the comparison's instruction
	Op      ir.Op
	Type    ir.Type
	Offset  Affine
	Bound   Affine
	// BoundArg is the comparison's operand that holds Bound.
	BoundArg ir.Arg
	// Every is true when the test's block dominates every latch, so the
	// test runs in every iteration.
	Every bool
}

// TripCount is max(0, ceil(Num/Div)), Div > 0.
type TripCount struct{ Num, Div Affine }

// Const returns the count when it is a constant.
func (tc *TripCount) Const() (int64, bool) {
	num, ok1 := tc.Num.IsConst()
	div, ok2 := tc.Div.IsConst()
	if !ok1 || !ok2 || div <= 0 {
		return 0, false
	}
	if num <= 0 {
		return 0, true
	}
	n := num / div
	if num%div != 0 {
		n++
	}
	return n, true
}

// Atom is the counter atom that names the variable's value at the start
// of an iteration.
func (iv *IndVar) Atom() Atom { return Atom{Kind: Counter, Index: iv.Loop.Index, Reg: iv.Reg} }

// Up reports whether the step is positive, Down whether it is negative;
// a step of unknown sign (a parameter) is neither.
func (iv *IndVar) Up() bool {
	if c, ok := iv.Step.IsConst(); ok {
		return c > 0
	}
	return iv.stepPositive
}

func (iv *IndVar) Down() bool {
	c, ok := iv.Step.IsConst()
	return ok && c < 0
}

// IndVar returns the basic induction variable of lp held in r, or nil.
func (lp *Loop) IndVar(r ir.Reg) *IndVar {
	for _, iv := range lp.IndVars {
		if iv.Reg == r {
			return iv
		}
	}
	return nil
}

// indVar returns the variable a counter atom names.
func (a *Analysis) indVar(x Atom) *IndVar {
	if x.Kind != Counter || x.Index >= len(a.Loops) {
		return nil
	}
	return a.Loops[x.Index].IndVar(x.Reg)
}

// ivAt returns the induction variable r is at s: one of a loop around s.
func (a *Analysis) ivAt(r ir.Reg, s Site) *IndVar {
	for _, iv := range a.ivOf[r] {
		if iv.Loop.Has(s.Block) {
			return iv
		}
	}
	return nil
}

// pastUpdate reports whether s is after iv's update in the iteration.
func (a *Analysis) pastUpdate(iv *IndVar, r ir.Reg, s Site) bool {
	reach := a.Reaching(r, s)
	return len(reach) == 1 && reach[0] == iv.Update
}

// findIndVars finds lp's basic induction variables.
func (a *Analysis) findIndVars(lp *Loop) {
	t := a.Task
	seen := map[ir.Reg]bool{}
	for _, b := range lp.Blocks {
		for i := range t.Blocks[b].Instrs {
			for _, r := range t.Blocks[b].Instrs[i].Defs() {
				if seen[r] {
					continue
				}
				seen[r] = true
				if iv := a.basic(lp, r); iv != nil {
					lp.IndVars = append(lp.IndVars, iv)
					a.ivOf[r] = append(a.ivOf[r], iv)
				}
			}
		}
	}
	slices.SortFunc(lp.IndVars, func(x, y *IndVar) int { return int(x.Reg) - int(y.Reg) })
}

// basic recognizes r as a basic induction variable of lp.
func (a *Analysis) basic(lp *Loop, r ir.Reg) *IndVar {
	t := a.Task
	defs := a.DefsIn(r, lp)
	if len(defs) != 1 || !t.Regs[r].IsInteger() {
		return nil
	}
	u := defs[0]
	if a.innermost[u.Block] != lp {
		return nil
	}
	for _, l := range lp.Latches {
		if !a.Dominates(u.Block, l) {
			return nil
		}
	}
	in := a.Instr(u)
	sum := u
	if in.Op == ir.OpMove && !in.Args[0].Imm {
		tmp := a.DefsIn(in.Args[0].Reg, lp)
		if len(tmp) != 1 || !a.SiteDominates(tmp[0], u) {
			return nil
		}
		sum = tmp[0]
		in = a.Instr(sum)
	}
	if in.Type != t.Regs[r] || in.Op != ir.OpAdd && in.Op != ir.OpSub {
		return nil
	}
	var step ir.Arg
	switch {
	case in.Args[0] == ir.R(r):
		step = in.Args[1]
	case in.Args[1] == ir.R(r) && in.Op == ir.OpAdd:
		step = in.Args[0]
	default:
		return nil
	}
	if !step.Imm && len(a.DefsIn(step.Reg, lp)) > 0 {
		return nil
	}
	// The step's value before the loop: it is the same in every iteration.
	var f Affine
	if step.Imm {
		f = Constant(int64(in.Type.Normalize(step.Bits)))
		if in.Type.IsSigned() {
			f = Constant(signExtend(step.Bits, in.Type))
		}
	} else {
		var ok bool
		if f, ok = a.invariantAt(step.Reg, lp); !ok {
			return nil
		}
	}
	if in.Op == ir.OpSub {
		f = f.Scale(-1)
	}
	if c, ok := f.IsConst(); ok && c == 0 {
		return nil
	}
	iv := &IndVar{Loop: lp, Reg: r, Type: in.Type, Update: u, Sum: sum, Step: f, StepArg: step}
	iv.stepPositive = a.numeric(f, a.End(lp.Header), false).lo > 0
	return iv
}

// signExtend reads the bits of an immediate of signed type t as int64.
func signExtend(b uint64, t ir.Type) int64 {
	shift := 64 - t.Bits()
	return int64(b<<shift) >> shift
}

// invariantAt returns the form of r, which lp does not assign, as the
// loop's entries see it: the same on every entry.
func (a *Analysis) invariantAt(r ir.Reg, lp *Loop) (Affine, bool) {
	var f Affine
	entries := a.Entries(lp)
	if len(entries) == 0 {
		return Affine{}, false
	}
	for i, e := range entries {
		g, ok := a.AffineOf(ir.R(r), a.End(e))
		if !ok || i > 0 && !g.Equal(f) {
			return Affine{}, false
		}
		f = g
	}
	return f, true
}

func (a *Analysis) findStart(iv *IndVar) {
	iv.Start, iv.StartKnown = a.invariantAt(iv.Reg, iv.Loop)
	// A start that names a value of the loop's entry block is a value
	// the header does not see; keep only forms every site of the loop may
	// read.
	if iv.StartKnown && iv.Start.Has(func(x Atom) bool {
		return x.Kind == Value && x.Site.Block >= 0 && !a.Dominates(x.Site.Block, iv.Loop.Header)
	}) {
		iv.Start, iv.StartKnown = Affine{}, false
	}
}

// findLeast works out iv's Least where its start is not known: every
// value its entries carry is either the same form g, assigned outside
// every loop, or the counter of another loop that goes up by a positive
// step from a Least of g without wrapping (climbs), so that it never
// fell below g. It reports whether it found one.
func (a *Analysis) findLeast(iv *IndVar) bool {
	if iv.LeastKnown || !iv.Up() || !a.climbs(iv) {
		return false
	}
	var least Affine
	found := false
	for _, e := range a.Entries(iv.Loop) {
		for _, d := range a.Reaching(iv.Reg, a.End(e)) {
			var g Affine
			if from := a.innermost[d.Block]; from != nil {
				other := from.IndVar(iv.Reg)
				if other == nil || from.Contains(iv.Loop) || !other.LeastKnown || !other.Up() || !a.climbs(other) || len(a.DefsIn(iv.Reg, from)) != 1 {
					return false
				}
				g = other.Least
			} else {
				var ok bool
				if g, ok = a.AffineOf(ir.R(iv.Reg), Site{d.Block, d.At + 1}); !ok {
					return false
				}
			}
			if found && !g.Equal(least) {
				return false
			}
			least, found = g, true
		}
	}
	// As with a start, a form naming a value the header does not see is
	// no bound there.
	if !found || least.Has(func(x Atom) bool {
		return x.Kind == Value && x.Site.Block >= 0 && !a.Dominates(x.Site.Block, iv.Loop.Header)
	}) {
		return false
	}
	iv.Least, iv.LeastKnown = least, true
	return true
}

// climbs reports whether iv, going up, cannot wrap whatever its start:
// its test, before its update in every iteration, keeps it below a bound
// that one more step does not carry past its type's end.
func (a *Analysis) climbs(iv *IndVar) bool {
	e := iv.Exit
	if iv.NoWrap && iv.Up() {
		return true
	}
	if e == nil || !e.Every || e.Type != iv.Type || e.Op != ir.OpLt && e.Op != ir.OpLe ||
		e.Block == iv.Update.Block || !a.Dominates(e.Block, iv.Update.Block) {
		return false
	}
	at := a.End(iv.Loop.Header)
	limit := typeRange(iv.Type)
	bound := a.numeric(e.Bound.Sub(e.Offset), at, true)
	step := a.numeric(iv.Step, at, false)
	last := bound.hi
	if e.Op == ir.OpLt {
		last--
	}
	hi, ok := AddInt(last, step.hi)
	return ok && hi <= limit.hi && step.lo > 0
}

// findExit finds the test that ends iv's loop: a branch out of the loop,
// in a block that runs in every iteration if one does, comparing the
// counter plus an invariant with an invariant.
func (a *Analysis) findExit(iv *IndVar) {
	lp := iv.Loop
	counter := iv.Atom()
	for _, b := range lp.Blocks {
		term := a.Task.Blocks[b].Term
		if term.Kind != ir.Branch || term.Cond.Imm || lp.Has(term.Succs[0]) == lp.Has(term.Succs[1]) {
			continue
		}
		reach := a.Reaching(term.Cond.Reg, a.End(b))
		if len(reach) != 1 || !lp.Has(reach[0].Block) {
			continue
		}
		c := reach[0]
		cmp := a.Instr(c)
		if !cmp.Type.IsInteger() {
			continue
		}
		op := cmp.Op
		switch op {
		case ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe, ir.OpNe, ir.OpEq:
		default:
			continue
		}
		x, ok1 := a.AffineOf(cmp.Args[0], c)
		y, ok2 := a.AffineOf(cmp.Args[1], c)
		if !ok1 || !ok2 {
			continue
		}
		boundArg := cmp.Args[1]
		if x.Coeff(counter) == 0 {
			x, y = y, x
			boundArg = cmp.Args[0]
			if op != ir.OpNe && op != ir.OpEq {
				op = op.Info().Mirror
			}
		}
		coeff, off, ok := x.Split(counter)
		if k, isConst := coeff.IsConst(); !ok || !isConst || k != 1 || !a.Invariant(off, lp) || !a.Invariant(y, lp) {
			continue
		}
		if !lp.Has(term.Succs[0]) { // the loop stays while the test fails
			op = negateOp(op)
		}
		if op == ir.OpEq {
			continue
		}
		every := true
		for _, l := range lp.Latches {
			every = every && a.Dominates(b, l)
		}
		test := &ExitTest{Block: b, Compare: c, Op: op, Type: cmp.Type, Offset: off, Bound: y, BoundArg: boundArg, Every: every}
		iv.Tests = append(iv.Tests, test)
		if iv.Exit == nil || every && !iv.Exit.Every {
			iv.Exit = test
		}
	}
}

func negateOp(op ir.Op) ir.Op {
	switch op {
	case ir.OpLt:
		return ir.OpGe
	case ir.OpLe:
		return ir.OpGt
	case ir.OpGt:
		return ir.OpLe
	case ir.OpGe:
		return ir.OpLt
	case ir.OpEq:
		return ir.OpNe
	}
	return ir.OpEq
}

// Invariant reports whether f has the same value in every iteration of
// lp: it holds no counter of lp or a loop in it, and no value lp assigns.
func (a *Analysis) Invariant(f Affine, lp *Loop) bool {
	return !f.Has(func(x Atom) bool {
		switch x.Kind {
		case Counter:
			return lp.Contains(a.Loops[x.Index])
		case Value:
			return x.Site.Block >= 0 && lp.Has(x.Site.Block)
		}
		return false
	})
}

// findTrip works out whether iv wraps and how many times its test passes.
func (a *Analysis) findTrip(iv *IndVar) {
	e := iv.Exit
	if e == nil || !e.Every || !iv.StartKnown || e.Type != iv.Type {
		return
	}
	at := a.End(iv.Loop.Header)
	limit := typeRange(iv.Type)
	if iv.Type.IsUnsigned() && iv.Type.Size() == 8 {
		limit = interval{0, limit.hi}
	}
	// The bound is read under the branches that lead to the header: in
	// for j := 0; j <= i; j++ inside i < n, i is below n, so j+1 cannot
	// wrap.
	bound := a.numeric(e.Bound.Sub(e.Offset), at, true)
	step := a.numeric(iv.Step, at, false)
	start := a.numeric(iv.Start, at, true)
	if start.lo < limit.lo || start.hi > limit.hi {
		return
	}
	// A loop whose test follows the update steps once before any test.
	if e.Block == iv.Update.Block || !a.Dominates(e.Block, iv.Update.Block) {
		first, ok := start.addOK(step)
		if !ok || first.lo < limit.lo || first.hi > limit.hi {
			return
		}
	}
	// dist is how far the counter moves: to the bound, from the start.
	var num Affine
	div := iv.Step
	switch {
	case iv.Up() && (e.Op == ir.OpLt || e.Op == ir.OpLe):
		last := bound.hi // the largest value that passes, plus a step
		if e.Op == ir.OpLt {
			last--
		}
		hi, ok := AddInt(last, step.hi)
		iv.NoWrap = ok && hi <= limit.hi && bound.lo >= limit.lo
		num = e.Bound.Sub(e.Offset).Sub(iv.Start)
		if e.Op == ir.OpLe {
			num = num.Add(Constant(1))
		}
	case iv.Down() && (e.Op == ir.OpGt || e.Op == ir.OpGe):
		first := bound.lo
		if e.Op == ir.OpGt {
			first++
		}
		lo, ok := AddInt(first, step.lo)
		iv.NoWrap = ok && lo >= limit.lo && bound.hi <= limit.hi
		num = iv.Start.Sub(e.Bound.Sub(e.Offset))
		if e.Op == ir.OpGe {
			num = num.Add(Constant(1))
		}
		div = iv.Step.Scale(-1)
	case e.Op == ir.OpNe:
		// i != n with a step of ±1 reaches n exactly when it starts on
		// the right side; the trip count is then |n - start|.
		c, ok := iv.Step.IsConst()
		if !ok || c != 1 && c != -1 {
			return
		}
		num = e.Bound.Sub(e.Offset).Sub(iv.Start).Scale(c)
		div = Constant(1)
		if n := a.numeric(num, at, true); n.lo < 0 {
			return
		}
		iv.NoWrap = true
	default:
		return
	}
	if iv.NoWrap {
		iv.Trip = &TripCount{Num: num, Div: div}
	}
}

// GridStride reports whether iv steps by the grid's thread count: the
// index of a grid-stride loop, whose iterations the threads share.
func (iv *IndVar) GridStride() bool { return iv.Step.Equal(Of(Atom{Kind: ThreadCount})) }

// ConstOffset returns the constant a test adds to the counter, if it is one.
func (e *ExitTest) ConstOffset() (int64, bool) { return e.Offset.IsConst() }
