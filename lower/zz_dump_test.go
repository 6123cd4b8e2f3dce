package lower

import (
	"fmt"
	"go/ast"
	"os"
	"sort"
	"testing"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

func TestZZDump(t *testing.T) {
	dir := os.Getenv("DUMPDIR")
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil || packages.PrintErrors(pkgs) > 0 {
		t.Fatal(err)
	}
	prog, spkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	spkgs[0].Build()
	p := pkgs[0]
	for _, decl := range KernelDecls([]*ast.File(p.Syntax)) {
		fn := KernelFunc(prog, p.TypesInfo, decl)
		l := newLowerer(&Config{SkipDependenceCheck: true}, fn)
		k := l.kernel()

		var out string
		var names []string
		for ti, task := range k.Tasks {
			if lp := l.loopIndexes[task]; lp != nil {
				s := fmt.Sprintf("loop %d index=r%d init=%s bound=%s wide=%s delta=%d", ti, lp.Index, arg(lp.Init), arg(lp.Bound), lp.Wide, lp.Delta)
				if lp.Versioned {
					s += " versioned"
				}
				names = append(names, s)
				for r, c := range lp.Counters {
					names = append(names, fmt.Sprintf("loop %d counter=r%d init=%s count=%s wide=%s", ti, r, arg(c.Init), arg(c.Count), c.Wide))
				}
				for r := range lp.Fixed {
					names = append(names, fmt.Sprintf("loop %d fixed=r%d", ti, r))
				}
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out += n + "\n"
		}
		out += k.String()
		os.WriteFile(dir+"/"+k.Name+".ir", []byte(out), 0o644)
	}
}

func arg(a ir.Arg) string {
	if a.Imm {
		return fmt.Sprint(int64(a.Bits))
	}
	return fmt.Sprintf("r%d", a.Reg)
}
