// Command qdgen compiles the //qd:kernel functions of Go packages for the
// GPU and writes, in each package, one Go file with the device code and
// typed launch stubs.
//
// Usage:
//
//	qdgen [-o file] [-backends ptx,hip] [-dump dir] [-check] [-v] [-cubin sm_80,sm_90 [-ptxas path]] [-hip-arch targets] [packages]
//
// Packages are named as for the go command and default to the current
// directory's. Beside qd_gen.go, which holds the launch stubs, each
// package gets one file per image, which qd_gen.go embeds: qd_gen.ptx,
// qd_gen.hip and qd_gen.ir (the IR, which the CPU race mode runs).
// -backends=ptx or -backends=hip makes the device code of one backend
// only; loading the kernels on the other then fails, saying so. Mark the
// files generated for git and code review with a .gitattributes line such
// as "qd_gen.* linguist-generated".
//
// qd_gen.go records a sum of the package's Go sources. qdvet reports a
// qd_gen.go whose sum is not its sources', and a repeated run on a package
// directory whose sources and generated files are as this qdgen left them
// returns without loading the package. Make it a tool of your module (go get -tool
// github.com/qdgo/qd/cmd/qdgen) and run it through go generate:
//
//	//go:generate go tool qdgen
//
// With -hip-arch gfx90a,gfx942:sramecc+:xnack-, the generated file also
// carries AMD code objects for those targets, built with hipcc (ROCm):
// they load without compiling on GPUs they fit, and the HIP source stays
// the fallback for others.
//
// qdgen prints errors as file:line:col: message diagnostics, and warnings
// for what looks meant for it but does nothing (a misspelled directive, a
// kernel in a test file). A package with errors keeps its generated file
// as it was (-check finds it stale); the other packages are generated all
// the same, and qdgen exits with status 1 naming the packages that
// failed. A package without kernels gets no file. Success is silent; -v
// lists the files written and removed, and prints notes: where a loop
// that a reader may expect to run in parallel runs serially, and why.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/qdgo/qd/emit/hip"
)

func main() {
	var g generator
	flag.StringVar(&g.output, "o", "qd_gen.go", "name of the generated file in each package's directory")
	flag.StringVar(&g.dump, "dump", "", "also write each package's device code, and the IR it was emitted from, to this directory (package.ptx, package.hip, package.ir; package.ptx.ir where a backend's IR differs)")
	backends := flag.String("backends", allBackends(), "the backends to make device code for, such as ptx,hip; the IR, which the CPU race mode runs, is always made")
	flag.BoolVar(&g.check, "check", false, "write nothing; fail if a generated file is missing or not current")
	flag.BoolVar(&g.verbose, "v", false, "list the files written and removed, and print notes on how kernels run: which loops run in parallel and which serially, and why")
	cubins := flag.String("cubin", "", "also embed cubins for these architectures, such as sm_80,sm_90, built with ptxas (PTX stays the fallback)")
	flag.StringVar(&g.ptxas, "ptxas", "", "the ptxas of -cubin (default: $PTXAS, else ptxas on PATH); use the oldest that knows the architectures")
	hipTargets := flag.String("hip-arch", "", "also embed AMD code objects for these targets, such as gfx90a,gfx942:sramecc+:xnack-, built with hipcc (HIP source stays the fallback)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: qdgen [-o file] [-backends list] [-dump dir] [-check] [-v] [-cubin archs [-ptxas path]] [-hip-arch targets] [packages]\n\n")
		fmt.Fprintf(os.Stderr, "qdgen compiles the //qd:kernel functions of each package for the GPU and\n")
		fmt.Fprintf(os.Stderr, "writes their launch stubs to the package's directory. Packages default to \".\".\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	var err error
	g.backends, err = chooseBackends(*backends)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if g.cubins, err = cubinArchs(*cubins); err == nil && len(g.cubins) > 0 {
		g.ptxas, err = findPtxas(g.ptxas)
	}
	if err == nil && *hipTargets != "" {
		g.hipTargets = strings.Split(*hipTargets, ",")
		g.hipcc, err = hip.Compiler()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	cleanUpOnSignal()
	if err := g.run(patterns); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
