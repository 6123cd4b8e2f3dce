package analyzer_test

import (
	"testing"

	"github.com/qdgo/qd/analyzer"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestGood checks that valid kernels get no diagnostics, and the facts
// recorded for another package's functions.
func TestGood(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "helperpkg", "good")
}

// TestBad checks the diagnostic of each unsupported construct: its
// position and message.
func TestBad(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "bad")
}

// TestStreamParallel checks the rules for qd.StreamParallel: where it may
// be called, with what, and races between the blocks of a group.
func TestStreamParallel(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "sp")
}

// TestReductions checks which carried variables are reductions, and the
// diagnostics of those that are not.
func TestReductions(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "reduce")
}

// TestDependences checks the dependence check of parallel loops: what it
// reports, where, and the precise cases it accepts.
func TestDependences(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "depend")
}
