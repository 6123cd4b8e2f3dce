// Package lowertest loads test kernels from source for the tests of lower
// and the emitters.
package lowertest

import (
	"go/ast"
	"path/filepath"
	"sync"
	"testing"

	"github.com/qdgo/qd/internal/srcload"
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
// test on any diagnostic. A test binary loads each directory once: loading
// type-checks the package and its imports (package math for the math
// kernels) from source, which takes seconds, and the emitters' tests load
// the same directories in several tests. The kernels are shared, so
// callers must not change them.
func Load(t testing.TB, dir string) []File {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	e := loaded[abs]
	if e == nil {
		e = &entry{}
		loaded[abs] = e
	}
	mu.Unlock()
	e.Lock() // one load of a directory at a time; the others wait for it
	defer e.Unlock()
	if e.done {
		return e.files
	}
	files, ok := load(t, dir, true)
	e.files, e.done = files, ok
	return files
}

// LoadUnoptimized lowers the kernels of the package in dir as Load does,
// but runs no pass over them, and loads them anew on each call: for the
// tests of what lowering itself emits.
func LoadUnoptimized(t testing.TB, dir string) []File {
	t.Helper()
	files, _ := load(t, dir, false)
	return files
}

// entry is one directory's kernels, once loaded without errors.
type entry struct {
	sync.Mutex
	files []File
	done  bool
}

var (
	mu     sync.Mutex
	loaded = map[string]*entry{}
)

// load lowers the kernels of dir, and optimizes them if optimize is set,
// and reports whether that went without errors.
func load(t testing.TB, dir string, optimize bool) ([]File, bool) {
	t.Helper()
	ok := true
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}
	pkgs, err := srcload.Load(cfg, ".")
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
				ok = false
			}
			if k == nil {
				continue
			}
			if optimize {
				if err := opt.Default.Run(k); err != nil {
					t.Errorf("%s: %v", k.Name, err)
					ok = false
				}
			}
			ks = append(ks, k)
		}
		if len(ks) > 0 {
			files = append(files, File{Name: name[:len(name)-len(".go")], Kernels: ks})
		}
	}
	return files, ok
}
