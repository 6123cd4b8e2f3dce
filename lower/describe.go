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

// This file writes the diagnostics of the dependence check and of the race
// check between blocks, which name accesses as they are written in the
// source.

// describe returns where an access is and how the source writes it: the
// index expression (or the atomic call) whose position the instruction
// has, found in the syntax of the kernel and of the functions inlined
// into it.
func (l *lowerer) describe(in *ir.Instr, param int) (token.Pos, string) {
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

// where formats a position for a message: file:line:column.
func (l *lowerer) where(pos token.Pos) string {
	p := l.fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.Filename), p.Line, p.Column)
}

const loopAdvice = "accumulate in a variable declared before the loop instead (a reduction, such as sum += x[i]), use an atomic (atomic.AddInt32, qd.AtomicAdd, qd.AtomicMax, ...), or give each iteration its own element"

func (l *lowerer) everyIteration(w *access) {
	pos, text := l.describe(w.in, w.param)
	l.errorf(pos, "every iteration of this parallel loop writes %s: iterations run at the same time, so their updates race and all but one are lost; %s", text, loopAdvice)
}

func (l *lowerer) lostUpdates(w *access) {
	pos, text := l.describe(w.in, w.param)
	l.errorf(pos, "%s is read, changed and written back by iterations of this parallel loop that run at the same time and may use the same index, so updates would be lost; use an atomic instead: %s", text, atomicAdvice(w))
}

// atomicAdvice names the atomic that adds to an element of the access's
// type.
func atomicAdvice(a *access) string {
	name := map[ir.Type]string{ir.Int32: "AddInt32", ir.Int64: "AddInt64", ir.Uint32: "AddUint32", ir.Uint64: "AddUint64"}[a.in.Type]
	if name != "" {
		return fmt.Sprintf("atomic.%s, or qd.AtomicAdd, qd.AtomicMin and qd.AtomicMax", name)
	}
	return "qd.AtomicAdd, qd.AtomicMin or qd.AtomicMax"
}

func (l *lowerer) conflict(y, x *access, why string) {
	pos, text := l.describe(y.in, y.param)
	xpos, xtext := l.describe(x.in, x.param)
	advice := "iterations run at the same time, in no order, so it may see the element before or after that write; read from a second slice, or write in one loop and read in a later one"
	switch {
	case x.atomic:
		advice = "use atomics for every access of the element in the loop (atomic.Load and atomic.Store), or read it in a later loop"
	case y.write:
		advice = "iterations run at the same time, in no order, so which write remains is not defined; give each iteration its own elements"
	}
	l.errorf(pos, "%s %s (%s at %s): %s", text, why, xtext, l.where(xpos), advice)
}
