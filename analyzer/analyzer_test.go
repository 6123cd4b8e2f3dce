package analyzer_test

import (
	"regexp"
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

// TestEndless checks that loops that can never end are reported, and loops
// with a way out are not.
func TestEndless(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "endless")
}

// TestConstructs checks that unsupported constructs are reported at the
// construct, each of them, and that no message shows a name the compiler
// made up (K$1, t3, jump$2).
func TestConstructs(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "constructs", "bad", "sp", "endless")
	temporary := regexp.MustCompile(`\$\d|\bt\d+\b|jump\$`)
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if temporary.MatchString(d.Message) {
				t.Errorf("%s: %s", r.Pass.Fset.Position(d.Pos), d.Message)
			}
		}
	}
}
