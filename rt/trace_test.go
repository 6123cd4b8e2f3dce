package rt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// describe lists a trace's events as "kind name on stream".
func describe(tr *Trace) []string {
	var out []string
	for _, e := range tr.Events {
		s := fmt.Sprintf("%s %s on %s", e.Kind, e.Name, e.Stream)
		if e.Block > 0 {
			s += fmt.Sprintf(" block %d", e.Block)
		}
		out = append(out, s)
	}
	return out
}

// TestTrace traces a kernel with blocks, copies and an event on a fake
// GPU, and checks what the trace holds and that it reads back.
func TestTrace(t *testing.T) {
	d, drv, m := fakeModule(t, 0, forkSpec)
	counts := []int64{300, 10, 1, 600, 1}
	launch(t, m, counts, "a")
	launch(t, m, counts, "a") // now a graph
	live := d.Live()
	if err := d.StartTrace(); err != nil {
		t.Fatal(err)
	}
	if err := d.StartTrace(); err == nil {
		t.Error("a second trace started")
	}
	s, _ := d.NewStream()
	x, _ := Alloc[float32](d, 4)
	ev, _ := d.NewEvent()
	x.CopyFromAsync(make([]float32, 4), s)
	ev.Record(s)
	ev.Wait(nil)
	drv.takeLog()
	launch(t, m, counts, "a")
	if l := drv.takeLog(); slices.ContainsFunc(l, func(s string) bool { return strings.HasPrefix(s, "launch graph") }) {
		t.Errorf("a traced launch went through a graph: %q", l)
	}
	tr, err := d.StopTrace()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"copy copy to device on stream 1",
		"record event on stream 1",
		"wait event on default stream",
		"kernel K on default stream",
		"fork K on default stream",
		"fork K on pool stream 1",
		"fork K on pool stream 2",
		"kernel K on pool stream 1 block 1",
		"kernel K on pool stream 1 block 1",
		"kernel K on pool stream 2 block 2",
		"join K on pool stream 1",
		"join K on pool stream 2",
		"join K on default stream",
		"kernel K on default stream",
	}
	if got := describe(tr); !slices.Equal(got, want) {
		t.Errorf("trace:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	for i, e := range tr.Events {
		if e.End < e.Start || i > 0 && e.Start < tr.Events[i-1].Start {
			t.Errorf("event %d runs from %v to %v, after %v", i, e.Start, e.End, tr.Events[i-1].Start)
		}
	}
	if k := tr.Events[3]; k.Task != "K_0" || k.Grid != 2 || k.Threads != 256 || k.End <= k.Start {
		t.Errorf("kernel event %+v", k)
	}
	if r, w := tr.Events[1], tr.Events[2]; r.Flow == 0 || r.Flow != w.Flow || r.FlowEnd || !w.FlowEnd {
		t.Errorf("record %+v and wait %+v are not linked", r, w)
	}
	s.Close()
	ev.Close()
	x.Free()
	if got := d.Live(); got != live {
		t.Errorf("after the trace, live objects %+v, want %+v", got, live)
	}
	if _, err := d.StopTrace(); err == nil {
		t.Error("StopTrace without a trace succeeded")
	}

	var buf bytes.Buffer
	if err := tr.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil || raw["traceEvents"] == nil {
		t.Fatalf("not Chrome trace JSON: %v", err)
	}
	back, err := ReadTrace(&buf)
	if err != nil || !reflect.DeepEqual(back, tr) {
		t.Errorf("read back %+v, %v\nwant %+v", back, err, tr)
	}
}

// TestTraceCPU traces kernels on the CPU backend, with the host's times,
// and checks that QD_TRACE writes a trace when the device closes.
func TestTraceCPU(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	t.Setenv("QD_TRACE", path)
	d, err := Open(WithBackend(CPU))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := d.Load(twoSpec)
	s, _ := d.NewStream()
	m.RunCPU(0, nil, nil, []LaunchOption{OnStream(s)}, func() {})
	m.RunCPU(1, nil, nil, nil, func() {})
	d.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"kernel A on stream 1", "kernel B on default stream"}
	if got := describe(tr); !slices.Equal(got, want) || tr.Device != "cpu" {
		t.Errorf("trace of %s: %q, want %q", tr.Device, got, want)
	}
}

// TestTraceOffNoAllocs checks that with tracing off a launch allocates
// nothing.
func TestTraceOffNoAllocs(t *testing.T) {
	_, drv, m := fakeModule(t, 0, twoSpec)
	drv.quiet = true
	var args [8]byte
	counts := []int64{100}
	m.Launch(0, counts, args[:], nil)
	if n := testing.AllocsPerRun(100, func() { m.Launch(0, counts, args[:], nil) }); n != 0 {
		t.Errorf("a launch with tracing off allocates %v times", n)
	}
}
