//go:build cgo

package rt

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCUDAOnFake times hostOps through qd's CUDA driver over
// testdata/cudafake, a libcuda.so.1 whose calls do nothing: the runtime,
// the calls into C and the shim, without the driver's own work, on a
// machine without a GPU. The driver library loads once per process, so
// the benchmarks run in a child process that finds the fake through
// LD_LIBRARY_PATH; their lines are printed as the child's.
func BenchmarkCUDAOnFake(b *testing.B) {
	if os.Getenv("QD_CUDAFAKE_CHILD") != "1" {
		runCUDAFakeChild(b)
		return
	}
	d, err := Open(WithBackend(CUDA))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if drv, ok := d.drv.(*cudaDriver); !ok || drv.name != "fake" {
		b.Fatalf("opened %v, not the fake", d)
	}
	m, err := d.Load(emptySpec)
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range hostOps {
		b.Run(op.name, func(b *testing.B) {
			measure(b, func() int64 { return 0 }, op.ready(d, m))
		})
	}
}

// runCUDAFakeChild builds the fake and runs BenchmarkCUDAOnFake in a child
// process with this process's -test.benchtime, printing its results.
func runCUDAFakeChild(b *testing.B) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		b.Skip(err)
	}
	dir := b.TempDir()
	lib := filepath.Join(dir, "libcuda.so.1")
	if out, err := exec.Command(gcc, "-O2", "-shared", "-fPIC", "-o", lib, filepath.Join("testdata", "cudafake", "cudafake.c")).CombinedOutput(); err != nil {
		b.Fatalf("building the fake: %v\n%s", err, out)
	}
	args := []string{"-test.run=^$", "-test.bench=^BenchmarkCUDAOnFake$", "-test.benchmem"}
	if f := flag.Lookup("test.benchtime"); f != nil {
		args = append(args, "-test.benchtime="+f.Value.String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "QD_CUDAFAKE_CHILD=1", "LD_LIBRARY_PATH="+dir, "QD_CACHE=off", "QD_TRACE=", "QD_BACKEND=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "BenchmarkCUDAOnFake/") {
			fmt.Println(sc.Text())
		}
	}
	b.Skip("measured in a child process: see the lines above")
}
