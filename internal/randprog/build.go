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
	"runtime/debug"
	"strings"

	"github.com/qdgo/qd/emit"
	"github.com/qdgo/qd/internal/srcload"
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
	// Failures of qd: panics while lowering or compiling, internal errors,
	// and diagnostics without a position in the kernel's file.
	Panics, Internal, Unpositioned int
	// Problems describes the invalid packages and the failures;
	// Rejections the first diagnostic of each rejected kernel.
	Problems, Rejections []string
}

func (r *Report) String() string {
	return fmt.Sprintf("%d programs: %d accepted, %d rejected with positioned diagnostics, %d panics, %d internal errors, %d unpositioned diagnostics, %d invalid",
		r.Programs, r.Accepted, r.Rejected, r.Panics, r.Internal, r.Unpositioned, r.Invalid)
}

// Failed reports whether qd failed on a kernel, or the generator wrote
// invalid Go.
func (r *Report) Failed() bool {
	return r.Panics+r.Internal+r.Unpositioned+r.Invalid > 0
}

// Add adds the counts of another report to r.
func (r *Report) Add(o *Report) {
	r.Programs += o.Programs
	r.Invalid += o.Invalid
	r.Accepted += o.Accepted
	r.Rejected += o.Rejected
	r.Panics += o.Panics
	r.Internal += o.Internal
	r.Unpositioned += o.Unpositioned
	r.Problems = append(r.Problems, o.Problems...)
	r.Rejections = append(r.Rejections, o.Rejections...)
}

// Build writes packages p0, p1, ... of random kernels, kernels each, under
// dir, which must lie in the qd module, from seed. It lowers every kernel
// and compiles it with every backend, keeps in each package the kernels qd
// accepts, and writes their generated code with qdgen and a test that
// runs them against Go (Run).
func Build(dir string, seed uint64, pkgs, kernels int) (*Report, error) {
	report, err := Classify(dir, seed, pkgs, kernels)
	if err != nil {
		return report, err
	}
	cmd := exec.Command("go", "tool", "qdgen", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return report, fmt.Errorf("qdgen: %v\n%s", err, out)
	}
	return report, nil
}

// Classify writes the packages Build writes, lowers and compiles their
// kernels, and keeps in each package, with its test, the kernels qd
// accepts, without generating their code.
func Classify(dir string, seed uint64, pkgs, kernels int) (*Report, error) {
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
	loaded, err := srcload.Load(&packages.Config{Mode: packages.LoadAllSyntax, Dir: dir}, "./...")
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
	return report, nil
}

// classify lowers and compiles each kernel of p and returns the names of
// those accepted.
func (r *Report) classify(prog *ssa.Program, p *packages.Package) map[string]bool {
	accepted := map[string]bool{}
	for _, decl := range lower.KernelDecls(p.Syntax) {
		where := fmt.Sprintf("%s: kernel %s", p.PkgPath, decl.Name.Name)
		diags, panicked := lowerAndCompile(prog, p, decl)
		switch {
		case panicked != "":
			r.Panics++
			r.Problems = append(r.Problems, fmt.Sprintf("%s: panic: %s", where, panicked))
		case len(diags) == 0:
			accepted[decl.Name.Name] = true
			r.Accepted++
		case internalError(diags) != "":
			r.Internal++
			r.Problems = append(r.Problems, where+": "+internalError(diags))
		case unpositioned(p, diags) != "":
			r.Unpositioned++
			r.Problems = append(r.Problems, where+": unpositioned: "+unpositioned(p, diags))
		default:
			r.Rejected++
			r.Rejections = append(r.Rejections, fmt.Sprintf("%s: %s", p.Fset.Position(diags[0].Pos), diags[0].Message))
		}
	}
	return accepted
}

// lowerAndCompile lowers a kernel and compiles it with every backend,
// returning its diagnostics (a failed compilation is an internal error),
// or the panic and its stack if one of them panicked.
func lowerAndCompile(prog *ssa.Program, p *packages.Package, decl *ast.FuncDecl) (diags []lower.Diagnostic, panicked string) {
	defer func() {
		if v := recover(); v != nil {
			panicked = fmt.Sprintf("%v\n%s", v, debug.Stack())
		}
	}()
	k, diags := lower.Kernel(lower.KernelFunc(prog, p.TypesInfo, decl), &lower.Config{})
	if len(diags) == 0 {
		if _, err := emit.CompileAll(emit.Backends, []*ir.Kernel{k}); err != nil {
			diags = append(diags, lower.Diagnostic{Pos: decl.Pos(), Message: "internal error: " + err.Error()})
		}
	}
	return diags, ""
}

// internalError returns the first diagnostic that reports an internal
// error, or "".
func internalError(diags []lower.Diagnostic) string {
	for _, d := range diags {
		if strings.Contains(d.Message, "internal error") {
			return d.Message
		}
	}
	return ""
}

// unpositioned describes the first diagnostic without a position in its
// package's file, or returns "".
func unpositioned(p *packages.Package, diags []lower.Diagnostic) string {
	for _, d := range diags {
		pos := p.Fset.Position(d.Pos)
		if !pos.IsValid() || filepath.Base(pos.Filename) != "kernels.go" {
			return fmt.Sprintf("%s: %s", pos, d.Message)
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
