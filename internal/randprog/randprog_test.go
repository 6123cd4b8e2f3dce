package randprog

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/qdgo/qd/internal/testlong"
)

var long = flag.Bool("long", false, "run 10,000 random programs (as many as the test's -timeout leaves time for)")

// TestRandomPrograms generates random kernels, lowers and compiles each,
// writes the code of those qd accepts with qdgen, builds them, and runs
// each on the CPU backend's race mode, which interprets its IR, against
// its Go function. No kernel may make qd panic, give an internal error or
// a diagnostic without a position, and every accepted kernel must compute
// what Go computes. Rejections with positioned diagnostics are counted.
//
// By default it runs 100 programs (about 30 s of CPU time), 300 under
// QD_LONG=1 (as CI runs it). -long runs 10,000, in chunks of 1,000,
// starting no chunk that the test's deadline leaves no time for; all of
// them need about 50 minutes of CPU time, so give no deadline:
//
//	go test ./internal/randprog/ -long -timeout 0 -v
//
// RANDPROG_PROGRAMS sets how many, RANDPROG_SEED the seed.
func TestRandomPrograms(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not available (GPU machines run prebuilt test binaries)")
	}
	programs := testlong.Pick(100, 300)
	if *long {
		programs = 10000
	}
	programs, seed := envInt("RANDPROG_PROGRAMS", programs), envInt("RANDPROG_SEED", 1)
	const perPackage, perChunk = 100, 10
	// testdata holds only the runs' packages, so a fresh clone has none.
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	pkgs := (programs + perPackage - 1) / perPackage
	total, agree, differ := &Report{}, 0, 0
	var slowest time.Duration
	for first := 0; first < pkgs; first += perChunk {
		if deadline, ok := t.Deadline(); ok && time.Until(deadline) < 2*slowest+30*time.Second {
			t.Logf("stopping before the test's deadline: %d of %d programs run", total.Programs, programs)
			break
		}
		start := time.Now()
		report, res := runChunk(t, uint64(seed)+uint64(first)*7919, min(perChunk, pkgs-first), min(perPackage, programs))
		total.Add(report)
		agree += res.Passed
		differ += res.Failed
		slowest = max(slowest, time.Since(start))
		t.Logf("%v; interpreter against Go: %d agree, %d differ (%v)", total, agree, differ, time.Since(start).Round(time.Second))
	}
	t.Logf("seed %d: %v; interpreter against Go: %d agree, %d differ", seed, total, agree, differ)
}

// runChunk builds, classifies and runs pkgs packages of random kernels from
// seed, reporting each failure.
func runChunk(t *testing.T, seed uint64, pkgs, perPackage int) (*Report, *Result) {
	dir, err := os.MkdirTemp("testdata", "run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	abs, _ := filepath.Abs(dir)
	report, err := Build(abs, seed, pkgs, perPackage)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range report.Problems {
		t.Error(p)
	}
	if testing.Verbose() {
		for _, r := range report.Rejections {
			t.Logf("rejected: %s", r)
		}
	}
	res, err := Test(abs, "QD_BACKEND=cpu", "QD_CPU_ITERATIONS=concurrent")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	if res.Passed+res.Failed != report.Accepted {
		t.Errorf("seed %d: %d kernels ran, %d were accepted", seed, res.Passed+res.Failed, report.Accepted)
	}
	return report, res
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}
