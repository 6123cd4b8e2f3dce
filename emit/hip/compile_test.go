package hip_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/qdgo/qd/emit/hip"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/irtest"
	"github.com/qdgo/qd/lower/lowertest"
)

// kernelDirs are the packages of kernels whose HIP is compiled for AMD
// targets.
var kernelDirs = []string{
	"../../lower/testdata/src/kernels",
	"../../generated_test/kernels",
	"../../example/saxpy",
	"../../example/computeab",
	"../../example/mandelbrot",
	"../../example/streams",
	"../../example/pipeline",
	"../../bench/kernels",
}

// targets are the AMD GPUs every module is compiled for: CDNA2 (MI200)
// and the first CDNA3 target. Debian's LLVM 15 cannot target gfx942
// (MI300X) or gfx1100 (RDNA3).
var targets = []string{"gfx90a", "gfx940"}

// TestCompile compiles every emitted module, and one of every op, with
// hipcc for the AMD targets, with no GPU needed. Without hipcc the test
// skips, except under CI, where .ci/run installs it.
func TestCompile(t *testing.T) {
	t.Parallel() // runs compilers for a while
	hipcc, err := hip.Compiler()
	if errors.Is(err, hip.ErrNoCompiler) {
		if os.Getenv("CI") == "true" {
			t.Fatal("hipcc not found under CI (.ci/run installs Debian's hipcc)")
		}
		t.Skip(err)
	}
	modules := map[string][]*ir.Kernel{}
	for _, dir := range kernelDirs {
		for _, f := range lowertest.Load(t, dir) {
			modules[filepath.Base(dir)+"_"+f.Name] = f.Kernels
		}
	}
	for name, ks := range fromIR(t) {
		modules["fromir_"+name] = ks
	}
	modules["ops"] = append(irtest.OpKernels(false), irtest.OpKernels(true)...)
	type job struct{ name, target string }
	var jobs []job
	for name := range modules {
		for _, target := range targets {
			jobs = append(jobs, job{name, target})
		}
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].name+jobs[i].target < jobs[j].name+jobs[j].target })
	work := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				code, err := hip.CodeObject(hipcc, hip.Module(modules[j.name]), j.target)
				switch {
				case err != nil:
					t.Errorf("%s: %v", j.name, err)
				case !bytes.HasPrefix(code, []byte("\x7fELF")):
					t.Errorf("%s for %s: not an ELF code object", j.name, j.target)
				}
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
}
