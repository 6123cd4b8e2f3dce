// Command randgen writes packages of random kernels, with their generated
// code and a test that runs each against its Go function, for a run on a
// GPU machine without Go: build their test binaries with .ci/gpu-tests and
// run them there.
//
//	go run ./internal/randprog/cmd/randgen -dir internal/randprog/testdata/gpu -programs 2000
//	.ci/gpu-tests ./internal/randprog/testdata/gpu/...
//	QD_BACKEND=cuda bash .gpu/run.sh -test.run TestRandom -test.v   # on the GPU machine
//
// With -classify it only lowers and compiles the kernels, a chunk of
// packages at a time, and counts what qd accepts and rejects and where it
// fails, which is quick enough for tens of thousands of kernels:
//
//	go run ./internal/randprog/cmd/randgen -classify -programs 10000 -seed 7
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
	classify := flag.Bool("classify", false, "only lower and compile the kernels, and count; write no code")
	chunk := flag.Int("chunk", 10, "with -classify, packages loaded at a time")
	verbose := flag.Bool("v", false, "print the first diagnostic of each rejected kernel")
	flag.Parse()
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pkgs := (*programs + *perPackage - 1) / *perPackage
	var report *randprog.Report
	if *classify {
		report, err = classifyAll(abs, *seed, pkgs, *perPackage, *chunk)
	} else {
		report, err = randprog.Build(abs, *seed, pkgs, *perPackage)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(report)
	if *verbose {
		for _, r := range report.Rejections {
			fmt.Println("rejected:", r)
		}
	}
	for _, p := range report.Problems {
		fmt.Println(p)
	}
	if report.Failed() {
		os.Exit(1)
	}
}

// classifyAll classifies pkgs packages a chunk at a time, each chunk in
// its own directory under dir, removed after, with the seeds Build would
// give them.
func classifyAll(dir string, seed uint64, pkgs, perPackage, chunk int) (*randprog.Report, error) {
	total := &randprog.Report{}
	for first := 0; first < pkgs; first += chunk {
		cdir := filepath.Join(dir, fmt.Sprintf("chunk%d", first/chunk))
		r, err := randprog.Classify(cdir, seed+uint64(first)*7919, min(chunk, pkgs-first), perPackage)
		os.RemoveAll(cdir)
		if err != nil {
			return total, err
		}
		total.Add(r)
		fmt.Fprintf(os.Stderr, "%d/%d packages: %v\n", first+min(chunk, pkgs-first), pkgs, total)
	}
	return total, nil
}
