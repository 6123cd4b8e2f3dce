package lower_test

import (
	"path/filepath"
	"testing"
	"time"

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

// TestInlineBudget lowers a kernel whose helpers call helpers twice, 24
// levels deep: helpers past the inlining budget become device functions,
// so the code grows linearly with the depth instead of exponentially.
// (The Chain kernel of generated_test runs such helpers against Go.)
func TestInlineBudget(t *testing.T) {
	start := time.Now()
	files := lowertest.Load(t, filepath.Join("testdata", "src", "deep"))
	t.Logf("loaded and lowered in %v", time.Since(start))
	k := files[0].Kernels[0]
	instrs := 0
	for _, b := range k.Bodies() {
		for _, blk := range b.Blocks {
			instrs += len(blk.Instrs)
		}
	}
	if len(k.Funcs) < 3 || instrs > 24*40 {
		t.Errorf("%d functions and %d instructions for 24 levels of helpers:\n%s", len(k.Funcs), instrs, k)
	}
}

// TestLibraryChecksInlined lowers helpers too large to inline at each
// call: the one whose library calls check their arguments (bits.Div64,
// bits.Div32) stay inlined, as a device function cannot report a fault,
// and the plain one becomes a device function, so the test sees both.
func TestLibraryChecksInlined(t *testing.T) {
	files := lowertest.Load(t, filepath.Join("testdata", "src", "libchecks"))
	k := files[0].Kernels[0]
	var names []string
	for _, fn := range k.Funcs {
		names = append(names, fn.Name)
	}
	if len(names) != 1 || names[0] != "Checked$plain" {
		t.Errorf("device functions %q, want only Checked$plain", names)
	}
}
