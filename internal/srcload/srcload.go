// Package srcload loads packages from source for lowering their kernels,
// as packages.Load does in LoadAllSyntax mode, but without the bodies of
// the standard library's functions that kernels cannot call.
//
// Lowering needs the source of every function a kernel may reach: those
// of the user's packages and of any module they import, and those of
// packages math, math/bits and math/cmplx, which kernels compute as Go
// does. The rest of the standard library only needs its declarations:
// kernels cannot call it (lower.InStandardLibrary), and host code is
// type-checked against it. Its function bodies are most of what a load
// type-checks, so dropping them halves the time qdgen takes to load a
// package that imports the runtime.
package srcload

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Load loads the packages that match patterns as packages.Load does with
// cfg, whose mode loads the syntax of every package (LoadAllSyntax).
// Function bodies of the standard library, other than of math and the
// packages below it that kernels call, are left out; the errors that
// leaves behind, imports that only the bodies used, are dropped.
func Load(cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
	c := *cfg
	c.ParseFile = parseFile
	pkgs, err := packages.Load(&c, patterns...)
	if err != nil {
		return nil, err
	}
	dropUnusedImports(pkgs)
	return pkgs, nil
}

var goroot = filepath.Join(build.Default.GOROOT, "src") + string(filepath.Separator)

// withBodies are the standard library's packages whose function bodies
// kernels run, as lower's library tables say.
var withBodies = map[string]bool{"math": true, "math/bits": true, "math/cmplx": true}

// bodiless reports whether the functions of the file named filename are
// parsed without their bodies.
func bodiless(filename string) bool {
	rel, ok := strings.CutPrefix(filename, goroot)
	return ok && !withBodies[filepath.ToSlash(filepath.Dir(rel))]
}

// parseFile parses a file as go/packages does, then drops the bodies of
// its functions if it belongs to the standard library outside math. The
// bodies of generic functions and methods stay: the type checker requires
// them, and instances of generic functions such as slices.Index are built
// from them.
func parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	const mode = parser.AllErrors | parser.ParseComments // go/packages' own
	if !bodiless(filename) {
		return parser.ParseFile(fset, filename, src, mode)
	}
	f, err := parser.ParseFile(fset, filename, src, mode|parser.SkipObjectResolution)
	if f == nil {
		return f, err
	}
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name != "init" && !generic(fn) {
			fn.Body = nil
		}
	}
	return f, err
}

// generic reports whether fn is a generic function or a method of a
// generic type.
func generic(fn *ast.FuncDecl) bool {
	if fn.Type.TypeParams != nil {
		return true
	}
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return false
	}
	recv := fn.Recv.List[0].Type
	if star, ok := recv.(*ast.StarExpr); ok {
		recv = star.X
	}
	switch recv.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}

// unusedImport matches the type checker's error for an import that no
// code of the file uses.
var unusedImport = regexp.MustCompile(`^"[^"]+" imported (as \w+ )?and not used$`)

// dropUnusedImports drops the errors of imports that only the dropped
// bodies used, and marks packages well typed again where no other errors
// are left in them or their dependencies.
func dropUnusedImports(pkgs []*packages.Package) {
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		kept := p.Errors[:0]
		for _, e := range p.Errors {
			if e.Kind == packages.TypeError && unusedImport.MatchString(e.Msg) && bodiless(errorFile(e)) {
				continue
			}
			kept = append(kept, e)
		}
		p.Errors = kept
		if p.Types == nil {
			return
		}
		p.IllTyped = len(p.Errors) > 0
		for _, imp := range p.Imports {
			p.IllTyped = p.IllTyped || imp.IllTyped
		}
	})
}

// errorFile is the file of an error's position, "file:line:col".
func errorFile(e packages.Error) string {
	pos := e.Pos
	for range 2 {
		if i := strings.LastIndexByte(pos, ':'); i >= 0 {
			pos = pos[:i]
		}
	}
	return pos
}
