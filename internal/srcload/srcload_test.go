package srcload

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestBodies loads a package that imports fmt, math and slices: it loads
// without errors, and the functions of math, of the package itself and
// the instances of slices' generic functions have bodies, fmt's not.
func TestBodies(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"m.go":   "package m\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\t\"slices\"\n)\n\nfunc F(x []float64) string {\n\tslices.Sort(x)\n\treturn fmt.Sprint(math.Sqrt(x[0]))\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := Load(&packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}, ".")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 || pkgs[0].IllTyped {
		t.Fatal("errors loading the package")
	}
	prog, ssaPkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	bodies := map[string]bool{}
	for fn := range ssautil.AllFunctions(prog) {
		bodies[fn.String()] = fn.Blocks != nil
	}
	for name, want := range map[string]bool{
		"example.com/m.F":                 true,
		"math.Sqrt":                       true,
		"math/bits.LeadingZeros":          true,
		"slices.Sort[[]float64, float64]": true,
		"fmt.Sprint":                      false,
		"strconv.FormatFloat":             false,
	} {
		if has, ok := bodies[name]; !ok || has != want {
			t.Errorf("%s: found %v, body %v, want body %v", name, ok, has, want)
		}
	}
	if ssaPkgs[0] == nil {
		t.Error("no SSA package for the loaded package")
	}
}
