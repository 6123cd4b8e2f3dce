package ptx_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/ptx"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestSuiteRegisters checks that the suite's kernels which nvcc fits in 32
// registers per thread fit in 32 in qd's code too, and the stencils, whose
// unrolled grid-stride loops ask ptxas for 32: above that, a
// multiprocessor holds fewer threads (1536 of 2048 at 33 to 40), and the
// memory-bound loops of Matmul and MatVec lose a quarter of the loads in
// flight. The copies of loops that keep their checks count, though they
// never run in launches that do not fault (opt.UnrollLoops). It needs
// ptxas and cuobjdump, as TestSuiteUniformDescriptor does.
//
// Nor may they spill to local memory, which costs the memory-bound loops
// the bandwidth they need. The 2-D stencil spilled 16 bytes while the
// bounds of the window of its checks (opt.HoistChecks) were computed
// from each thread's first index; they are the same in every thread now.
// The 3-D stencil still spills a few values under 32 registers (24 bytes,
// with this ptxas and with the H100 driver's compiler alike). Conv3D,
// held to 40 (opt.NarrowIndices), spills 8 bytes in its 64-bit loop
// only, which runs for sizes past int32 and to fault; its 32-bit loop
// spills nothing, and without the limit ptxas gave it 47 registers.
func TestSuiteRegisters(t *testing.T) {
	usage := suiteCubin(t, "-res-usage")
	function := regexp.MustCompile(`Function (\w+):\s*\n\s*REG:(\d+) STACK:(\d+)`)
	registers, stack := map[string]int{}, map[string]int{}
	for _, m := range function.FindAllStringSubmatch(usage, -1) {
		registers[m[1]], _ = strconv.Atoi(m[2])
		stack[m[1]], _ = strconv.Atoi(m[3])
	}
	for name, n := range stack {
		if n > 0 && name != "Stencil3D_0" && name != "Conv3D_0" {
			t.Errorf("%s: %d bytes of stack, want none", name, n)
		}
	}
	for _, name := range []string{"Matmul_0", "MatVec_0", "DigitSum_0", "Options_0", "Daxpy_0", "Blur_0", "Hash_0", "Xorshift_0", "Mandelbrot32_0", "Mandelbrot64_0", "Stencil2D_0", "Stencil3D_0"} {
		n, ok := registers[name]
		switch {
		case !ok:
			t.Errorf("%s: no register count in cuobjdump -res-usage", name)
		case n > 32:
			t.Errorf("%s: %d registers per thread, want at most 32", name, n)
		}
	}
}

// TestMathRegisters assembles bench/kernels for sm_90 and checks that the
// math benchmarks' kernels use at most 32 registers a thread, so that a
// multiprocessor holds 8 blocks of 256 threads of them, its most: with 34,
// math.Pow's kernel held 6 (opt.ShrinkLiveRanges keeps it at 32). It needs
// ptxas; without it the test skips.
func TestMathRegisters(t *testing.T) {
	ptxas := findPtxas()
	if ptxas == "" {
		t.Skip("ptxas not found: set PTXAS or run .ci/ptxas")
	}
	var kernels []*ir.Kernel
	for _, f := range lowertest.Load(t, "../../bench/kernels") {
		kernels = append(kernels, f.Kernels...)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "kernels.ptx")
	if err := os.WriteFile(src, []byte(ptx.Module(kernels)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ptxas, "-arch=sm_90", "-O3", "-v", src, "-o", filepath.Join(dir, "kernels.cubin")).CombinedOutput()
	if err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
	regs := ptxasRegisters(string(out))
	for _, name := range []string{"Exp_0", "Log_0", "Pow_0", "Sin_0", "Cos_0"} {
		n, ok := regs[name]
		if !ok {
			t.Errorf("ptxas reported no registers for %s", name)
		} else if n > 32 {
			t.Errorf("%s uses %d registers, want at most 32", name, n)
		}
	}
}

// ptxasRegisters reads the registers of each function from ptxas -v.
func ptxasRegisters(log string) map[string]int {
	regs := map[string]int{}
	fn := ""
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		line := sc.Text()
		if _, name, ok := strings.Cut(line, "Function properties for "); ok {
			fn = strings.TrimSpace(name)
		}
		if _, rest, ok := strings.Cut(line, "Used "); ok && fn != "" {
			if n, err := strconv.Atoi(strings.Fields(rest)[0]); err == nil {
				regs[fn] = n
			}
		}
	}
	return regs
}
