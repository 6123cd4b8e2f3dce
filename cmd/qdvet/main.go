// Command qdvet is go vet with qd's checks added: go vet's own analyzers,
// the misuse of qd in //qd:kernel functions (everything that cannot run on
// a GPU, with its position and what to do instead), and generated files
// that are not current for their package's sources.
//
// Run it alone, or as go vet's tool, which then loses none of its own
// checks:
//
//	qdvet ./...
//	go vet -vettool=$(go tool -n qdvet) ./...
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"
)

func main() { multichecker.Main(analyzers()...) }
