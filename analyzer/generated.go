package analyzer

import (
	"path/filepath"

	"github.com/qdgo/qd/internal/genhash"
	"golang.org/x/tools/go/analysis"
)

// Generated reports a file qdgen generated whose package's sources have
// changed since: the sum of the sources it records (genhash) is not
// theirs. Such a file builds, and the CPU backend runs the current Go
// functions, while a GPU would run the kernels as they were.
var Generated = &analysis.Analyzer{
	Name: "qdgen",
	Doc:  "check that the files qdgen generated are current for their package's sources",
	URL:  "https://pkg.go.dev/github.com/qdgo/qd/analyzer",
	Run:  runGenerated,
}

func runGenerated(pass *analysis.Pass) (any, error) {
	for _, f := range pass.Files {
		path := pass.Fset.Position(f.Package).Filename
		recorded, ok := genhash.Recorded(path)
		if !ok {
			continue
		}
		current, err := genhash.Sources(filepath.Dir(path), filepath.Base(path))
		if err != nil || current == recorded {
			continue
		}
		pass.Reportf(f.Package, "%s is not current: the package's sources changed since qdgen generated it; run go generate (or go tool qdgen) in this package", filepath.Base(path))
	}
	return nil, nil
}
