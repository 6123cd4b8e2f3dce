package randprog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/qdgo/qd/internal/testlong"
)

// TestRandomPrograms generates random kernels, lowers and compiles each,
// writes the code of those qd accepts with qdgen, builds them, and runs
// each on the CPU backend's race mode, which interprets its IR, against
// its Go function. No kernel may cause an internal error or be rejected
// without a position, and every accepted kernel must compute what Go
// computes. RANDPROG_PROGRAMS sets how many (100 by default, 300 under
// QD_LONG=1; thousands on demand), RANDPROG_SEED the seed.
func TestRandomPrograms(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not available (GPU machines run prebuilt test binaries)")
	}
	programs, seed := envInt("RANDPROG_PROGRAMS", testlong.Pick(100, 300)), envInt("RANDPROG_SEED", 1)
	const perPackage = 100
	// testdata holds only the runs' packages, so a fresh clone has none.
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	abs, _ := filepath.Abs(dir)
	start := time.Now()
	report, err := Build(abs, uint64(seed), (programs+perPackage-1)/perPackage, perPackage)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: %v (%v)", seed, report, time.Since(start).Round(time.Second))
	for _, p := range report.Problems {
		t.Error(p)
	}
	for _, r := range report.Rejections {
		t.Logf("rejected: %s", r)
	}
	start = time.Now()
	res, err := Test(abs, "QD_BACKEND=cpu", "QD_CPU_ITERATIONS=concurrent")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("interpreter against Go: %d agree, %d differ (%v)", res.Passed, res.Failed, time.Since(start).Round(time.Second))
	for _, f := range res.Failures {
		t.Error(f)
	}
	if res.Passed+res.Failed != report.Accepted {
		t.Errorf("%d kernels ran, %d were accepted", res.Passed+res.Failed, report.Accepted)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}
