package lower_test

import (
	"go/ast"
	"path/filepath"
	"testing"

	"github.com/qdgo/qd/internal/srcload"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestZeroBarrier lowers the kernels of testdata/src/ownzero, without
// optimizing them, and counts their barriers: one at the end of each of
// their two thread loops, and one after the zeroes of the shared tile
// unless each word of it is first used by the thread that zeroed it. A
// barrier dropped where another thread's zero may land after a thread's
// store would lose the store (or let a read see the word before it is
// zero), which the CPU interpreter, running threads in order, would
// never show.
func TestZeroBarrier(t *testing.T) {
	want := map[string]int{"Flat": 2, "Rows": 2, "HalfStep": 3, "Neighbour": 3, "Columns": 3, "Rows33": 3}
	dir := filepath.Join("testdata", "src", "ownzero")
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
	seen := 0
	for _, decl := range lower.KernelDecls([]*ast.File(p.Syntax)) {
		k, diags := lower.Kernel(lower.KernelFunc(prog, p.TypesInfo, decl), &lower.Config{})
		for _, d := range diags {
			t.Errorf("%s: %s", prog.Fset.Position(d.Pos), d.Message)
		}
		if k == nil {
			continue
		}
		barriers := 0
		for _, task := range k.Bodies() {
			for _, b := range task.Blocks {
				for _, in := range b.Instrs {
					if in.Op == ir.OpBarrier {
						barriers++
					}
				}
			}
		}
		if n, ok := want[k.Name]; !ok || barriers != n {
			t.Errorf("%s: %d barriers, want %d", k.Name, barriers, n)
		}
		seen++
	}
	if seen != len(want) {
		t.Errorf("lowered %d kernels, want %d", seen, len(want))
	}
}
