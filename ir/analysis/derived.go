package analysis

import "github.com/qdgo/qd/ir"

// Derived is a register that a loop assigns, once per iteration, an
// affine function of the loop's basic induction variables: what a
// pointer or an index into a row computes, "r9 = mul i, 4; r10 = add r9,
// base".
type Derived struct {
	Reg  ir.Reg
	Site Site
	// Form is the assigned value, in which each counter of the loop has
	// a coefficient invariant in the loop.
	Form Affine
}

// findDerived finds lp's derived induction variables.
func (a *Analysis) findDerived(lp *Loop) {
	t := a.Task
	for _, b := range lp.Blocks {
		if a.innermost[b] != lp {
			continue
		}
		for i := range t.Blocks[b].Instrs {
			in := &t.Blocks[b].Instrs[i]
			if in.Dst == ir.NoReg || !in.Type.IsInteger() || lp.IndVar(in.Dst) != nil {
				continue
			}
			d := Site{b, i}
			f, ok := a.assigned(in.Dst, d, Site{b, i + 1})
			if !ok || !a.affineIn(f, lp) {
				continue
			}
			lp.Derived = append(lp.Derived, &Derived{Reg: in.Dst, Site: d, Form: f})
		}
	}
}

// affineIn reports whether f depends on a counter of lp, each with a
// coefficient and all other terms invariant in lp.
func (a *Analysis) affineIn(f Affine, lp *Loop) bool {
	found := false
	rest := f
	for _, iv := range lp.IndVars {
		coeff, r, ok := rest.Split(iv.Atom())
		if !ok || !a.Invariant(coeff, lp) {
			return false
		}
		if len(coeff.Terms) > 0 || coeff.Const != 0 {
			found = true
		}
		rest = r
	}
	return found && a.Invariant(rest, lp)
}
