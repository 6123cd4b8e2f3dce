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
