package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWarnings checks that what looks meant for qdgen but does nothing is
// a warning: misspelled directives, kernels in test files and in files the
// build excludes. They do not fail the run.
func TestWarnings(t *testing.T) {
	dir := module(t, map[string]string{
		"k/k.go": goodKernels + `
// qd:kernel
func Spaced(a []float32) {}

//qd:kernal
func Misspelled(a []float32) {}

// The qd:kernel directive is not this comment.
func Mentioned(a []float32) {}
`,
		"k/k_test.go":    "package k\n\n//qd:kernel\nfunc InTest(a []float32) {}\n",
		"k/excluded.go":  "//go:build never\n\npackage k\n\n//qd:kernel\nfunc Excluded(a []float32) {}\n",
		"k/unrelated.go": "package k\n\n// qdgen: nothing to see\nfunc Other() {}\n",
	})
	out, err := run(t, dir)
	if err != nil {
		t.Fatalf("warnings failed the run: %v\n%s", err, out)
	}
	for _, want := range []string{
		`k/k.go:10:1: warning: "// qd:kernel" is not a qd directive, so the function is not a kernel: write //qd:kernel`,
		`k/k.go:13:1: warning: "//qd:kernal" is not a qd directive`,
		`k/k_test.go:4:6: warning: kernel InTest is not compiled: it is a test file, which qdgen does not compile`,
		`k/excluded.go:6:6: warning: kernel Excluded is not compiled: its file is excluded from the build by build constraints`,
	} {
		if !strings.Contains(out, want+"\n") && !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "warning:"); n != 4 {
		t.Errorf("%d warnings, want 4:\n%s", n, out)
	}
}

// TestQuietAndVerbose checks that success prints nothing, and that -v
// lists what was written and removed, with paths relative to the working
// directory.
func TestQuietAndVerbose(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels})
	if out, err := run(t, dir); err != nil || out != "" {
		t.Fatalf("a successful run printed %q (%v)", out, err)
	}
	os.Remove(filepath.Join(dir, "k", "qd_gen.go"))
	out, err := run(t, dir, "-v")
	if err != nil || out != "qdgen: wrote k/qd_gen.go\n" {
		t.Errorf("-v printed %q (%v)", out, err)
	}
	if out, _ := run(t, dir, "-v"); out != "" {
		t.Errorf("-v of a current file printed %q", out)
	}
	os.WriteFile(filepath.Join(dir, "k", "k.go"), []byte("package k\n"), 0o644)
	if out, _ := run(t, dir, "-v"); out != "qdgen: removed k/qd_gen.go\nqdgen: removed k/qd_gen.hip\nqdgen: removed k/qd_gen.ir\nqdgen: removed k/qd_gen.ptx\n" {
		t.Errorf("-v printed %q", out)
	}
}

// TestTypeErrorsRelative checks that type errors of host code are printed
// with paths relative to the working directory, as diagnostics are.
func TestTypeErrorsRelative(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": goodKernels, "k/host.go": "package k\n\nvar x int = \"s\"\n"})
	out, err := run(t, dir)
	if err == nil || !regexp.MustCompile(`(?m)^k/host\.go:3:13: cannot use "s"`).MatchString(out) {
		t.Errorf("want a relative position, got %v:\n%s", err, out)
	}
}
