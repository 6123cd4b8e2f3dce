package rt

import (
	"fmt"
	"strings"
	"testing"
)

// seqSpec has a kernel of three plain tasks, one of eleven, and one with
// scratch memory.
var seqSpec = func() *ModuleSpec {
	spec := &ModuleSpec{Package: "fake/seq", Images: []Image{{Kind: ImagePTX, Data: "seq ptx"}}, Kernels: []KernelSpec{{
		Name:  "Three",
		Tasks: []TaskSpec{{Entry: "a", Parallel: true}, {Entry: "b"}, {Entry: "c", Parallel: true}},
	}, {
		Name: "Eleven",
	}, {
		Name:            "Sum",
		Tasks:           []TaskSpec{{Entry: "partial", Parallel: true}, {Entry: "total"}},
		ScratchPerBlock: 4,
	}}}
	for i := range 11 {
		spec.Kernels[1].Tasks = append(spec.Kernels[1].Tasks, TaskSpec{Entry: fmt.Sprintf("t%d", i)})
	}
	return spec
}()

// launchCalls launches kernel and returns the driver calls it made.
func launchCalls(t *testing.T, m *Module, drv *fakeDriver, kernel int, counts []int64, opts ...LaunchOption) int64 {
	t.Helper()
	calls := drv.calls.Load()
	var args [16]byte
	if err := m.Launch(kernel, counts, args[:], opts); err != nil {
		t.Fatal(err)
	}
	return drv.calls.Load() - calls
}

// TestLaunchWholeWaves checks that the grid of a parallel task whose
// function fits fewer blocks on a multiprocessor than the device's maximum
// is whole waves of that many blocks, and that its scratch memory is
// sized by that grid.
func TestLaunchWholeWaves(t *testing.T) {
	_, drv, m := fakeModule(t, 0, seqSpec)
	drv.active = map[string]int{"a": 6, "partial": 3}
	m.kernelReady(0)
	m.kernelReady(2)
	drv.takeLog()
	launchCalls(t, m, drv, 0, []int64{1 << 40, 1, 1 << 40})
	// 4 multiprocessors: a holds 6 blocks each, c what the device holds (8).
	expectLog(t, drv, "launch a grid 96×256 on default", "launch b grid 1×1 on default", "launch c grid 128×256 on default")
	if got, want := m.scratchBytes(2, []int64{1 << 40, 1}, launchSettings{}), uintptr(4*3*wavesPerLaunch*4); got != want {
		t.Errorf("scratch of Sum: %d bytes, want %d", got, want)
	}
}

// TestLaunchOneCall checks that a kernel's tasks are launched in order in
// one call into the driver (maxSeqTasks at a time), leaving out a task
// with no iterations.
func TestLaunchOneCall(t *testing.T) {
	_, drv, m := fakeModule(t, 0, seqSpec)
	m.kernelReady(0)
	m.kernelReady(1)
	drv.takeLog()
	if n := launchCalls(t, m, drv, 0, []int64{300, 1, 0}); n != 1 {
		t.Errorf("a kernel of three tasks made %d driver calls", n)
	}
	expectLog(t, drv, "launch a grid 2×256 on default", "launch b grid 1×1 on default")
	if n := launchCalls(t, m, drv, 1, make([]int64, 11)); n != 2 {
		t.Errorf("a kernel of eleven tasks made %d driver calls", n)
	}
	var want []string
	for i := range 11 {
		want = append(want, fmt.Sprintf("launch t%d grid 1×1 on default", i))
	}
	expectLog(t, drv, want...)
}

// TestLaunchScratchOrder checks that a kernel with scratch memory waits
// for its last launch on another stream, and records its end for the
// next, in the same call as its tasks.
func TestLaunchScratchOrder(t *testing.T) {
	d, drv, m := fakeModule(t, 0, seqSpec)
	s1, _ := d.NewStream()
	s2, _ := d.NewStream()
	counts := []int64{1000, 1}
	for i, s := range []*Stream{s1, s2, s2, nil} {
		drv.takeLog()
		if n := launchCalls(t, m, drv, 2, counts, OnStream(s)); n != 1 && i > 0 {
			t.Errorf("launch %d made %d driver calls", i, n)
		}
		log := strings.Join(drv.takeLog(), "; ")
		waits := strings.HasPrefix(log, "wait ")
		if waits != (i == 1 || i == 3) {
			t.Errorf("launch %d on %s: %s", i, s.laneName(), log)
		}
	}
	sc := &m.scratch[2]
	if sc.event == 0 || !sc.used || sc.stream != 0 {
		t.Errorf("scratch memory: event %#x, used %v, last stream %#x", sc.event, sc.used, sc.stream)
	}
	if at := drv.times[sc.event]; at == 0 {
		t.Error("the end event was never recorded")
	}
}

// TestLaunchFailureNamesTask checks that a failed launch names the task
// that failed, counting past tasks that were left out.
func TestLaunchFailureNamesTask(t *testing.T) {
	_, drv, m := fakeModule(t, 0, seqSpec)
	drv.failLaunch = "c"
	var args [16]byte
	err := m.Launch(0, []int64{0, 1, 5}, args[:], nil)
	if err == nil || !strings.Contains(err.Error(), "launch Three (task c): cuLaunchKernel") {
		t.Errorf("a failed launch of task c: %v", err)
	}
}

// TestLazyEntries checks that a kernel's functions are looked up at its
// first launch, not when its module loads, unless CUDA_MODULE_LOADING is
// EAGER; and that a missing entry is an error of that launch.
func TestLazyEntries(t *testing.T) {
	t.Setenv("QD_CACHE", "off")
	d, drv := openFake(0)
	defer d.Close()
	drv.noEntry = "t3"
	m, err := d.Load(seqSpec)
	if err != nil {
		t.Fatalf("load with a missing entry of an unlaunched kernel: %v", err)
	}
	if m.resolved[0].Load() || m.resolved[1].Load() {
		t.Error("functions looked up at load")
	}
	if n := launchCalls(t, m, drv, 0, []int64{1, 1, 1}); n != 6 {
		t.Errorf("the first launch made %d driver calls; want 3 lookups, 2 occupancies of parallel tasks and the launch", n)
	}
	if n := launchCalls(t, m, drv, 0, []int64{1, 1, 1}); n != 1 {
		t.Errorf("the second launch made %d driver calls", n)
	}
	var args [16]byte
	err = m.Launch(1, make([]int64, 11), args[:], nil)
	if err == nil || !strings.Contains(err.Error(), "launch Eleven: cuModuleGetFunction") || !strings.Contains(err.Error(), "entry t3") {
		t.Errorf("a launch with a missing entry: %v", err)
	}

	t.Setenv("CUDA_MODULE_LOADING", "EAGER")
	e, _ := openFake(0)
	defer e.Close()
	if _, err := e.Load(seqSpec); err != nil {
		t.Fatal(err)
	}
	drv2 := e.drv.(*fakeDriver)
	drv2.noEntry = "b"
	if _, err := e.Load(&ModuleSpec{Package: "other", Images: seqSpec.Images, Kernels: seqSpec.Kernels[:1]}); err == nil {
		t.Error("an eager load with a missing entry succeeded")
	}
}

// TestLaunchNoAllocs checks that launches allocate nothing: of plain
// tasks, with scratch memory on alternating streams, and of a
// stream-parallel group launched eagerly, with one call into the driver
// for the fork, one per block and one for the join.
func TestLaunchNoAllocs(t *testing.T) {
	d, drv, m := fakeModule(t, 0, seqSpec)
	_, _, fork := fakeModule(t, 0, forkSpec)
	s, _ := d.NewStream()
	var args [16]byte
	eager := []LaunchOption{Eager()}
	ops := map[string]func() error{
		"plain":   func() error { return m.Launch(0, []int64{300, 1, 5}, args[:], nil) },
		"scratch": func() error { return m.Launch(2, []int64{1000, 1}, args[:], nil) },
		"scratch on a stream": func() error {
			return m.Launch(2, []int64{1000, 1}, args[:], []LaunchOption{OnStream(s)})
		},
		"eager group": func() error { return fork.Launch(0, []int64{10, 10, 1, 10, 1}, args[:], eager) },
	}
	for _, op := range ops {
		if err := op(); err != nil { // looks up the functions
			t.Fatal(err)
		}
	}
	drv.quiet = true
	fork.dev.drv.(*fakeDriver).quiet = true
	for name, op := range ops {
		if n := testing.AllocsPerRun(50, func() {
			if err := op(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("a launch (%s) allocates %v times", name, n)
		}
	}
	fdrv := fork.dev.drv.(*fakeDriver)
	calls := fdrv.calls.Load()
	ops["eager group"]()
	// K_0; the fork; block 1 (K_1, K_2); block 2 (K_3); the join; K_4.
	if n := fdrv.calls.Load() - calls; n != 6 {
		t.Errorf("an eager launch of a group of two blocks made %d driver calls", n)
	}
}
