package rt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProcessTraceCPUDevices: with QD_TRACE set, the devices of a process
// write one trace together, each stream a lane of its device, rather than
// each overwriting the file with its own.
func TestProcessTraceCPUDevices(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	t.Setenv("QD_CPU_DEVICES", "2")
	t.Setenv("QD_TRACE", path)
	devs, err := OpenAll(WithBackend(CPU))
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range devs {
		b, err := Alloc[float32](d, 4+i)
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Memset(0, s); err != nil {
			t.Fatal(err)
		}
		if err := b.CopyFrom(make([]float32, 4+i)); err != nil {
			t.Fatal(err)
		}
	}
	// An event of device 0 waited for on device 1: an arrow across.
	e, err := devs[0].NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Record(nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Wait(nil); err != nil { // on device 0 itself
		t.Fatal(err)
	}
	s1, err := devs[1].NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Wait(s1); err != nil {
		t.Fatal(err)
	}
	if err := CloseAll(devs); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tr.Device, "2 devices: cpu; cpu device 1") {
		t.Errorf("merged trace's device = %q", tr.Device)
	}
	var lanes []string
	bytes := map[string]int64{}
	for _, ev := range tr.Events {
		if !slices.Contains(lanes, ev.Lane()) {
			lanes = append(lanes, ev.Lane())
		}
		if ev.Kind == "memset" {
			bytes[ev.Device] = ev.Bytes
		}
	}
	slices.Sort(lanes)
	want := []string{"cpu device 1: default stream", "cpu device 1: stream 1", "cpu device 1: stream 2", "cpu: default stream", "cpu: stream 1"}
	if !slices.Equal(lanes, want) {
		t.Errorf("lanes %q, want %q", lanes, want)
	}
	if bytes["cpu"] != 16 || bytes["cpu device 1"] != 20 {
		t.Errorf("memsets of %v bytes, want 16 on cpu and 20 on cpu device 1", bytes)
	}
	// The record on device 0 and the wait on device 1 share an arrow.
	var rec, wait uint64
	for _, ev := range tr.Events {
		switch {
		case ev.Kind == "record" && ev.Device == "cpu":
			rec = ev.Flow
		case ev.Kind == "wait" && ev.Device == "cpu device 1":
			wait = ev.Flow
		}
	}
	if rec == 0 || rec != wait {
		t.Errorf("record's arrow %d, wait's on the other device %d: want the same", rec, wait)
	}
}

func TestMergeTracesShiftsTimes(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &Trace{Device: "cuda device 0", Start: t0.Add(time.Millisecond), Events: []TraceEvent{{Kind: "kernel", Name: "k", Stream: "default stream", Start: 10, End: 20}}}
	b := &Trace{Device: "cuda device 1", Start: t0, Events: []TraceEvent{{Kind: "copy", Name: "c", Stream: "stream 1", Start: 5, End: 6}}}
	again := &Trace{Device: "cuda device 0", Start: t0.Add(time.Second)}
	m := MergeTraces(a, b, again)
	if !m.Start.Equal(t0) || len(m.Events) != 2 {
		t.Fatalf("merged: start %v, %d events", m.Start, len(m.Events))
	}
	if e := m.Events[1]; e.Device != "cuda device 0" || e.Start != time.Millisecond+10 || e.End != time.Millisecond+20 {
		t.Errorf("device 0's kernel after the merge: %+v, want moved by 1ms", e)
	}
	if !strings.HasSuffix(m.Device, "cuda device 0 #2") {
		t.Errorf("a device traced twice is %q, want its turn named", m.Device)
	}
	// It reads back as written, devices and start included.
	var sb strings.Builder
	if err := m.WriteJSON(&sb); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTrace(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !back.Start.Equal(m.Start) || back.Device != m.Device || !slices.Equal(back.Events, m.Events) {
		t.Errorf("read back %+v, want %+v", back, m)
	}
}

// In a group of processes each writes its own trace: "{rank}" in QD_TRACE
// is the process's RANK.
func TestTracePathOfRank(t *testing.T) {
	t.Setenv("QD_TRACE", "/tmp/trace-{rank}.json")
	t.Setenv("RANK", "3")
	if got := tracePathFromEnv(); got != "/tmp/trace-3.json" {
		t.Errorf("QD_TRACE of rank 3 = %q", got)
	}
	t.Setenv("RANK", "")
	if got := tracePathFromEnv(); got != "/tmp/trace-0.json" {
		t.Errorf("QD_TRACE without RANK = %q", got)
	}
}
