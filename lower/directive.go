package lower

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Directive is the comment line that marks a kernel.
const Directive = "//qd:kernel"

// HasDirective reports whether a doc comment contains the //qd:kernel line.
func HasDirective(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		text := strings.TrimRight(c.Text, " \t")
		if text == Directive || strings.HasPrefix(text, Directive+" ") {
			return true
		}
	}
	return false
}

// KernelDecls returns the function declarations of files marked as kernels,
// in source order.
func KernelDecls(files []*ast.File) []*ast.FuncDecl {
	var decls []*ast.FuncDecl
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && HasDirective(fd.Doc) {
				decls = append(decls, fd)
			}
		}
	}
	return decls
}

// KernelFunc returns the SSA function of a kernel declaration.
func KernelFunc(prog *ssa.Program, info *types.Info, decl *ast.FuncDecl) *ssa.Function {
	obj, ok := info.Defs[decl.Name].(*types.Func)
	if !ok {
		return nil
	}
	return prog.FuncValue(obj)
}
