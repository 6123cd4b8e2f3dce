package lower

import (
	"go/ast"
	"go/token"
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

// option is a word after //qd:kernel, and where it is.
type option struct {
	text string
	pos  token.Pos
}

// directiveOptions returns the words after //qd:kernel in the doc comment
// of fn's declaration, up to a comment that starts with //.
func directiveOptions(fn *ssa.Function) []option {
	decl, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || decl.Doc == nil {
		return nil
	}
	var opts []option
	for _, c := range decl.Doc.List {
		rest, ok := strings.CutPrefix(c.Text, Directive+" ")
		if !ok {
			continue
		}
		off := len(c.Text) - len(rest)
		for _, w := range strings.Fields(rest) {
			if strings.HasPrefix(w, "//") {
				break // a comment on the directive
			}
			i := strings.Index(rest, w)
			opts = append(opts, option{w, c.Slash + token.Pos(off+i)})
			off += i + len(w)
			rest = rest[i+len(w):]
		}
	}
	return opts
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
