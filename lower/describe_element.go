package lower

import (
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"strings"

	"github.com/qdgo/qd/ir"
)

// describeElement places an access that no index expression, field or
// call is at: the element a range statement reads, or an element copied
// whole into a variable. An access found nowhere is named by its slice at
// the instruction's position, or at the kernel's if it has none, so that
// every diagnostic has a position.
func (l *lowerer) describeElement(in *ir.Instr, param int) (token.Pos, string) {
	if in.Pos.IsValid() {
		if found := l.rangedOrCopied(in.Pos); found != nil {
			var b strings.Builder
			text := types.ExprString(found)
			if printer.Fprint(&b, l.fset, found) == nil {
				text = b.String()
			}
			if _, isRange := found.(*ast.Ident); isRange {
				text = "the element range " + text + " gives"
			}
			return found.Pos(), text
		}
	}
	pos := in.Pos
	if !pos.IsValid() {
		pos = l.fn.Pos()
	}
	return pos, "an element of " + l.k.Params[param].Name
}

// rangedOrCopied returns, for an access positioned at an identifier, the
// expression that reads the element. go/ssa gives the element a range
// statement reads the position of the ranged value: the range's operand
// where it reads a captured variable, else the declaration of the
// variable; the result is then the operand, an identifier. It gives an
// element copied into a variable the position of that variable; the
// result is then the copy's right-hand side.
func (l *lowerer) rangedOrCopied(pos token.Pos) ast.Expr {
	var name *ast.Ident
	var found ast.Expr
	for _, root := range l.syntax {
		ast.Inspect(root, func(n ast.Node) bool {
			switch e := n.(type) {
			case *ast.RangeStmt:
				if x, ok := ast.Unparen(e.X).(*ast.Ident); ok && e.Value != nil && x.NamePos == pos {
					found = x
				}
			case *ast.Ident:
				if e.NamePos == pos {
					name = e
				}
			case *ast.AssignStmt:
				for k, lhs := range e.Lhs {
					if lhs.Pos() == pos && len(e.Rhs) == len(e.Lhs) {
						found = e.Rhs[k]
					}
				}
			}
			return true
		})
	}
	if name == nil || found != nil {
		return found
	}
	for _, root := range l.syntax {
		ast.Inspect(root, func(n ast.Node) bool {
			if r, ok := n.(*ast.RangeStmt); ok && r.Value != nil && found == nil {
				if x, ok := ast.Unparen(r.X).(*ast.Ident); ok && x.Name == name.Name {
					found = x
				}
			}
			return found == nil
		})
	}
	return found
}
