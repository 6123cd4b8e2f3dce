// Package golden compares test output with golden files. Run the tests
// with -update to rewrite the files instead, then review the diff.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// update is a flag of every test binary that imports this package.
var update = flag.Bool("update", false, "rewrite the golden files")

// Check compares got with the contents of the file at path, or writes got
// there under -update.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test %s -update to create it)", err, packagePattern())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; run go test %s -update and review the diff\n%s",
			path, packagePattern(), Diff(string(want), got))
	}
}

// Diff shows the first line where two texts differ.
func Diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
}

// packagePattern names the package under test as go test takes it, as
// "./emit/ptx", from the module root; tests run in their package's
// directory.
func packagePattern() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for root := dir; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, dir)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(root) == root {
			return "."
		}
	}
}
