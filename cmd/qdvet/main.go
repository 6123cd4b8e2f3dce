// Command qdvet reports misuse of qd in //qd:kernel functions: everything
// that cannot run on a GPU, with its position and what to do instead.
//
// Run it alone, or as a vet tool:
//
//	qdvet ./...
//	go vet -vettool=$(which qdvet) ./...
package main

import (
	"github.com/qdgo/qd/analyzer"
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() { singlechecker.Main(analyzer.Analyzer) }
