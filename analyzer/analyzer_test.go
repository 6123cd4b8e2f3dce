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

// testdataPackages are the packages of testdata/src that the analyzer
// checks, each against the diagnostics its "// want" comments expect, and
// what each is about. They are checked in one run: each run type-checks
// the standard library and builds its SSA before it gets to them, which
// took most of this package's time when each package had a run of its own.
var testdataPackages = []struct{ pattern, checks string }{
	{"helperpkg", "the facts recorded for another package's functions"},
	{"good", "valid kernels get no diagnostics, calling helperpkg's functions among others"},
	{"bad", "the diagnostic of each unsupported construct: its position and message"},
	{"advice", "a map literal, indexing a string and append, in a parallel loop too, are each reported once, at the construct, with what to write instead"},
	{"sp", "the rules for qd.StreamParallel: where it may be called, with what, and races between the blocks of a group"},
	{"types", "the diagnostics about structs, arrays, constant tables, complex numbers and the element types of buffers"},
	{"nilptr", "a kernel's nil pointer is a diagnostic at the read that would fault in Go"},
	{"serial", "the warning at a loop that runs on one thread because it is inside a top-level if or switch"},
	{"endless", "loops that can never end are reported, and loops with a way out are not"},
	{"constructs", "unsupported constructs are reported at the construct, each of them"},
	{"reduce", "which carried variables are reductions, and the diagnostics of those that are not"},
	{"depend", "the dependence check of parallel loops: what it reports, where, and the precise cases it accepts"},
	{"blocks", "the rules of block-level kernels: where qd.Blocks and qd.Threads loops may be, what their bodies may hold, and conflicts between the threads of a thread loop"},
	{"print", "kernels may print what device printf writes as Go does, and the diagnostic of every verb and operand it cannot"},
}

// TestAnalyzer checks the analyzer's diagnostics on every package of
// testdataPackages, and that no message of those of constructs, bad, sp
// and endless, which report the most, shows a name the compiler made up
// (K$1, t3, jump$2).
func TestAnalyzer(t *testing.T) {
	var patterns []string
	for _, p := range testdataPackages {
		patterns = append(patterns, p.pattern)
	}
	results := analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, patterns...)
	temporary := regexp.MustCompile(`\$\d|\bt\d+\b|jump\$`)
	named := []string{"constructs", "bad", "sp", "endless"}
	seen := 0
	for _, r := range results {
		if !slices.Contains(named, r.Pass.Pkg.Path()) {
			continue
		}
		seen++
		for _, d := range r.Diagnostics {
			if temporary.MatchString(d.Message) {
				t.Errorf("%s: %s", r.Pass.Fset.Position(d.Pos), d.Message)
			}
		}
	}
	if seen != len(named) {
		t.Errorf("the results hold %d of the packages %v", seen, named)
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
