package rt

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// forkSpec is a kernel with a plain task, a group of two blocks (the first
// with two tasks) and a plain task after it.
var forkSpec = &ModuleSpec{
	Package: "fake/fork",
	Images:  []Image{{Kind: ImagePTX, Data: "fork ptx"}},
	Kernels: []KernelSpec{{
		Name:   "K",
		Groups: []int{2},
		Tasks: []TaskSpec{
			{Entry: "K_0", Parallel: true},
			{Entry: "K_1", Parallel: true, Block: 1, Group: 1},
			{Entry: "K_2", Block: 1, Group: 1},
			{Entry: "K_3", Parallel: true, Block: 2, Group: 1},
			{Entry: "K_4"},
		},
	}},
}

func fakeModule(t testing.TB, pool int, spec *ModuleSpec) (*Device, *fakeDriver, *Module) {
	t.Helper()
	t.Setenv("QD_CACHE", "off")
	d, drv := openFake(pool)
	t.Cleanup(func() { d.Close() })
	m, err := d.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	drv.takeLog()
	return d, drv, m
}

func launch(t *testing.T, m *Module, counts []int64, args string, opts ...LaunchOption) {
	t.Helper()
	if err := m.Launch(0, counts, []byte(args), opts); err != nil {
		t.Fatal(err)
	}
}

func expectLog(t *testing.T, drv *fakeDriver, want ...string) {
	t.Helper()
	if got := drv.takeLog(); !slices.Equal(got, want) {
		t.Errorf("driver calls:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestKernelGraph checks that a kernel with blocks launches eagerly the
// first time, as a graph with the fork and join as edges from the second
// time on, and that later launches update only what changed.
func TestKernelGraph(t *testing.T) {
	d, drv, m := fakeModule(t, 0, forkSpec)
	counts := []int64{300, 10, 1, 600, 1}
	launch(t, m, counts, "args1")
	expectLog(t, drv,
		"launch K_0 grid 2×256 on default",
		"fork default to 2 streams",
		"launch K_1 grid 1×256 on s3",
		"launch K_2 grid 1×1 on s3",
		"launch K_3 grid 3×256 on s4",
		"join 2 streams into default",
		"launch K_4 grid 1×1 on default")
	launch(t, m, counts, "args1")
	expectLog(t, drv, "instantiate 5 nodes", "launch graph exec with 0 updates on default")
	sg := m.graphs[0].shapes[0]
	g := drv.graphs[sg.graph]
	var deps []string
	for i, n := range g.nodes {
		deps = append(deps, fmt.Sprintf("%d %s <- %v", i, n.name, n.deps))
	}
	want := []string{"0 K (task K_0) <- []", "1 K (task K_1) <- [0]", "2 K (task K_2) <- [1]", "3 K (task K_3) <- [0]", "4 K (task K_4) <- [2 3]"}
	if !slices.Equal(deps, want) {
		t.Errorf("graph:\n\t%s\nwant:\n\t%s", strings.Join(deps, "\n\t"), strings.Join(want, "\n\t"))
	}

	launch(t, m, counts, "args2") // new arguments: every node
	expectLog(t, drv, "launch graph exec with 5 updates on default")
	launch(t, m, []int64{3000, 10, 1, 600, 1}, "args2") // one grid changes
	expectLog(t, drv, "launch graph exec with 1 updates on default")
	exec := drv.execs[sg.execs[0].handle]
	if n := exec.nodes[0]; n.grid != 12 || string(n.args) != "args2" || string(exec.nodes[4].args) != "args2" {
		t.Errorf("node 0 after the updates: grid %d, args %q", n.grid, n.args)
	}

	launch(t, m, []int64{3000, 0, 1, 600, 1}, "args2") // K_1 has no iterations: a new shape
	expectLog(t, drv,
		"launch K_0 grid 12×256 on default",
		"fork default to 2 streams",
		"launch K_2 grid 1×1 on s3",
		"launch K_3 grid 3×256 on s4",
		"join 2 streams into default",
		"launch K_4 grid 1×1 on default")
	launch(t, m, counts, "args2", Eager())
	if l := drv.takeLog(); len(l) != 7 || !strings.HasPrefix(l[0], "launch K_0") {
		t.Errorf("an eager launch: %q", l)
	}

	s, _ := d.NewStream()
	// Another stream gets another executable graph, made from the graph
	// as first built, with the first launch's arguments.
	launch(t, m, counts, "args2", OnStream(s))
	expectLog(t, drv, "instantiate 5 nodes", "launch graph exec with 5 updates on s5")
	launch(t, m, counts, "args2") // the default stream's, whose K_0 had 3000 iterations
	expectLog(t, drv, "launch graph exec with 1 updates on default")
}

// TestKernelGraphPool checks that a graph runs no more blocks at once than
// the stream pool would: with one pool stream, the second block waits for
// the first.
func TestKernelGraphPool(t *testing.T) {
	_, drv, m := fakeModule(t, 1, forkSpec)
	counts := []int64{300, 10, 1, 600, 1}
	launch(t, m, counts, "a")
	launch(t, m, counts, "a")
	g := drv.graphs[m.graphs[0].shapes[0].graph]
	if deps := g.nodes[3].deps; !slices.Equal(deps, []int32{0, 2}) {
		t.Errorf("with one pool stream, block 2 waits for %v, want [0 2]", deps)
	}
	if deps := g.nodes[4].deps; !slices.Equal(deps, []int32{3}) {
		t.Errorf("with one pool stream, the join waits for %v, want [3]", deps)
	}
}

// TestKernelGraphConcurrent launches one kernel from many goroutines on
// many streams: each launch has an executable graph to itself (run it
// under -race), and no more are made than the limit.
func TestKernelGraphConcurrent(t *testing.T) {
	d, drv, m := fakeModule(t, 0, forkSpec)
	counts := []int64{300, 10, 1, 600, 1}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := d.NewStream()
			if err != nil {
				t.Error(err)
				return
			}
			for i := range 50 {
				if err := m.Launch(0, counts, []byte(fmt.Sprint(g, i%3)), []LaunchOption{OnStream(s)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	sg := m.graphs[0].shapes[0]
	if len(sg.execs) > maxExecsPerShape || len(sg.idle) != len(sg.execs) {
		t.Errorf("%d executable graphs, %d idle", len(sg.execs), len(sg.idle))
	}
	graphs := 0
	for _, l := range drv.takeLog() {
		if strings.HasPrefix(l, "launch graph") {
			graphs++
		}
	}
	if graphs < 16*50/2 {
		t.Errorf("only %d of %d launches were graphs", graphs, 16*50)
	}
}

// TestKernelGraphNoAllocs checks that a launch through a cached graph
// allocates nothing.
func TestKernelGraphNoAllocs(t *testing.T) {
	_, drv, m := fakeModule(t, 0, forkSpec)
	counts := []int64{300, 10, 1, 600, 1}
	var args [16]byte
	for range 3 {
		m.Launch(0, counts, args[:], nil)
	}
	drv.quiet = true // its log allocates
	allocs := testing.AllocsPerRun(100, func() {
		args[0]++ // every node is updated
		if err := m.Launch(0, counts, args[:], nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a graph launch allocates %v times", allocs)
	}
}
