package analysis

import "github.com/qdgo/qd/ir"

// GridShared reports whether the grid's threads share lp's iterations: lp
// adds to a register it carries ("r = add r, s", or through a register
// that holds the sum) a step computed from the thread count. That is the
// index of a grid-stride loop, whose step is the thread count or, once
// the loop is unrolled, a multiple of it, and the indices of a collapsed
// loop nest, which step by the thread count split into the nest's levels
// with a carry from one level into the next, so that they are no basic
// induction variables. Each iteration of such a loop is a whole body of
// the source loop already, and copying it gains nothing.
func (a *Analysis) GridShared(lp *Loop) bool {
	if lp == nil {
		return false
	}
	for _, iv := range lp.IndVars {
		if a.FromThreadCount(iv.Step) {
			return true
		}
	}
	for _, b := range lp.Blocks {
		for i, in := range a.Task.Blocks[b].Instrs {
			if in.Op != ir.OpAdd || in.Dst == ir.NoReg {
				continue
			}
			for k, arg := range in.Args {
				step := in.Args[1-k]
				if arg != ir.R(in.Dst) || step.Imm {
					continue
				}
				if f, ok := a.AffineOf(step, Site{b, i}); ok && a.FromThreadCount(f) {
					return true
				}
			}
		}
	}
	return false
}

// FromThreadCount reports whether f is computed from the grid's thread
// count: it holds the count, or a value that an instruction computed from
// it, as a quotient of the count by a level's size.
func (a *Analysis) FromThreadCount(f Affine) bool {
	return f.Has(func(x Atom) bool {
		switch x.Kind {
		case ThreadCount:
			return true
		case Value:
			return a.valueFromThreadCount(x.Site)
		}
		return false
	})
}

// valueFromThreadCount reports whether an operand of the instruction at d
// is computed from the thread count.
func (a *Analysis) valueFromThreadCount(d Site) bool {
	if d.Block < 0 {
		return false
	}
	if a.fromCount == nil {
		a.fromCount = map[Site]bool{}
	}
	if v, ok := a.fromCount[d]; ok {
		return v
	}
	a.fromCount[d] = false // a guard against cycles
	in := a.Instr(d)
	from := in.Op == ir.OpThreadCount
	for _, arg := range in.Args {
		if from || arg.Imm {
			continue
		}
		f, ok := a.AffineOf(arg, d)
		from = ok && a.FromThreadCount(f)
	}
	a.fromCount[d] = from
	return from
}
