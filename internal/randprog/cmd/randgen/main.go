// Command randgen writes packages of random kernels, with their generated
// code and a test that runs each against its Go function, for a run on a
// GPU machine without Go: build their test binaries with .ci/gpu-tests and
// run them there.
//
//	go run ./internal/randprog/cmd/randgen -dir internal/randprog/testdata/gpu -programs 2000
//	.ci/gpu-tests ./internal/randprog/testdata/gpu/...
//	QD_BACKEND=cuda bash .gpu/run.sh -test.run TestRandom -test.v   # on the GPU machine
//
// The directory must lie in the qd module; testdata keeps the packages out
// of ./... patterns.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/qdgo/qd/internal/randprog"
)

func main() {
	dir := flag.String("dir", "internal/randprog/testdata/gpu", "directory of the packages, in the qd module")
	programs := flag.Int("programs", 2000, "number of random kernels")
	perPackage := flag.Int("per-package", 100, "kernels per package")
	seed := flag.Uint64("seed", 1, "seed of the generator")
	flag.Parse()
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	report, err := randprog.Build(abs, *seed, (*programs+*perPackage-1) / *perPackage, *perPackage)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(report)
	for _, p := range report.Problems {
		fmt.Println(p)
	}
	if len(report.Problems) > 0 {
		os.Exit(1)
	}
}
