package analyzer_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
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

// TestAdvice checks that a map literal, indexing a string and append, in
// a parallel loop too, are each reported once, at the construct, with
// what to write instead.
func TestAdvice(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "advice")
}

// TestStreamParallel checks the rules for qd.StreamParallel: where it may
// be called, with what, and races between the blocks of a group.
func TestStreamParallel(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "sp")
}

// TestTypes checks the diagnostics about structs, arrays, constant tables,
// complex numbers and the element types of buffers.
func TestTypes(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "types")
}

// TestNilPointers checks that a kernel's nil pointer is a diagnostic at
// the read that would fault in Go.
func TestNilPointers(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "nilptr")
}

// TestSerialLoops checks the warning at a loop that runs on one thread
// because it is inside a top-level if or switch.
func TestSerialLoops(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "serial")
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

// TestMisspelledDirectives checks which comments read as a mistyped
// //qd:kernel.
func TestMisspelledDirectives(t *testing.T) {
	src := "package p\n\n// qd:kernel\nfunc A() {}\n\n//qd:kernal\nfunc B() {}\n\n//qd: kernel\nfunc C() {}\n\n//QD:Kernel\nfunc D() {}\n\n" +
		"//qd:kernel\nfunc E() {}\n\n// The qd:kernel directive marks kernels.\nfunc F() {}\n\n//qd:other\nfunc G() {}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, d := range analyzer.MisspelledDirectives([]*ast.File{f}) {
		lines = append(lines, fset.Position(d.Pos).Line)
	}
	if want := []int{3, 6, 9, 12}; !slices.Equal(lines, want) {
		t.Errorf("warned at lines %v, want %v", lines, want)
	}
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

// TestBlocks checks the rules of block-level kernels: where qd.Blocks and
// qd.Threads loops may be, what their bodies may hold, and conflicts
// between the threads of a thread loop.
func TestBlocks(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "blocks")
}

// TestPrint checks that kernels may print what device printf writes as Go
// does, and the diagnostic of every verb and operand it cannot.
func TestPrint(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "print")
}
