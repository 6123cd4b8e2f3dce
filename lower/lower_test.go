package lower_test

import (
	"path/filepath"
	"testing"

	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestGolden lowers the kernels of testdata/src/kernels and compares the
// printed IR of each source file with its golden file, file.ir.
func TestGolden(t *testing.T) {
	dir := filepath.Join("testdata", "src", "kernels")
	for _, f := range lowertest.Load(t, dir) {
		golden.Check(t, filepath.Join(dir, f.Name+".ir"), ir.FormatKernels(f.Kernels))
	}
}
