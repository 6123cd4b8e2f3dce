package hip_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/qdgo/qd/emit/hip"
	"github.com/qdgo/qd/internal/testlong"
	"github.com/qdgo/qd/ir/irtest"
	"github.com/qdgo/qd/lower/lowertest"
)

// kernelDirs are the packages of kernels whose HIP is compiled for AMD
// targets.
var kernelDirs = []string{
	"../../lower/testdata/src/kernels",
	"../../generated_test/kernels",
	"../../generated_test/mathkernels",
	"../../example/saxpy",
	"../../example/computeab",
	"../../example/mandelbrot",
	"../../example/streams",
	"../../example/pipeline",
	"../../bench/kernels",
	"../../bench/suite",
}

// compileTargets are the AMD GPUs every module is compiled for: CDNA2 (MI200)
// and the first CDNA3 target. Debian's LLVM 15 cannot target gfx942
// (MI300X) or gfx1100 (RDNA3).
var compileTargets = []string{"gfx90a", "gfx940"}

// TestCompile compiles emitted modules with hipcc for the AMD targets, with
// no GPU needed: by default the module of every op and saxpy's, for
// gfx90a, and under QD_LONG=1 every module for every target, which takes
// minutes. Without hipcc the test skips, except under CI, where .ci/run
// installs it. The modules are compiled together, one translation unit per
// target, each in a namespace of its own with its entry points renamed
// apart (a compilation costs about a second of linking device libraries);
// when that fails, each module is compiled alone to name the one at fault.
func TestCompile(t *testing.T) {
	t.Parallel() // runs compilers for a while
	hipcc, err := hip.Compiler()
	if errors.Is(err, hip.ErrNoCompiler) {
		if os.Getenv("CI") == "true" {
			t.Fatal("hipcc not found under CI (.ci/run installs Debian's hipcc)")
		}
		t.Skip(err)
	}
	modules := map[string]string{}
	dirs, targets := []string{"../../example/saxpy"}, compileTargets[:1]
	if testlong.Enabled() {
		dirs, targets = kernelDirs, compileTargets
		for name, ks := range fromIR(t) {
			modules["fromir_"+name] = hip.Module(ks)
		}
	}
	for _, dir := range dirs {
		for _, f := range lowertest.Load(t, dir) {
			modules[filepath.Base(dir)+"_"+f.Name] = hip.Module(f.Kernels)
		}
	}
	modules["ops"] = hip.Module(append(irtest.OpKernels(false), irtest.OpKernels(true)...))
	names := make([]string, 0, len(modules))
	for name := range modules {
		names = append(names, name)
	}
	sort.Strings(names)
	combined := combine(t, names, modules)
	var wg sync.WaitGroup
	for _, target := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, err := hip.CodeObject(hipcc, combined, target)
			switch {
			case err != nil:
				t.Errorf("%d modules together for %s: %.2000v", len(names), target, err)
				for _, name := range names {
					if _, err := hip.CodeObject(hipcc, modules[name], target); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
			case !bytes.HasPrefix(code, []byte("\x7fELF")):
				t.Errorf("modules for %s: not an ELF code object", target)
			}
		}()
	}
	wg.Wait()
}

// entryPoint matches the name of a module's __global__ function.
var entryPoint = regexp.MustCompile(`(?m)^(extern "C" __global__ void )(\w+)\(`)

// combine puts modules into one source: the prelude once, then each
// module's code in a namespace, its entry points prefixed apart.
func combine(t *testing.T, names []string, modules map[string]string) string {
	var b strings.Builder
	b.WriteString(hip.Prelude)
	for i, name := range names {
		body, ok := strings.CutPrefix(modules[name], hip.Prelude)
		if !ok {
			t.Fatalf("module %s does not start with the prelude", name)
		}
		fmt.Fprintf(&b, "\nnamespace qd_m%d { // %s\n", i, name)
		b.WriteString(entryPoint.ReplaceAllString(body, fmt.Sprintf("${1}m%d_${2}(", i)))
		b.WriteString("}\n")
	}
	return b.String()
}
