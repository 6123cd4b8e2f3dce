package lower_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/lower/lowertest"
)

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
		golden.Check(t, filepath.Join(dir, f.Name+".ir"), b.String())
	}
}
