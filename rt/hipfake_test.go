//go:build cgo

package rt

import (
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHIPDriverOnFake runs the HIP driver's own code on a machine without
// a GPU, against testdata/hipfake, a fake libamdhip64 (with hiprtc inside,
// as ROCm 5 ships it) that logs every call that queues work: opening a
// wave-64 device and reading its target from ROCm 5's property layout,
// memory, streams and events, compiling HIP source and caching the code,
// launches with HIP's end marker, and the order of a stream-parallel
// group's fork and join. The driver loads its library once per process,
// so the test runs in a child process. It needs gcc; under CI it must run.
func TestHIPDriverOnFake(t *testing.T) {
	if os.Getenv("QD_HIPFAKE_CHILD") == "1" {
		testHIPDriver(t, os.Getenv("QDFAKE_LOG"))
		return
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libamdhip64.so")
	if out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", lib, filepath.Join("testdata", "hipfake", "hipfake.c")).CombinedOutput(); err != nil {
		t.Fatalf("building the fake: %v\n%s", err, out)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHIPDriverOnFake$", "-test.v")
	cmd.Env = append(os.Environ(), "QD_HIPFAKE_CHILD=1", "QD_HIP_LIB="+lib, "QD_BACKEND=hip",
		"QDFAKE_LOG="+filepath.Join(dir, "calls.log"), "QD_CACHE_DIR="+filepath.Join(dir, "cache"), "QD_CACHE=", "QD_HIP_ARCH=", "GPU_MAX_HW_QUEUES=", "QD_TRACE=")
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// fakeLog reads the calls logged since the last read.
type fakeLog struct {
	path string
	seen int
}

func (l *fakeLog) next(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(l.path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(data) == 0 {
		lines = nil
	}
	calls := lines[l.seen:]
	l.seen = len(lines)
	return calls
}

// groupSource declares the two entries of a stream-parallel group.
const groupSource = `extern "C" __global__ void blockA(long long *p, long long n) {}
extern "C" __global__ void blockB(long long *p, long long n) {}
`

func testHIPDriver(t *testing.T, logPath string) {
	log := &fakeLog{path: logPath}
	d, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	a := d.attrs
	if d.Backend() != HIP || a.arch != "gfx90a:sramecc+:xnack-" || a.warpSize != 64 || a.maxThreadsPerBlock != 1024 || a.multiprocessors != 104 || d.PoolSize() != 4 {
		t.Fatalf("device %s: %+v, pool %d", d, a, d.PoolSize())
	}
	if !strings.Contains(d.String(), "AMD Instinct MI210 (qd fake)") {
		t.Errorf("device %s", d)
	}
	if _, err := launchConfig(d, []LaunchOption{BlockSize(32)}); err == nil {
		t.Error("a block of 32 threads was accepted on a wave-64 device")
	}

	// Memory and copies.
	b, err := FromSlice(d, []int64{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Read(); err != nil || got[3] != 4 {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	host, err := AllocHost[int64](d, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Free()
	// A copy from or to Go memory returns with the data in place: queued
	// on the stream, then waited for.
	if calls := log.next(t); strings.Join(calls, ";") != "copy to device on s0;synchronize s0;copy to host on s0;synchronize s0" {
		t.Errorf("round trip: %q", calls)
	}

	// Code compiled once, then from the cache; a target's code object
	// that does not fit is not tried, and one the runtime refuses gives
	// way to the source.
	m, err := d.Load(fillSpec)
	if err != nil {
		t.Fatal(err)
	}
	if m.ImageKind() != ImageHIP {
		t.Errorf("loaded from %s", m.ImageKind())
	}
	if calls := log.next(t); strings.Join(calls, ";") != "compile;load module" {
		t.Errorf("first load: %q", calls)
	}
	d2, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	spec := &ModuleSpec{Package: "fill2", Kernels: fillSpec.Kernels, Images: []Image{
		{Kind: ImageHSACO, Arch: "gfx942", Data: "FAKECO: wrong target"},
		{Kind: ImageHSACO, Arch: "gfx90a:xnack-", Data: "not a code object"},
		fillSpec.Images[1],
	}}
	if m2, err := d2.Load(spec); err != nil || m2.ImageKind() != ImageHIP {
		t.Errorf("second load: %v", err)
	}
	if calls := log.next(t); strings.Join(calls, ";") != "load module" {
		t.Errorf("second load, from the cache: %q", calls)
	}
	d2.Close()
	if calls := log.next(t); strings.Join(calls, ";") != "synchronize all" {
		t.Errorf("closing a device: %q", calls)
	}

	// A launch passes the packed arguments with HIP's end marker.
	var args [16]byte
	PutBuffer(args[:], 0, b)
	if err := m.Launch(0, []int64{1}, args[:], nil); err != nil {
		t.Fatal(err)
	}
	want := "launch fill on s0 grid 1 block 1 args " + hex.EncodeToString(args[:])
	if calls := log.next(t); len(calls) != 1 || calls[0] != want {
		t.Errorf("launch: %q, want %q", calls, want)
	}

	// A stream-parallel group on a stream after an upload there: every
	// pool stream waits for an event recorded after the upload, before
	// its block's kernel; the launching stream waits for each block.
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	group, err := d.Load(&ModuleSpec{Package: "group", Images: []Image{{Kind: ImageHIP, Data: groupSource}},
		Kernels: []KernelSpec{{Name: "Group", Groups: []int{2}, Tasks: []TaskSpec{
			{Entry: "blockA", Parallel: true, Block: 1, Group: 1},
			{Entry: "blockB", Parallel: true, Block: 2, Group: 1},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	log.next(t)
	if err := b.CopyFromAsync(host.Data(), s); err != nil {
		t.Fatal(err)
	}
	if err := group.Launch(0, []int64{1000, 1000}, args[:], []LaunchOption{OnStream(s)}); err != nil {
		t.Fatal(err)
	}
	calls := strings.Join(log.next(t), "\n")
	order := regexp.MustCompile(`^copy to device on s(\d+)
record e(\d+) on s(\d+)
s(\d+) waits for e(\d+)
s(\d+) waits for e(\d+)
launch blockA on s(\d+) grid 4 block 256 args [0-9a-f]{32}
launch blockB on s(\d+) grid 4 block 256 args [0-9a-f]{32}
record e(\d+) on s(\d+)
s(\d+) waits for e(\d+)
record e(\d+) on s(\d+)
s(\d+) waits for e(\d+)$`).FindStringSubmatch(calls)
	if order == nil {
		t.Fatalf("group launch:\n%s", calls)
	}
	ids := order[1:]
	stream, fork, p1, p2 := ids[0], ids[1], ids[3], ids[5]
	if ids[2] != stream || ids[4] != fork || ids[6] != fork || ids[7] != p1 || ids[8] != p2 || p1 == p2 ||
		ids[10] != p1 || ids[11] != stream || ids[12] != ids[9] || ids[14] != p2 || ids[15] != stream || ids[16] != ids[13] {
		t.Errorf("group launch out of order:\n%s", calls)
	}

	// Events, with timing.
	e1, _ := d.NewEvent(WithTiming())
	e2, _ := d.NewEvent(WithTiming())
	if err := e1.Record(s); err != nil {
		t.Fatal(err)
	}
	if err := e2.Record(s); err != nil {
		t.Fatal(err)
	}
	if ms, err := ElapsedTime(e1, e2); err != nil || ms <= 0 {
		t.Errorf("elapsed: %v, %v", ms, err)
	}

	// Errors name the call and HIP's error; a compiler's come with its log.
	_, err = d.Load(&ModuleSpec{Package: "broken", Images: []Image{{Kind: ImageHIP, Data: `extern "C" __global__ void k() { frobnicate; }`}}})
	var de *DriverError
	if !errors.As(err, &de) || de.Call != "hiprtcCompileProgram" || de.Name != "HIPRTC_ERROR_COMPILATION" || !strings.Contains(de.Log, "frobnicate") {
		t.Errorf("broken source: %v", err)
	}
	// Functions are looked up at a kernel's first launch.
	missing, err := d.Load(&ModuleSpec{Package: "missing", Images: []Image{{Kind: ImageHIP, Data: groupSource}},
		Kernels: []KernelSpec{{Name: "K", Tasks: []TaskSpec{{Entry: "nosuch"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	err = missing.Launch(0, []int64{1}, make([]byte, 8), nil)
	if !errors.As(err, &de) || de.Call != "hipModuleGetFunction" || de.Name != "hipErrorNotFound" || !strings.Contains(err.Error(), "entry nosuch") {
		t.Errorf("missing entry: %v", err)
	}
	if _, err := d.NewStream(WithPriority(-5)); err == nil || !strings.Contains(err.Error(), "[-1, 0]") {
		t.Errorf("priority out of range: %v", err)
	}
}
