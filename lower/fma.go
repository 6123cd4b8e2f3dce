package lower

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// In a kernel with the fma option (ir.Kernel.FMA), opt fuses float
// multiplies into the adds that use them. Go's specification lets an
// implementation fuse operations, but not across an explicit conversion,
// which rounds: float64(x*y) + z must round x*y. go/ssa drops a
// conversion to a value's own type, so the lowering finds those in the
// syntax and rounds the product with a convert to its own type, which no
// fusion looks through.

// roundedMul reports whether v is a float multiply of an fma kernel whose
// product an explicit conversion rounds. A multiply that is the only
// argument of a call is taken as one, since without type information a
// conversion looks like a call; that only fuses less.
func (f *frame) roundedMul(v *ssa.BinOp) bool {
	l := f.tb.l
	if !l.k.FMA || v.Op != token.MUL {
		return false
	}
	fn := f.fn
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if l.rounded == nil {
		l.rounded = map[*ssa.Function]map[token.Pos]bool{}
	}
	muls, ok := l.rounded[fn]
	if !ok {
		muls = roundedMuls(fn.Syntax())
		l.rounded[fn] = muls
	}
	return muls == nil || muls[v.Pos()] // no syntax: round every product
}

// roundedMuls returns the positions of the multiply operators whose
// product is the only argument of a call or conversion in syntax, or nil
// when there is no syntax.
func roundedMuls(syntax ast.Node) map[token.Pos]bool {
	if syntax == nil {
		return nil
	}
	muls := map[token.Pos]bool{}
	ast.Inspect(syntax, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if m, ok := ast.Unparen(call.Args[0]).(*ast.BinaryExpr); ok && m.Op == token.MUL {
				muls[m.OpPos] = true
			}
		}
		return true
	})
	return muls
}
