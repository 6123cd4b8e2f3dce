package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testPtxas finds ptxas as the other tests do, or skips.
func testPtxas(t *testing.T) string {
	t.Helper()
	if p, err := findPtxas(""); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "qd-tools", "bin", "ptxas")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("ptxas not found: set PTXAS or run .ci/ptxas")
	return ""
}

// TestCubin generates with -cubin: the file embeds a cubin per
// architecture beside the PTX, builds, and passes -check with the same
// flags.
func TestCubin(t *testing.T) {
	ptxas := testPtxas(t)
	dir := module(t, map[string]string{"k/k.go": goodKernels, "k/use.go": user})
	g := &generator{output: "qd_gen.go", dir: dir, cubins: []string{"sm_80", "sm_90"}, ptxas: ptxas}
	if err := g.run([]string{"./..."}); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "k", "qd_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Data: qdPTX",
		`Data: qdCubin_sm_80,`, `Arch: "sm_80"`,
		`Data: qdCubin_sm_90,`, `Arch: "sm_90"`,
		"//go:embed qd_gen.sm_80.cubin\nvar qdCubin_sm_80 string",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the generated file lacks %s", want)
		}
	}
	if code, err := os.ReadFile(filepath.Join(dir, "k", "qd_gen.sm_80.cubin")); err != nil || !strings.HasPrefix(string(code), "\x7fELF") {
		t.Errorf("the cubin file: %v", err)
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet of the generated package: %v\n%s", err, out)
	}
	g.check = true
	if err := g.run([]string{"./..."}); err != nil {
		t.Errorf("-check with the same -cubin: %v", err)
	}
	if _, err := cubinArchs("sm_80,compute_90"); err == nil {
		t.Error("-cubin accepted compute_90")
	}
}
