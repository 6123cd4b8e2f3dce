package ptx_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/ptx"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestMathRegisters assembles bench/kernels for sm_90 and checks that the
// math benchmarks' kernels use at most 32 registers a thread, so that a
// multiprocessor holds 8 blocks of 256 threads of them, its most: with 34,
// math.Pow's kernel held 6 (opt.ShrinkLiveRanges keeps it at 32). It needs
// ptxas; without it the test skips.
func TestMathRegisters(t *testing.T) {
	ptxas := findPtxas()
	if ptxas == "" {
		t.Skip("ptxas not found: set PTXAS or run ../shared/tools/fetch-ptxas")
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
