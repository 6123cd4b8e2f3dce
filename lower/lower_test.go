package lower_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qdgo/qd/lower/lowertest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden lowers the kernels of testdata/src/kernels and compares the
// printed IR of each source file with its golden file, file.ir.
func TestGolden(t *testing.T) {
	dir := filepath.Join("testdata", "src", "kernels")
	for _, f := range lowertest.Load(t, dir) {
		var b strings.Builder
		for i, k := range f.Kernels {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(k.String())
		}
		golden := filepath.Join(dir, f.Name+".ir")
		if *update {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if got := b.String(); got != string(want) {
			t.Errorf("%s: IR differs from the golden file; run go test ./lower -update and review the diff\n%s", golden, firstDiff(string(want), got))
		}
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
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
