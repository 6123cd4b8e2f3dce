package lower_test

import (
	"path/filepath"
	"testing"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestZeroBarrier lowers the kernels of testdata/src/ownzero, without
// optimizing them, and counts their barriers: one at the end of each of
// their two thread loops, and one after the zeroes of the shared tile
// unless each word of it is first used by the thread that zeroed it. A
// barrier dropped where another thread's zero may land after a thread's
// store would lose the store (or let a read see the word before it is
// zero), which the CPU interpreter, running threads in order, would
// never show.
func TestZeroBarrier(t *testing.T) {
	want := map[string]int{"Flat": 2, "Rows": 2, "HalfStep": 3, "Neighbour": 3, "Columns": 3, "Rows33": 3}
	seen := 0
	for _, f := range lowertest.LoadUnoptimized(t, filepath.Join("testdata", "src", "ownzero")) {
		for _, k := range f.Kernels {
			barriers := countBarriers(k)
			if n, ok := want[k.Name]; !ok || barriers != n {
				t.Errorf("%s: %d barriers, want %d", k.Name, barriers, n)
			}
			seen++
		}
	}
	if seen != len(want) {
		t.Errorf("lowered %d kernels, want %d", seen, len(want))
	}
}

// countBarriers is the number of barrier instructions in k's tasks and
// functions.
func countBarriers(k *ir.Kernel) int {
	barriers := 0
	for _, task := range k.Bodies() {
		for _, b := range task.Blocks {
			for _, in := range b.Instrs {
				if in.Op == ir.OpBarrier {
					barriers++
				}
			}
		}
	}
	return barriers
}
