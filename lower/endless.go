package lower

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// checkEndless reports the loops of fn's body that can never end, and
// ranges over functions, before the body is lowered: a for
// statement without a condition whose body has no break, goto or return
// that leaves it. The Go function would run forever, and a kernel must
// finish: a GPU launch cannot be interrupted. (Loops whose condition is
// never false run forever on both the CPU and the GPU, as in Go.) It
// reports whether it found either.
func (l *lowerer) checkEndless(fn *ssa.Function) bool {
	if l.endless == nil {
		l.endless = make(map[*ssa.Function]bool)
	}
	if found, ok := l.endless[fn]; ok || fn == nil {
		return found
	}
	var body *ast.BlockStmt
	switch syn := fn.Syntax().(type) {
	case *ast.FuncDecl:
		body = syn.Body
	case *ast.FuncLit:
		body = syn.Body
	}
	if body == nil {
		return false
	}
	found := false
	labels := map[*ast.ForStmt]string{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // checked as a function of its own, if it is lowered
		case *ast.LabeledStmt:
			if loop, ok := n.Stmt.(*ast.ForStmt); ok {
				labels[loop] = n.Label.Name
			}
		case *ast.ForStmt:
			if n.Cond == nil && !leaves(n, labels[n]) {
				found = true
				l.errorf(n.For, "this loop never ends: it has no condition and no break or return, and a kernel must finish, since a GPU cannot interrupt it; give the loop a condition or a break")
			}
		}
		return true
	})
	for _, anon := range fn.AnonFuncs {
		if anon.Synthetic == rangeFuncYield {
			// Its loop lowers to control flow of go/ssa's own, which would
			// be reported less clearly.
			l.errorf(anon.Pos(), rangeFuncMessage)
			found = true
		}
	}
	l.endless[fn] = found
	return found
}

// leaves reports whether the body of loop, labeled label, has a statement
// that may leave it: a return, a goto, a break of the loop, or a break or
// continue of a statement outside it.
func leaves(loop *ast.ForStmt, label string) bool {
	inner := map[string]bool{} // labels of statements inside the body
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		if ls, ok := n.(*ast.LabeledStmt); ok {
			inner[ls.Label.Name] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	found := false
	var visit func(n ast.Node, depth int)
	visit = func(n ast.Node, depth int) {
		ast.Inspect(n, func(m ast.Node) bool {
			if found {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if m != n {
					// An unlabeled break in here leaves m, not the loop.
					visit(m, depth+1)
					return false
				}
			case *ast.ReturnStmt:
				found = true
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.GOTO:
					found = true
				case m.Label != nil && m.Label.Name == label:
					found = m.Tok == token.BREAK
				case m.Label != nil:
					found = !inner[m.Label.Name]
				case m.Tok == token.BREAK:
					found = depth == 0
				}
			}
			return true
		})
	}
	visit(loop.Body, 0)
	return found
}
