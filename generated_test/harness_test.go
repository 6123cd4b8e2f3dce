package generated_test

import (
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/internal/kerneltest"
)

// A kernelCase is one kernel under test: its Go function, which is the
// oracle, and how to draw its arguments.
type kernelCase struct {
	name string
	fn   any
	// args draws the arguments for slices of length n; nil draws every
	// argument at random by type.
	args func(r *rand.Rand, n int) []any
}

// lengths are the slice lengths every kernel is tried with: single
// elements, a partial block, several blocks, and more elements than a
// small grid has threads, so that threads stride.
var lengths = []int{1, 7, 300, 4099}

// The harness itself is package kerneltest's.
var (
	randomArgs  = kerneltest.RandomArgs
	randomValue = kerneltest.RandomValue
	sameValue   = kerneltest.SameValue
	cloneArgs   = kerneltest.CloneArgs
	callGo      = kerneltest.CallGo
	upload      = kerneltest.Upload
	callStub    = kerneltest.CallStub
	sliceBytes  = kerneltest.SliceBytes
)

// compareArgs reports the differences of two runs' slices.
func compareArgs(t *testing.T, what string, want, got []any) {
	t.Helper()
	for _, d := range kerneltest.Compare(want, got, 5) {
		t.Errorf("%s: %s", what, d)
	}
}
