package lower

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"github.com/qdgo/qd/ir"
)

// This file places the accesses of the dependence check and of the race
// check between blocks (package check) in the source: its diagnostics name
// accesses as they are written there.

// Describe returns where an access is and how the source writes it: the
// index expression (or the atomic call) whose position the instruction
// has, found in the syntax of the kernel and of the functions inlined
// into it.
func (l *lowerer) Describe(in *ir.Instr, param int) (token.Pos, string) {
	var found ast.Expr
	for _, root := range l.syntax {
		ast.Inspect(root, func(n ast.Node) bool {
			switch e := n.(type) {
			case *ast.IndexExpr:
				if e.Lbrack == in.Pos {
					found = e
				}
			case *ast.CallExpr:
				if e.Lparen == in.Pos {
					found = e
				}
			case *ast.SelectorExpr:
				if e.Sel.Pos() == in.Pos { // a field of an element
					found = e
				}
			}
			return found == nil
		})
		if found != nil {
			var b strings.Builder
			if err := printer.Fprint(&b, l.fset, found); err != nil {
				return found.Pos(), types.ExprString(found)
			}
			return found.Pos(), b.String()
		}
	}
	return l.describeElement(in, param)
}

// Where formats a position for a message: file:line:column.
func (l *lowerer) Where(pos token.Pos) string {
	p := l.fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.Filename), p.Line, p.Column)
}
