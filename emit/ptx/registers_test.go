package ptx_test

import (
	"regexp"
	"strconv"
	"testing"
)

// TestSuiteRegisters checks that the suite's kernels which nvcc fits in 32
// registers per thread fit in 32 in qd's code too: above that, a
// multiprocessor holds fewer threads (1536 of 2048 at 33 to 40), and the
// memory-bound loops of Matmul and MatVec lose a quarter of the loads in
// flight. The copies of loops that keep their checks count, though they
// never run in launches that do not fault (opt.UnrollLoops). It needs
// ptxas and cuobjdump, as TestSuiteUniformDescriptor does.
func TestSuiteRegisters(t *testing.T) {
	usage := suiteCubin(t, "-res-usage")
	function := regexp.MustCompile(`Function (\w+):\s*\n\s*REG:(\d+)`)
	registers := map[string]int{}
	for _, m := range function.FindAllStringSubmatch(usage, -1) {
		registers[m[1]], _ = strconv.Atoi(m[2])
	}
	for _, name := range []string{"Matmul_0", "MatVec_0", "DigitSum_0", "Options_0", "Daxpy_0", "Blur_0", "Hash_0", "Xorshift_0", "Mandelbrot32_0", "Mandelbrot64_0"} {
		n, ok := registers[name]
		switch {
		case !ok:
			t.Errorf("%s: no register count in cuobjdump -res-usage", name)
		case n > 32:
			t.Errorf("%s: %d registers per thread, want at most 32", name, n)
		}
	}
}
