package analyzer_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTestdataCopies fails when the copies of qd's own packages under
// testdata, which the analysis tests import in GOPATH mode, differ from
// the real ones: the tests would then check the analyzer against an API
// qd no longer has.
func TestTestdataCopies(t *testing.T) {
	for _, dir := range []string{".", "internal/blocks", "internal/atomics"} {
		real := filepath.Join("..", dir)
		copied := filepath.Join("testdata", "src", "github.com", "qdgo", "qd", dir)
		files := goFiles(t, real)
		if have := goFiles(t, copied); !slices.Equal(files, have) {
			t.Errorf("%s has %v, %s has %v", real, files, copied, have)
			continue
		}
		for _, name := range files {
			want, err := os.ReadFile(filepath.Join(real, name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(copied, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the real file; copy it: cp %s analyzer/%s",
					filepath.Join(copied, name), filepath.Join(dir, name), filepath.Join(copied, name))
			}
		}
	}
}

// goFiles lists the non-test Go files of a directory.
func goFiles(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			names = append(names, name)
		}
	}
	return names
}
