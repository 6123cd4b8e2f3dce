package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/gostub"
	"github.com/qdgo/qd/emit/hip"
)

// module writes a module holding the files into a temporary directory,
// with qd itself replaced by this checkout.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv("GOFLAGS", "-mod=mod") // let the go command complete the module's requirements
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n\nrequire github.com/qdgo/qd v0.0.0\n\nreplace github.com/qdgo/qd => " + root + "\n"
	files["go.sum"] = string(sum)
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const goodKernels = `package k

//qd:kernel
func Scale(a float32, x []float32) {
	for i := range x {
		x[i] *= a
	}
}
`

const user = `package k

import "github.com/qdgo/qd/rt"

func use(dev *rt.Device, x *rt.Buffer[float32]) error {
	ks, err := Load(dev)
	if err != nil {
		return err
	}
	return ks.Scale(2, x)
}
`

func run(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	out, _, err := runGenerator(t, dir, args...)
	return out, err
}

// runGenerator runs qdgen as run does, and returns the generator too.
func runGenerator(t *testing.T, dir string, args ...string) (string, *generator, error) {
	t.Helper()
	var stderr bytes.Buffer
	g := &generator{output: "qd_gen.go", dir: dir, stderr: &stderr}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-check":
			g.check = true
		case "-v":
			g.verbose = true
		case "-dump":
			g.dump = args[1]
			args = args[1:]
		case "-hip-arch":
			g.hipTargets = strings.Split(args[1], ",")
			g.hipcc, _ = hip.Compiler()
			args = args[1:]
		case "-backends":
			var err error
			if g.backends, err = chooseBackends(args[1]); err != nil {
				t.Fatal(err)
			}
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		args = []string{"./..."}
	}
	err := g.run(args)
	return stderr.String(), g, err
}

func TestGenerateDeterministic(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels, "k/use.go": user})
	if out, err := run(t, dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	path := filepath.Join(dir, "k", "qd_gen.go")
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`).Match(first) || !bytes.HasPrefix(first, []byte(gostub.Header)) {
		t.Errorf("generated file does not start with the standard header:\n%s", first[:80])
	}
	os.Remove(path)
	if out, err := run(t, dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	second, _ := os.ReadFile(path)
	if !bytes.Equal(first, second) {
		t.Error("two runs wrote different bytes")
	}
	if out, err := run(t, dir, "-check"); err != nil {
		t.Errorf("-check of a current file failed: %v\n%s", err, out)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "k", ".qdgen-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestFailureKeepsFile checks that a failed run leaves the generated file
// as it was, whether the error is in a kernel or in host code, and that
// -check then finds it stale.
func TestFailureKeepsFile(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels, "k/use.go": user})
	if out, err := run(t, dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	path := filepath.Join(dir, "k", "qd_gen.go")
	before, _ := os.ReadFile(path)
	for _, c := range []struct{ file, old, new, want string }{
		{"k/k.go", "x[i] *= a", "x[i] *= a\n\t\tgo func() {}()", `(?m)^k/k\.go:7:3: go statements are not supported in kernels`},
		{"k/use.go", "return ks.Scale(2, x)", "return ks.Scale(2, x) + undefinedName", `(?m)^k/use\.go:10:26: undefined: undefinedName`},
	} {
		path := filepath.Join(dir, c.file)
		good, _ := os.ReadFile(path)
		os.WriteFile(path, []byte(strings.Replace(string(good), c.old, c.new, 1)), 0o644)
		out, err := run(t, dir)
		if err == nil || !strings.Contains(err.Error(), "1 of 1 packages failed, their files unchanged: example.com/m/k") {
			t.Errorf("%s: want a failure naming the package, got %v", c.file, err)
		}
		if !regexp.MustCompile(c.want).MatchString(out) {
			t.Errorf("%s: diagnostic not in file:line:col: message form, relative:\n%s", c.file, out)
		}
		if after, _ := os.ReadFile(filepath.Join(dir, "k", "qd_gen.go")); !bytes.Equal(after, before) {
			t.Errorf("%s: the generated file changed", c.file)
		}
		os.WriteFile(path, good, 0o644)
	}
}

func TestCheckFindsStaleFile(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels, "k/use.go": user})
	if out, err := run(t, dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	changed := strings.Replace(goodKernels, "x[i] *= a", "x[i] *= a + 1", 1)
	os.WriteFile(filepath.Join(dir, "k", "k.go"), []byte(changed), 0o644)
	out, err := run(t, dir, "-check")
	if err == nil || !strings.Contains(out, "is not current") {
		t.Errorf("-check accepted a stale file: %v\n%s", err, out)
	}
}

func TestNoKernelsNoFile(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels, "k/use.go": user})
	if out, err := run(t, dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "k", "k.go"), []byte("package k\n"), 0o644)
	os.Remove(filepath.Join(dir, "k", "use.go"))
	if out, err := run(t, dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "k", "qd_gen.go")); !os.IsNotExist(err) {
		t.Error("a package without kernels kept its generated file")
	}
}

func TestRefusesToOverwriteOwnFile(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels, "k/qd_gen.go": "package k\n\n// written by hand\n"})
	out, err := run(t, dir)
	if err == nil || !strings.Contains(out, "was not generated by qdgen") {
		t.Errorf("want a refusal, got %v\n%s", err, out)
	}
	if text, _ := os.ReadFile(filepath.Join(dir, "k", "qd_gen.go")); !strings.Contains(string(text), "written by hand") {
		t.Error("the user's file was changed")
	}
}

func TestDump(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels})
	dump := filepath.Join(t.TempDir(), "ptx")
	if out, err := run(t, dir, "-dump", dump); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text, err := os.ReadFile(filepath.Join(dump, "example_com_m_k.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), ".visible .entry Scale_0(") || !strings.Contains(string(text), ".target sm_70") {
		t.Errorf("unexpected PTX:\n%s", text)
	}
	text, err = os.ReadFile(filepath.Join(dump, "example_com_m_k.ir"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\nkernel Scale(a f32, x []f32)\n") || !strings.Contains(string(text), "task Scale_0 parallel") {
		t.Errorf("unexpected IR:\n%s", text)
	}
	// The backends' IR is the IR image's: one file holds it.
	if names, _ := filepath.Glob(filepath.Join(dump, "*")); len(names) != 3 {
		t.Errorf("dump files %v, want the PTX, the HIP and the IR", names)
	}
	text, err = os.ReadFile(filepath.Join(dump, "example_com_m_k.hip"))
	if err != nil || !strings.Contains(string(text), `extern "C" __global__ void Scale_0(float p0, char *p1, i64 p2)`) {
		t.Errorf("unexpected HIP (%v):\n%s", err, text)
	}
}

// TestHIPArch embeds a code object built with hipcc, and checks that the
// file stays current under -check with the same targets. Without hipcc
// it skips, except under CI.
func TestHIPArch(t *testing.T) {
	if _, err := hip.Compiler(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := module(t, map[string]string{"k/k.go": goodKernels})
	if out, err := run(t, dir, "-hip-arch", "gfx90a"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text, err := os.ReadFile(filepath.Join(dir, "k", "qd_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{Kind: rtimpl.ImageHSACO, Data: qdHSACO_gfx90a, Arch: "gfx90a"}`, "//go:embed qd_gen.gfx90a.hsaco\nvar qdHSACO_gfx90a string"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the generated file lacks %s", want)
		}
	}
	if code, err := os.ReadFile(filepath.Join(dir, "k", "qd_gen.gfx90a.hsaco")); err != nil || !strings.HasPrefix(string(code), "\x7fELF") {
		t.Errorf("the code object file: %v", err)
	}
	if out, err := run(t, dir, "-check", "-hip-arch", "gfx90a"); err != nil {
		t.Errorf("-check with the same targets: %v\n%s", err, out)
	}
	if _, err := run(t, dir, "-check"); err == nil {
		t.Error("-check without the targets passed")
	}
	if out, err := run(t, dir, "-hip-arch", "gfx9999"); err == nil || !strings.Contains(out, "gfx9999") {
		t.Errorf("an unknown target: %v\n%s", err, out)
	}
}

// TestDiagnosticsOnlyInSources checks that a kernel with a parameter kernels
// cannot have, which code of its package already launches, is reported in
// its own file, never in the generated file that does not exist yet.
func TestDiagnosticsOnlyInSources(t *testing.T) {
	kernel := "package k\n\n//qd:kernel\nfunc Flags(f []string, x []float32) {\n\tfor i := range x {\n\t\tx[i] = 1\n\t}\n}\n"
	use := "package k\n\nimport \"github.com/qdgo/qd/rt\"\n\nfunc use(dev *rt.Device, x *rt.Buffer[float32]) error {\n\tks, err := Load(dev)\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn ks.Flags(nil, x)\n}\n"
	dir := module(t, map[string]string{"k/k.go": kernel, "k/use.go": use})
	out, err := run(t, dir)
	if err == nil {
		t.Fatal("qdgen accepted a []string parameter")
	}
	if strings.Contains(out, "qd_gen.go") || !strings.Contains(out, "k/k.go:4:12: kernel parameter f has type []string") {
		t.Errorf("diagnostics:\n%s", out)
	}
}

const loopKernels = `package k

//qd:kernel
func Loops(out []float32, w int, on bool) {
	if on {
		for i := range out {
			out[i] = 1
		}
	}
	for y := range len(out) / w {
		for x := range w {
			out[y*w+x] += float32(x)
		}
	}
	for y := range len(out) / w {
		for x := range min(y, w) {
			out[y*w+x] = float32(x)
		}
	}
}

//qd:kernel
func Sums(out, in []float32, w int) {
	var sum float32
	for y := range len(in) / w {
		for x := range w {
			sum += in[y*w+x]
		}
	}
	out[0] = sum
	for y := range len(in) / w {
		s := float32(0)
		for x := range w {
			s += in[y*w+x]
			out[y*w+x] = s
		}
	}
}

//qd:kernel
func Stride(x []float32, stride int) {
	for i := range len(x) / 4 {
		x[i*stride] *= 2
	}
}
`

// TestVerboseNotes checks that -v says which loops run in parallel and
// which stay serial, and that without -v a run prints only the warning
// about a loop that runs on one thread because it is inside an if.
func TestVerboseNotes(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": loopKernels})
	out, err := run(t, dir)
	warning := `k/k.go:6:3: warning: this loop runs serially, on one GPU thread, because it is inside an if statement: only loops that are statements of the kernel's body run in parallel; put the test inside the loop instead`
	if err != nil || !strings.HasPrefix(out, warning) || strings.Count(out, "\n") != 1 {
		t.Fatalf("without -v: %v, output %q", err, out)
	}
	out, err = run(t, dir, "-v")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		warning,
		`k/k.go:10:2: note: these 2 nested loops run as one parallel loop over all their iterations`,
		`k/k.go:16:3: note: this loop runs serially in each iteration of the parallel loop around it: its bounds change with the index of the loop around it`,
		`k/k.go:25:2: note: these 2 nested loops run as one parallel loop over all their iterations`,
		`k/k.go:33:3: note: this loop runs serially in each iteration of the parallel loop around it: variable s is carried from one iteration to the next, and it is read in the loop other than to update it`,
		`k/k.go:42:2: note: this loop's iterations touch distinct elements only where stride != 0: the kernel tests that at launch, and runs the loop on one thread, in order, where it fails`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
