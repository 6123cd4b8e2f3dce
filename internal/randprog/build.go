package randprog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/qdgo/qd/emit"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// Report counts the kernels of a build.
type Report struct {
	Programs int // kernels generated
	Invalid  int // in packages that are not valid Go: the generator's fault
	Accepted int
	Rejected int // with diagnostics, each positioned in the kernel's file
	Internal int // internal errors, or diagnostics without a position
	// Problems describes the invalid packages and the internal errors;
	// Rejections the first diagnostic of each rejected kernel.
	Problems, Rejections []string
}

func (r *Report) String() string {
	return fmt.Sprintf("%d programs: %d accepted, %d rejected with positioned diagnostics, %d internal errors, %d invalid",
		r.Programs, r.Accepted, r.Rejected, r.Internal, r.Invalid)
}

// Build writes packages p0, p1, ... of random kernels, kernels each, under
// dir, which must lie in the qd module, from seed. It lowers every kernel
// and compiles it with every backend, keeps in each package the kernels qd
// accepts, and writes their generated code with qdgen and a test that
// runs them against Go (Run).
func Build(dir string, seed uint64, pkgs, kernels int) (*Report, error) {
	report := &Report{}
	var sources []*Source
	for p := range pkgs {
		src := Generate(fmt.Sprintf("p%d", p), seed+uint64(p)*7919, kernels)
		sources = append(sources, src)
		pdir := filepath.Join(dir, src.Package)
		os.RemoveAll(pdir)
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(pdir, "kernels.go"), []byte(src.File(nil)), 0o644); err != nil {
			return nil, err
		}
		report.Programs += kernels
	}
	loaded, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}, "./...")
	if err != nil {
		return nil, err
	}
	prog, ssaPkgs := ssautil.AllPackages(loaded, ssa.InstantiateGenerics)
	byName := map[string]*Source{}
	for _, s := range sources {
		byName[s.Package] = s
	}
	for i, p := range loaded {
		src := byName[p.Name]
		if len(p.Errors) > 0 || ssaPkgs[i] == nil || src == nil {
			report.Invalid += kernels
			report.Problems = append(report.Problems, fmt.Sprintf("%s: %v", p.PkgPath, p.Errors))
			continue
		}
		ssaPkgs[i].Build()
		accepted := report.classify(prog, p)
		pdir := filepath.Join(dir, src.Package)
		if len(accepted) == 0 {
			os.RemoveAll(pdir)
			continue
		}
		if err := os.WriteFile(filepath.Join(pdir, "kernels.go"), []byte(src.File(accepted)), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(pdir, "random_test.go"), []byte(src.TestFile(accepted)), 0o644); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("go", "tool", "qdgen", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return report, fmt.Errorf("qdgen: %v\n%s", err, out)
	}
	return report, nil
}

// classify lowers and compiles each kernel of p and returns the names of
// those accepted.
func (r *Report) classify(prog *ssa.Program, p *packages.Package) map[string]bool {
	accepted := map[string]bool{}
	for _, decl := range lower.KernelDecls(p.Syntax) {
		k, diags := lower.Kernel(lower.KernelFunc(prog, p.TypesInfo, decl), &lower.Config{})
		if len(diags) == 0 {
			if _, err := emit.CompileAll(emit.Backends, []*ir.Kernel{k}); err != nil {
				diags = append(diags, lower.Diagnostic{Pos: decl.Pos(), Message: "internal error: " + err.Error()})
			}
		}
		if len(diags) == 0 {
			accepted[decl.Name.Name] = true
			r.Accepted++
			continue
		}
		if problem := unpositioned(p, decl, diags); problem != "" {
			r.Internal++
			r.Problems = append(r.Problems, problem)
			continue
		}
		r.Rejected++
		r.Rejections = append(r.Rejections, fmt.Sprintf("%s: %s", p.Fset.Position(diags[0].Pos), diags[0].Message))
	}
	return accepted
}

// unpositioned describes a kernel's internal error, or a diagnostic of it
// outside its package's file, or returns "".
func unpositioned(p *packages.Package, decl *ast.FuncDecl, diags []lower.Diagnostic) string {
	for _, d := range diags {
		pos := p.Fset.Position(d.Pos)
		if strings.Contains(d.Message, "internal error") || !pos.IsValid() || filepath.Base(pos.Filename) != "kernels.go" {
			return fmt.Sprintf("%s: kernel %s: %s: %s", p.PkgPath, decl.Name.Name, pos, d.Message)
		}
	}
	return ""
}

// Result counts the kernels a test run compared with Go.
type Result struct {
	Passed, Failed int
	Failures       []string // the failed kernels' output
}

// Test runs the tests of the packages under dir with the environment
// added to this process's, and counts the kernels that agree with Go.
func Test(dir string, env ...string) (*Result, error) {
	cmd := exec.Command("go", "test", "-json", "-count=1", "-vet=off", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	res := &Result{}
	outputs := map[string]*strings.Builder{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct{ Action, Package, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || !strings.HasPrefix(ev.Test, "TestRandom/") {
			continue
		}
		key := ev.Package + " " + ev.Test
		switch ev.Action {
		case "output":
			if outputs[key] == nil {
				outputs[key] = &strings.Builder{}
			}
			outputs[key].WriteString(ev.Output)
		case "pass":
			res.Passed++
		case "fail":
			res.Failed++
			if b := outputs[key]; b != nil {
				res.Failures = append(res.Failures, key+"\n"+b.String())
			}
		}
	}
	if err != nil && res.Failed == 0 {
		return res, fmt.Errorf("go test: %v\n%s%s", err, stderr.String(), lastLines(out, 20))
	}
	return res, nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
