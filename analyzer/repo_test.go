package analyzer_test

import (
	"os/exec"
	"testing"

	"github.com/qdgo/qd/analyzer"
	"github.com/qdgo/qd/internal/srcload"
	"github.com/qdgo/qd/lower"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestRepositoryKernels checks every kernel of the repository (the
// examples, the end-to-end tests and the benchmarks): all are accepted,
// so the dependence check rejects none of the loops they are made of.
func TestRepositoryKernels(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not available")
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: ".."}
	pkgs, err := srcload.Load(cfg, "./example/...", "./generated_test/kernels", "./bench/kernels")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the packages have errors")
	}
	prog, spkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	kernels := 0
	for i, p := range pkgs {
		spkgs[i].Build()
		decls := lower.KernelDecls(p.Syntax)
		ks, diags := analyzer.Check(prog, p.Syntax, decls, p.TypesInfo, &lower.Config{})
		for _, d := range diags {
			t.Errorf("%s: %s", prog.Fset.Position(d.Pos), d.Message)
		}
		kernels += len(ks)
	}
	if kernels < 30 {
		t.Errorf("checked %d kernels; the repository has more", kernels)
	}
}
