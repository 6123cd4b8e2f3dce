// Package lowertest loads test kernels from source for the tests of lower
// and the emitters.
package lowertest

import (
	"go/ast"
	"path/filepath"
	"testing"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"github.com/qdgo/qd/opt"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// File is one source file of test kernels, lowered.
type File struct {
	Name    string // base name without .go
	Kernels []*ir.Kernel
}

// Load lowers the kernels of the package in dir and optimizes them with
// the default pipeline, grouped by source file in file order, and fails the
// test on any diagnostic.
func Load(t testing.TB, dir string) []File {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("package in %s has errors", dir)
	}
	prog, spkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics|ssa.SanityCheckFunctions)
	spkgs[0].Build()
	p := pkgs[0]
	var files []File
	for i, f := range p.Syntax {
		name := filepath.Base(p.CompiledGoFiles[i])
		var ks []*ir.Kernel
		for _, decl := range lower.KernelDecls([]*ast.File{f}) {
			k, diags := lower.Kernel(lower.KernelFunc(prog, p.TypesInfo, decl), &lower.Config{})
			for _, d := range diags {
				t.Errorf("%s: %s", prog.Fset.Position(d.Pos), d.Message)
			}
			if k == nil {
				continue
			}
			if err := opt.Default.Run(k); err != nil {
				t.Errorf("%s: %v", k.Name, err)
			}
			ks = append(ks, k)
		}
		if len(ks) > 0 {
			files = append(files, File{Name: name[:len(name)-len(".go")], Kernels: ks})
		}
	}
	return files
}
