// Package loadtime measures how long a generated module takes to load in a
// new process, the first time (its PTX compiled) and the second (its cubin
// from the module cache), with the driver's own cache off. Each example's
// TestModuleLoadGPU calls it.
package loadtime

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qdgo/qd/rt"
	"github.com/qdgo/qd/rt/rtimpl"
)

const childEnv = "QD_LOADTIME_CHILD"

// Load is one load in a new process: how long it took, and where the code
// came from (Module.LoadedFrom).
type Load struct {
	Took time.Duration
	From string
}

// Check loads spec in two new processes that share a new module cache,
// with CUDA_CACHE_DISABLE=1, logs both loads and checks that the second
// came from the cache. Call it from a test whose name ends in GPU; it
// skips without a GPU.
func Check(t *testing.T, spec *rtimpl.ModuleSpec) (first, second Load) {
	if os.Getenv(childEnv) == "1" {
		child(t, spec)
		return
	}
	dev, err := rt.Open(rt.WithBackend(rt.CUDA))
	if errors.Is(err, rt.ErrNoDevice) {
		t.Skipf("no CUDA device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dev.Close()
	dir := t.TempDir()
	first, second = run(t, dir), run(t, dir)
	t.Logf("module %s, CUDA_CACHE_DISABLE=1: first load %v (%s), second load %v (%s)",
		spec.Package, first.Took.Round(time.Microsecond), first.From, second.Took.Round(time.Microsecond), second.From)
	if !strings.Contains(second.From, "cache") {
		t.Errorf("the second load came from %s, not the module cache", second.From)
	}
	return first, second
}

// run runs the test binary's current test in a child process that loads
// the module.
func run(t *testing.T, cacheDir string) Load {
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1", "QD_CACHE_DIR="+cacheDir, "CUDA_CACHE_DISABLE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "qd-load "); ok {
			us, from, _ := strings.Cut(rest, " ")
			n, err := strconv.ParseInt(us, 10, 64)
			if err == nil {
				return Load{Took: time.Duration(n) * time.Microsecond, From: from}
			}
		}
	}
	t.Fatalf("child printed no load time:\n%s", out)
	return Load{}
}

func child(t *testing.T, spec *rtimpl.ModuleSpec) {
	dev, err := rt.Open(rt.WithBackend(rt.CUDA))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	m, err := rtimpl.Load(dev, spec)
	if err != nil {
		t.Fatal(err)
	}
	from, took := m.LoadedFrom()
	fmt.Printf("qd-load %d %s\n", took.Microseconds(), from)
}
