package rt

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Tracing records what a device runs: every launch of a task (kernel,
// task, qd.StreamParallel block, stream, grid), copy, memset, graph launch,
// event record and wait, and the fork and join of each stream-parallel
// group, with GPU times taken from timing events recorded around each on
// its stream. While tracing is off, the only cost on a launch is one atomic
// load. While it is on, kernels with blocks launch eagerly (not as cached
// graphs), so that each block shows on the stream it ran on. On the CPU
// backend the times are the host's.

// StartTrace starts recording a trace of the work launched on d. It is an
// error to start a second trace before StopTrace.
func (d *Device) StartTrace() error {
	const op = "start trace"
	if err := d.check(); err != nil {
		return opError(op, err)
	}
	t := &tracer{dev: d, start: time.Now()}
	if d.drv != nil {
		var err error
		if t.stream, err = d.newDriverStream(0); err != nil {
			return opError(op, err)
		}
		if t.base, err = t.event(); err == nil {
			err = d.drv.recordEvent(t.base, t.stream)
		}
		if err != nil {
			t.release()
			return opError(op, err)
		}
	}
	if !d.tracer.CompareAndSwap(nil, t) {
		t.release()
		return opError(op, errors.New("a trace is already running"))
	}
	return nil
}

// StopTrace stops the trace StartTrace started and returns it. It waits
// for all the device's work, whose times it then reads.
func (d *Device) StopTrace() (*Trace, error) {
	const op = "stop trace"
	t := d.tracer.Swap(nil)
	if t == nil {
		return nil, opError(op, errors.New("no trace is running"))
	}
	tr, err := t.finish()
	return tr, opError(op, err)
}

// traceOff reports whether no trace is running.
func (d *Device) traceOff() bool { return d.tracer.Load() == nil }

// startTraceFromEnv starts a trace when QD_TRACE names a file; Close then
// writes the trace there, with the traces of the process's other devices
// (writeProcessTrace). In a group of processes (qdrun), "{rank}" in the
// name stands for the process's RANK, so that each writes its own file.
func (d *Device) startTraceFromEnv() {
	if d.tracePath = tracePathFromEnv(); d.tracePath != "" {
		if err := d.StartTrace(); err != nil {
			fmt.Fprintln(os.Stderr, "qd: QD_TRACE:", err)
			d.tracePath = ""
		}
	}
}

// tracePathFromEnv is QD_TRACE with "{rank}" replaced by RANK (0 unless
// set).
func tracePathFromEnv() string {
	rank := os.Getenv("RANK")
	if rank == "" {
		rank = "0"
	}
	return strings.ReplaceAll(os.Getenv("QD_TRACE"), "{rank}", rank)
}

// writeEnvTrace ends the trace QD_TRACE started and writes it.
func (d *Device) writeEnvTrace() {
	if d.tracePath == "" {
		return
	}
	tr, err := d.StopTrace()
	if err == nil {
		err = writeProcessTrace(d.tracePath, tr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "qd: QD_TRACE:", err)
	}
}

// tracer collects a running trace.
type tracer struct {
	dev    *Device
	start  time.Time
	stream uintptr // the trace's own stream, idle, on which base is recorded
	base   uintptr // the timing event that is time 0 on the GPU

	mu     sync.Mutex
	free   []uintptr // timing events to reuse
	used   []uintptr
	spans  []span
	driver error // the first driver error while tracing
}

// stamp is a point in a stream's work: a timing event recorded there, or
// on the CPU the host's time.
type stamp struct {
	event uintptr
	at    time.Duration
}

// span is one traced operation, or one instant when end is zero.
type span struct {
	ev         TraceEvent
	start, end stamp
	instant    bool
}

func (t *tracer) event() (uintptr, error) {
	if n := len(t.free); n > 0 {
		e := t.free[n-1]
		t.free = t.free[:n-1]
		return e, nil
	}
	return t.dev.newDriverEvent(true)
}

// mark records a stamp on stream.
func (t *tracer) mark(stream uintptr) stamp {
	if t.dev.drv == nil {
		return stamp{at: time.Since(t.start)}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e, err := t.event()
	if err == nil {
		err = t.dev.drv.recordEvent(e, stream)
	}
	if err != nil {
		if t.driver == nil {
			t.driver = err
		}
		return stamp{}
	}
	t.used = append(t.used, e)
	return stamp{event: e}
}

// add records an operation that ran from start to end.
func (t *tracer) add(ev TraceEvent, start, end stamp) {
	t.mu.Lock()
	t.spans = append(t.spans, span{ev: ev, start: start, end: end})
	t.mu.Unlock()
}

// point records an instant on stream, such as an event record.
func (t *tracer) point(ev TraceEvent, stream uintptr) {
	s := t.mark(stream)
	t.mu.Lock()
	t.spans = append(t.spans, span{ev: ev, start: s, instant: true})
	t.mu.Unlock()
}

// flow returns a new number for an arrow between two instants. Numbers
// are unique in the process, so that arrows between devices (an event of
// one waited for on a stream of another) stay apart when their traces are
// merged.
func (t *tracer) flow() uint64 { return traceFlows.Add(1) }

var traceFlows atomic.Uint64

// finish waits for the device, reads every stamp's time and releases the
// trace's events.
func (t *tracer) finish() (*Trace, error) {
	tr := &Trace{Device: t.dev.String(), Start: t.start.Round(0).UTC()}
	var err error
	if t.dev.drv != nil {
		err = t.dev.drv.synchronizeAll()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		err = t.driver
	}
	at := func(s stamp) time.Duration {
		if s.event == 0 || t.dev.drv == nil {
			return s.at
		}
		ms, e := t.dev.drv.elapsed(t.base, s.event)
		if e != nil && err == nil {
			err = e
		}
		return time.Duration(float64(ms) * float64(time.Millisecond))
	}
	for _, s := range t.spans {
		ev := s.ev
		ev.Start = at(s.start)
		ev.End = ev.Start
		if !s.instant {
			ev.End = max(at(s.end), ev.Start)
		}
		tr.Events = append(tr.Events, ev)
	}
	if e := t.release(); err == nil {
		err = e
	}
	return tr, err
}

// release destroys the trace's events and stream.
func (t *tracer) release() error {
	if t.dev.drv == nil {
		return nil
	}
	var err error
	for _, list := range [][]uintptr{t.free, t.used, {t.base}} {
		for _, e := range list {
			if e == 0 {
				continue
			}
			if e2 := t.dev.destroyDriverEvent(e); err == nil {
				err = e2
			}
		}
	}
	t.free, t.used, t.base = nil, nil, 0
	if t.stream != 0 {
		if e := t.dev.destroyDriverStream(t.stream); err == nil {
			err = e
		}
		t.stream = 0
	}
	return err
}

// laneName is the name of a stream in traces. Streams NewStream made are
// named when a trace needs it, so that making one costs no formatting.
func (s *Stream) laneName() string {
	switch {
	case s == nil:
		return "default stream"
	case s.lane == "":
		return "stream " + strconv.FormatInt(s.number, 10)
	}
	return s.lane
}

// poolLanes name the streams of the stream pool in traces.
var poolLanes = func() (names [maxPoolStreams]string) {
	for i := range names {
		names[i] = fmt.Sprintf("pool stream %d", i+1)
	}
	return names
}()
