package ptx_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/ptx"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestLineInformation checks that every store of Saxpy is located at the
// Go line that writes y[i], in the file the module declares.
func TestLineInformation(t *testing.T) {
	dir := "../../lower/testdata/src/kernels"
	src, err := os.ReadFile(dir + "/basic.go")
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "y[i] = a*x[i] + y[i]") {
			line = i + 1
			break
		}
	}
	for _, f := range lowertest.Load(t, dir) {
		if f.Name != "basic" {
			continue
		}
		module := ptx.Module(f.Kernels)
		if !strings.Contains(module, "\n.file 1 \"basic.go\"\n") {
			t.Fatalf("no .file 1 \"basic.go\" in\n%s", module)
		}
		entry := module[strings.Index(module, ".entry Saxpy_0("):]
		entry = entry[:strings.Index(entry, "\n}\n")]
		loc, stores := "", 0
		want := fmt.Sprintf(".loc 1 %d ", line)
		for _, l := range strings.Split(entry, "\n") {
			l = strings.TrimSpace(l)
			switch {
			case strings.HasPrefix(l, ".loc "):
				loc = l
			case regexp.MustCompile(`^st\.global\.f32`).MatchString(l):
				stores++
				if !strings.HasPrefix(loc, want) {
					t.Errorf("%s is located at %q, want line %d", l, loc, line)
				}
			}
		}
		if stores == 0 {
			t.Errorf("Saxpy_0 has no store:\n%s", entry)
		}
		return
	}
	t.Fatal("no kernels of basic.go")
}
