package ptx_test

import (
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

// TestOneExit checks the shape exit.go explains: a task's only ret ends
// its exit block, after the never-taken store, and every return branches
// there; a device function still returns where it does.
func TestOneExit(t *testing.T) {
	tail := regexp.MustCompile(`\$Lexit:\n\tmov\.u32 (%rt\d+), %ntid\.x;\n\tsetp\.eq\.u32 (%pt\d+), (%rt\d+), 0;\n\t@(%pt\d+) st\.global\.u32 \[qd_exit_sink\], 0;\n\tret;$`)
	for name, ks := range load(t) {
		module := ptx.Module(ks)
		for _, k := range ks {
			for _, task := range k.Tasks {
				body := entry(t, module, task.Name)
				m := tail.FindStringSubmatch(body)
				if m == nil || m[1] != m[3] || m[2] != m[4] {
					t.Errorf("%s %s: does not end in the exit block", name, task.Name)
					continue
				}
				if n := strings.Count(body, "\tret;"); n != 1 {
					t.Errorf("%s %s: %d ret, want 1", name, task.Name, n)
				}
				if returns := countReturns(task); strings.Count(body, "bra.uni $Lexit;") != returns {
					t.Errorf("%s %s: %d branches to $Lexit, want one per return (%d)", name, task.Name, strings.Count(body, "bra.uni $Lexit;"), returns)
				}
			}
			for _, f := range k.Funcs {
				if body := entry(t, module, f.Name); strings.Contains(body, "$Lexit") || !strings.Contains(body, "\tret;") {
					t.Errorf("%s %s: a device function returns where it does", name, f.Name)
				}
			}
		}
	}
}

func countReturns(task *ir.Task) int {
	n := 0
	for _, b := range task.Blocks {
		if b.Term.Kind == ir.Return {
			n++
		}
	}
	return n
}

// TestSuiteUniformDescriptor assembles bench/suite's kernels for sm_90
// and checks that no loop reloads the memory descriptor into uniform
// registers (R2UR) in each iteration, which ptxas does in the loops of a
// kernel that ends right after them (exit.go). An R2UR before a loop runs
// once per thread and is left alone: under .maxnreg ptxas parks values in
// uniform registers there. A loop is the span from a backward branch's
// target to the branch. It needs ptxas and cuobjdump (bench/sass/fetch-nvcc
// installs both); without them it skips.
func TestSuiteUniformDescriptor(t *testing.T) {
	sass := suiteCubin(t, "-sass")
	if !strings.Contains(sass, "LDG.E") {
		t.Fatal("no global loads in the SASS: the disassembly is not what this test reads")
	}
	instr := regexp.MustCompile(`/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;`)
	branch := regexp.MustCompile(`\bBRA (0x[0-9a-f]+)`)
	type r2ur struct {
		at   uint64
		line string
	}
	var moves []r2ur
	var loops [][2]uint64
	fn := ""
	check := func() {
		for _, m := range moves {
			for _, lp := range loops {
				if lp[0] <= m.at && m.at <= lp[1] {
					t.Errorf("%s: in the loop at %#x–%#x: %s", fn, lp[0], lp[1], m.line)
					break
				}
			}
		}
		moves, loops = nil, nil
	}
	for _, line := range strings.Split(sass, "\n") {
		if _, name, ok := strings.Cut(line, "Function : "); ok {
			check()
			fn = strings.TrimSpace(name)
			continue
		}
		m := instr.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, _ := strconv.ParseUint(m[1], 16, 64)
		if strings.Contains(m[2], "R2UR ") {
			moves = append(moves, r2ur{at, m[2]})
		}
		if b := branch.FindStringSubmatch(m[2]); b != nil {
			if to, err := strconv.ParseUint(b[1], 0, 64); err == nil && to < at {
				loops = append(loops, [2]uint64{to, at})
			}
		}
	}
	check()
	if fn == "" {
		t.Fatal("no functions in the SASS")
	}
}

// suiteCubin assembles bench/suite's kernels for sm_90 and returns what
// cuobjdump prints of the cubin with the given flag; without ptxas or
// cuobjdump the test skips.
func suiteCubin(t *testing.T, flag string) string {
	ptxas, cuobjdump := findPtxas(), findCuobjdump()
	if ptxas == "" || cuobjdump == "" {
		t.Skip("ptxas or cuobjdump not found: set PTXAS and CUOBJDUMP or run bench/sass/fetch-nvcc")
	}
	var kernels []*ir.Kernel
	for _, f := range lowertest.Load(t, "../../bench/suite") {
		kernels = append(kernels, f.Kernels...)
	}
	dir := t.TempDir()
	src, cubin := filepath.Join(dir, "suite.ptx"), filepath.Join(dir, "suite.cubin")
	if err := os.WriteFile(src, []byte(ptx.Module(kernels)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ptxas, "-arch=sm_90", "-O3", src, "-o", cubin).CombinedOutput(); err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
	out, err := exec.Command(cuobjdump, flag, cubin).CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump: %v\n%s", err, out)
	}
	return string(out)
}

func findCuobjdump() string {
	if p := os.Getenv("CUOBJDUMP"); p != "" {
		return p
	}
	if p, err := exec.LookPath("cuobjdump"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "qd-tools", "cuda", "bin", "cuobjdump")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
