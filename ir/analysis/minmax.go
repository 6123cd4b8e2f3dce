package analysis

import "github.com/qdgo/qd/ir"

// throughMinMax gives, for bounds of a value at s that hold a min or a
// max, the bounds with it replaced by one of its operands, where that
// moves the bound away from the value: an upper bound c·min(x, y) + rest
// with c > 0 is at most c·x + rest and c·y + rest, as is one that holds
// c·max(x, y) with c < 0; lower bounds the other way round. So a chunk's
// index j < min((i+1)*chunk, len(x)) is at most len(x) - 1 as well as
// (i+1)*chunk - 1. The bound, the operand (where the min is) and the new
// bound must all be exact, so that their values as integers compare as
// the registers do; a 64-bit unsigned min compares otherwise.
func (a *Analysis) throughMinMax(bounds []Affine, upper bool, s Site) []Affine {
	var out []Affine
	for _, g := range bounds {
		if !a.exact(g, s) {
			continue
		}
		for _, t := range g.Terms {
			if len(t.Factors) != 1 {
				continue
			}
			x := t.Factors[0]
			if x.Kind != Value || x.Site.Block < 0 {
				continue
			}
			in := a.Instr(x.Site)
			if in == nil || in.Op != ir.OpMin && in.Op != ir.OpMax || in.Type.IsUnsigned() && in.Type.Size() == 8 {
				continue
			}
			// A min is at most its operands, a max at least.
			if (in.Op == ir.OpMin) != (upper == (t.Coeff > 0)) {
				continue
			}
			coeff, rest, ok := g.Split(x)
			if c, isConst := coeff.IsConst(); !ok || !isConst || c != t.Coeff {
				continue
			}
			for _, arg := range in.Args {
				h, ok := a.AffineOf(arg, x.Site)
				if !ok || !a.exact(h, x.Site) {
					continue
				}
				if b := rest.Add(h.Scale(t.Coeff)); a.exact(b, s) {
					out = append(out, b)
				}
			}
		}
	}
	return out
}
