package rt

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Trace is what a device ran while it was traced (Device.StartTrace), or
// what several devices ran (MergeTraces).
type Trace struct {
	Device string
	// Start is when the trace began, by the host's clock; the events'
	// times are from there.
	Start  time.Time
	Events []TraceEvent
}

// TraceEvent is one traced operation, or an instant (End == Start).
type TraceEvent struct {
	// Kind is kernel, copy, memset or graph for operations; record, wait,
	// fork or join for instants.
	Kind   string
	Name   string // the kernel's name, or what a copy moves
	Stream string // the stream it ran on, such as "stream 2" or "pool stream 1"
	// Device is the device it ran on, in a trace of several devices.
	Device string `json:",omitempty"`
	Start  time.Duration
	End    time.Duration
	// Kernels: the task's entry, its block of a qd.StreamParallel group (0
	// outside groups), and the grid in blocks of threads.
	Task    string `json:",omitempty"`
	Block   int    `json:",omitempty"`
	Grid    int    `json:",omitempty"`
	Threads int    `json:",omitempty"`
	// Bytes is the length of a copy or memset.
	Bytes int64 `json:",omitempty"`
	// Flow links an instant that starts an arrow (an event record, the
	// fork on the launching stream, a block's end at a join) to the
	// instants with the same Flow that end it (FlowEnd).
	Flow    uint64 `json:",omitempty"`
	FlowEnd bool   `json:",omitempty"`
}

// Lane names the stream an event ran on, and its device in a trace of
// several: "cuda device 1 (...): stream 2".
func (e *TraceEvent) Lane() string {
	if e.Device == "" {
		return e.Stream
	}
	return e.Device + ": " + e.Stream
}

// Instant reports whether e marks a point in a stream's work rather than an
// operation that takes time.
func (e *TraceEvent) Instant() bool {
	switch e.Kind {
	case "record", "wait", "fork", "join":
		return true
	}
	return false
}

// chromeEvent is one entry of the Chrome trace event format, which
// Perfetto and chrome://tracing read.
type chromeEvent struct {
	Name  string      `json:"name"`
	Cat   string      `json:"cat,omitempty"`
	Ph    string      `json:"ph"`
	Ts    float64     `json:"ts"`
	Dur   float64     `json:"dur,omitempty"`
	Pid   int         `json:"pid"`
	Tid   int         `json:"tid"`
	ID    uint64      `json:"id,omitempty"`
	Bp    string      `json:"bp,omitempty"`
	Scope string      `json:"s,omitempty"`
	Args  *TraceEvent `json:"args,omitempty"`
}

type chromeTrace struct {
	TraceEvents     []chromeEvent     `json:"traceEvents"`
	DisplayTimeUnit string            `json:"displayTimeUnit"`
	OtherData       map[string]string `json:"otherData"`
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// WriteJSON writes the trace in the Chrome trace event format, one process
// per device and one thread per stream, with the events themselves in each
// entry's args: Perfetto (ui.perfetto.dev) and chrome://tracing show it,
// and ReadTrace reads it back.
func (t *Trace) WriteJSON(w io.Writer) error {
	ct := chromeTrace{DisplayTimeUnit: "ns", OtherData: map[string]string{"device": t.Device}}
	if !t.Start.IsZero() {
		ct.OtherData["start"] = t.Start.Format(time.RFC3339Nano)
	}
	pids := map[string]int{}
	type lane struct{ device, stream string }
	lanes := map[lane]int{}
	for i := range t.Events {
		ev := &t.Events[i]
		pid, ok := pids[ev.Device]
		if !ok {
			pid = len(pids) + 1
			pids[ev.Device] = pid
			if ev.Device != "" {
				ct.TraceEvents = append(ct.TraceEvents, chromeEvent{Name: "process_name", Ph: "M", Pid: pid, Args: &TraceEvent{Name: ev.Device}})
			}
		}
		tid, ok := lanes[lane{ev.Device, ev.Stream}]
		if !ok {
			tid = len(lanes) + 1
			lanes[lane{ev.Device, ev.Stream}] = tid
			ct.TraceEvents = append(ct.TraceEvents, chromeEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: &TraceEvent{Name: ev.Stream}})
		}
		ce := chromeEvent{Name: ev.Name, Cat: ev.Kind, Ph: "X", Ts: micros(ev.Start), Dur: micros(ev.End - ev.Start), Pid: pid, Tid: tid, Args: ev}
		if ev.Instant() {
			ce.Ph, ce.Dur, ce.Scope = "i", 0, "t"
		}
		ct.TraceEvents = append(ct.TraceEvents, ce)
		if ev.Flow != 0 {
			f := chromeEvent{Name: "dependency", Cat: "flow", Ph: "s", Ts: ce.Ts, Pid: pid, Tid: tid, ID: ev.Flow}
			if ev.FlowEnd {
				f.Ph, f.Bp = "f", "e"
			}
			ct.TraceEvents = append(ct.TraceEvents, f)
		}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", " ")
	if err := enc.Encode(ct); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes the trace to the named file with WriteJSON.
func (t *Trace) WriteFile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := t.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadTrace reads a trace WriteJSON wrote.
func ReadTrace(r io.Reader) (*Trace, error) {
	var ct chromeTrace
	if err := json.NewDecoder(r).Decode(&ct); err != nil {
		return nil, fmt.Errorf("reading a trace: %w", err)
	}
	t := &Trace{Device: ct.OtherData["device"]}
	if start, ok := ct.OtherData["start"]; ok {
		var err error
		if t.Start, err = time.Parse(time.RFC3339Nano, start); err != nil {
			return nil, fmt.Errorf("reading a trace: its start: %w", err)
		}
	}
	for _, ce := range ct.TraceEvents {
		if ce.Args != nil && (ce.Ph == "X" || ce.Ph == "i") {
			t.Events = append(t.Events, *ce.Args)
		}
	}
	return t, nil
}
