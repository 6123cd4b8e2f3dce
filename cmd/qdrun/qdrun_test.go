package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/qdgo/qd/nccl"
	"github.com/qdgo/qd/rt"
)

// The launcher's tests start this test binary as the program, running
// TestChildRank in each process.
func childProgram() []string {
	return []string{os.Args[0], "-test.run=^TestChildRank$"}
}

func TestLaunchRanks(t *testing.T) {
	t.Setenv("QDRUN_TEST_CHILD", "1")
	t.Setenv("QD_BACKEND", "cpu")
	var out strings.Builder
	if err := launch(config{perNode: 3, nodes: 1}, childProgram(), &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for r := range 3 {
		if want := fmt.Sprintf("[%d] rank %d of 3: sum 3\n", r, r); !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// A failing process stops the others, which would otherwise wait for it,
// and its exit status is the launcher's error.
func TestLaunchStopsOnFailure(t *testing.T) {
	t.Setenv("QDRUN_TEST_CHILD", "1")
	t.Setenv("QDRUN_TEST_FAIL", "1")
	t.Setenv("QD_BACKEND", "cpu")
	var out strings.Builder
	start := time.Now()
	err := launch(config{perNode: 3, nodes: 1}, childProgram(), &out)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("launch: %v, want rank 1's exit status 3\n%s", err, out.String())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the other ranks ran on for %v", d)
	}
}

func TestParse(t *testing.T) {
	c, prog, err := parse([]string{"-n", "4", "--nnodes", "2", "--node-rank", "1", "--master", "h:1", "./cmd/prog", "-x"})
	if err != nil || c != (config{4, 2, 1, "h:1"}) || strings.Join(prog, " ") != "./cmd/prog -x" {
		t.Errorf("parse: %+v %q %v", c, prog, err)
	}
	for _, bad := range [][]string{{}, {"-n", "0", "p"}, {"--nnodes", "2", "p"}, {"--nnodes", "2", "--node-rank", "2", "--master", "h:1", "p"}} {
		if _, _, err := parse(bad); err == nil {
			t.Errorf("parse(%q) succeeded", bad)
		}
	}
}

// TestChildRank is one process of the launcher's tests.
func TestChildRank(t *testing.T) {
	if os.Getenv("QDRUN_TEST_CHILD") == "" {
		t.Skip("run by the launcher's tests")
	}
	e, err := nccl.ReadEnv()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("QDRUN_TEST_FAIL") != "" && e.Rank == 1 {
		os.Exit(3)
	}
	dev, err := rt.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	c, err := nccl.InitFromEnv(dev, nccl.WithTimeout(60*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, _ := rt.FromSlice(dev, []int64{int64(c.Rank())})
	if err := nccl.AllReduce(c, b, b, nccl.Sum, nil); err != nil {
		t.Fatal(err)
	}
	x, _ := b.Read()
	fmt.Printf("rank %d of %d: sum %d\n", c.Rank(), c.Size(), x[0])
}
