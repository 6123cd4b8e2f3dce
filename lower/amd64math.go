package lower

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/types"
	"path"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// amd64MathPath is the import path of package amd64math, whose functions
// replace the amd64 assembly of package math in kernels.
const amd64MathPath = "github.com/qdgo/qd/lower/internal/amd64math"

//go:embed internal/amd64math/*.go
var amd64MathSource embed.FS

// amd64MathMu serializes adding package amd64math to a program.
var amd64MathMu sync.Mutex

// amd64MathFunc returns the function name of package amd64math in prog.
// Kernels' programs do not import the package, so it is built into prog
// from its embedded source the first time a kernel needs it, against
// prog's own package math.
func amd64MathFunc(prog *ssa.Program, name string) (*ssa.Function, error) {
	amd64MathMu.Lock()
	defer amd64MathMu.Unlock()
	pkg := prog.ImportedPackage(amd64MathPath)
	if pkg == nil {
		var err error
		if pkg, err = buildAMD64Math(prog); err != nil {
			return nil, fmt.Errorf("building package amd64math: %v", err)
		}
	}
	fn := pkg.Func(name)
	if fn == nil {
		return nil, fmt.Errorf("package amd64math has no function %s", name)
	}
	return fn, nil
}

func buildAMD64Math(prog *ssa.Program) (*ssa.Package, error) {
	math := prog.ImportedPackage("math")
	if math == nil {
		return nil, fmt.Errorf("package math is not loaded")
	}
	dir := "internal/amd64math"
	entries, err := amd64MathSource.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src, err := amd64MathSource.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(prog.Fset, path.Join(amd64MathPath, e.Name()), src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{
		Types:        make(map[ast.Expr]types.TypeAndValue),
		Defs:         make(map[*ast.Ident]types.Object),
		Uses:         make(map[*ast.Ident]types.Object),
		Implicits:    make(map[ast.Node]types.Object),
		Selections:   make(map[*ast.SelectorExpr]*types.Selection),
		Scopes:       make(map[ast.Node]*types.Scope),
		Instances:    make(map[*ast.Ident]types.Instance),
		FileVersions: make(map[*ast.File]string),
	}
	conf := types.Config{Importer: importerFunc(func(path string) (*types.Package, error) {
		if path == "math" {
			return math.Pkg, nil
		}
		return nil, fmt.Errorf("package amd64math may import only math, not %s", path)
	})}
	tpkg, err := conf.Check(amd64MathPath, prog.Fset, files, info)
	if err != nil {
		return nil, err
	}
	pkg := prog.CreatePackage(tpkg, files, info, true)
	pkg.Build()
	return pkg, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
