package hip_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/hip"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestLineInformation checks that the compiler counts every store of
// Saxpy as the Go line that writes y[i]: the line a #line directive
// names, plus the lines since.
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
	directive := regexp.MustCompile(`^#line (\d+) "basic.go"$`)
	for _, f := range lowertest.Load(t, dir) {
		if f.Name != "basic" {
			continue
		}
		module := hip.Module(f.Kernels)
		fn := module[strings.Index(module, "void Saxpy_0("):]
		fn = fn[:strings.Index(fn, "\n}\n")]
		presumed, stores := -1, 0
		for _, l := range strings.Split(fn, "\n") {
			if m := directive.FindStringSubmatch(l); m != nil {
				presumed, _ = strconv.Atoi(m[1])
				continue
			}
			if regexp.MustCompile(`\*\(float \*\)r\d+ = `).MatchString(l) {
				stores++
				if presumed != line {
					t.Errorf("%s is counted as line %d, want %d", l, presumed, line)
				}
			}
			if presumed >= 0 {
				presumed++
			}
		}
		if stores == 0 {
			t.Errorf("Saxpy_0 has no store:\n%s", fn)
		}
		return
	}
	t.Fatal("no kernels of basic.go")
}
