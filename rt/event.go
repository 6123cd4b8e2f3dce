package rt

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Event marks a point in a stream's work. Record captures the point a
// stream has reached; Wait makes another stream wait for it without
// blocking the host; Synchronize blocks the host until it is reached.
//
// An Event is safe for use by many goroutines at once. On the CPU backend
// every event operation succeeds and does nothing.
type Event struct {
	tracked // in its device's list of what Close frees
	dev     *Device
	handle  uintptr
	timing  bool
	closed  atomic.Bool
	closing sync.Mutex
	flow    atomic.Uint64 // the trace's arrow from the last Record

	// An event of a recording (Recorder.Event) stands for the nodes that
	// were the tail of a stream of the recording when it was recorded.
	rec      *Recorder
	point    []int32
	recorded bool
}

// EventOption configures NewEvent.
type EventOption struct{ timing bool }

// WithTiming makes an event record time, for ElapsedTime. Events without
// timing are cheaper to record and wait on.
func WithTiming() EventOption { return EventOption{timing: true} }

// NewEvent creates an event on d; it records no time unless WithTiming is
// given.
func (d *Device) NewEvent(opts ...EventOption) (*Event, error) {
	const op = "create event"
	if err := d.check(); err != nil {
		return nil, opError(op, err)
	}
	e := &Event{dev: d}
	for _, o := range opts {
		e.timing = e.timing || o.timing
	}
	if d.drv != nil {
		h, err := d.newDriverEvent(e.timing)
		if err != nil {
			return nil, opError(op, err)
		}
		e.handle = h
	}
	if err := d.track(e); err != nil {
		e.release()
		return nil, opError(op, err)
	}
	return e, nil
}

// Handle returns the driver's handle of the event (a CUevent); 0 on the CPU.
func (e *Event) Handle() uintptr { return e.handle }

func (e *Event) usable(op string) error {
	if err := e.dev.check(); err != nil {
		return opError(op, err)
	}
	if e.closed.Load() {
		return opError(op, ErrClosed)
	}
	return nil
}

// usableOnHost is usable, and an error for an event of a recording, whose
// work has not run.
func (e *Event) usableOnHost(op string) error {
	if err := e.usable(op); err != nil {
		return err
	}
	if e.rec != nil {
		return opError(op, fmt.Errorf("an event of a recording: %w", ErrRecording))
	}
	return nil
}

// Record captures the point stream s has reached: the event is reached
// when the work queued on s so far is done. A nil stream is the default
// stream.
func (e *Event) Record(s *Stream) error {
	const op = "record event"
	if err := e.usable(op); err != nil {
		return err
	}
	h, err := s.use(e.dev)
	if err != nil {
		return opError(op, err)
	}
	if inside, err := recordingEvent(e, s); inside {
		if err == nil {
			err = e.rec.recordEvent(e, s)
		}
		return opError(op, err)
	}
	if e.dev.drv != nil {
		err = e.dev.drv.recordEvent(e.handle, h)
	}
	if tr := e.dev.tracer.Load(); tr != nil && err == nil {
		flow := tr.flow()
		e.flow.Store(flow)
		tr.point(TraceEvent{Kind: "record", Name: "event", Stream: s.laneName(), Flow: flow}, h)
	}
	return opError(op, err)
}

// Wait makes stream s wait, on the GPU, until the event is reached: work
// queued on s afterwards starts only then. The host does not block. A nil
// stream is the default stream.
//
// s may be a stream of another device of the same backend: that device's
// work queued on s afterwards then waits for this device's work, which is
// how work is ordered across devices.
func (e *Event) Wait(s *Stream) error {
	const op = "wait for event"
	if err := e.usable(op); err != nil {
		return err
	}
	if s != nil && s.dev != e.dev {
		return e.waitOnPeer(s)
	}
	h, err := s.use(e.dev)
	if err != nil {
		return opError(op, err)
	}
	if inside, err := recordingEvent(e, s); inside {
		if err == nil {
			err = e.rec.waitEvent(e, s)
		}
		return opError(op, err)
	}
	if e.dev.drv != nil {
		err = e.dev.drv.waitEvent(h, e.handle)
	}
	if tr := e.dev.tracer.Load(); tr != nil && err == nil {
		tr.point(TraceEvent{Kind: "wait", Name: "event", Stream: s.laneName(), Flow: e.flow.Load(), FlowEnd: true}, h)
	}
	return opError(op, err)
}

// Synchronize blocks the host until the event is reached, and returns a
// kernel's Fault if one has been recorded.
func (e *Event) Synchronize() error {
	const op = "synchronize event"
	if err := e.usableOnHost(op); err != nil || e.dev.drv == nil {
		return err
	}
	return e.dev.observe(opError(op, e.dev.drv.synchronizeEvent(e.handle)))
}

// Query reports, without blocking, whether the event has been reached;
// when it has, a kernel's Fault is returned as Synchronize returns it.
func (e *Event) Query() (bool, error) {
	const op = "query event"
	if err := e.usableOnHost(op); err != nil || e.dev.drv == nil {
		return err == nil, err
	}
	done, err := e.dev.drv.queryEvent(e.handle)
	if done {
		return done, e.dev.observe(opError(op, err))
	}
	return done, opError(op, err)
}

// ElapsedTime returns the GPU time between two reached timing events
// (resolution about half a microsecond). It is 0 on the CPU.
func ElapsedTime(start, end *Event) (time.Duration, error) {
	const op = "elapsed time"
	if err := start.usableOnHost(op); err != nil {
		return 0, err
	}
	if err := end.usableOnHost(op); err != nil {
		return 0, err
	}
	if start.dev != end.dev {
		return 0, opError(op, ErrWrongDevice)
	}
	if !start.timing || !end.timing {
		return 0, opError(op, fmt.Errorf("both events need WithTiming"))
	}
	if start.dev.drv == nil {
		return 0, nil
	}
	ms, err := start.dev.drv.elapsed(start.handle, end.handle)
	if err != nil {
		return 0, opError(op, err)
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Close destroys the event; work that records or waits on it may still be
// in flight. Closing twice is harmless; any other use of a closed event is
// an error wrapping ErrClosed.
func (e *Event) Close() error {
	e.closing.Lock()
	defer e.closing.Unlock()
	if e.closed.Load() {
		return nil
	}
	if e.dev.check() != nil || e.rec != nil {
		e.closed.Store(true)
		return nil
	}
	e.dev.untrack(e)
	return opError("close event", e.release())
}

func (e *Event) release() error {
	e.closed.Store(true)
	if e.dev.drv == nil || e.handle == 0 {
		return nil
	}
	return e.dev.destroyDriverEvent(e.handle)
}

// waitOnPeer is Wait on a stream of another device.
func (e *Event) waitOnPeer(s *Stream) error {
	const op = "wait for event of another device"
	if s.dev.backend != e.dev.backend {
		return opError(op, fmt.Errorf("%w: an event of a %s device on a stream of a %s device", ErrWrongDevice, e.dev.backend, s.dev.backend))
	}
	if e.rec != nil || s.recording() {
		return opError(op, fmt.Errorf("events cannot order recorded work across devices: %w", ErrRecording))
	}
	if err := s.dev.check(); err != nil {
		return opError(op, err)
	}
	h, err := s.use(s.dev)
	if err != nil {
		return opError(op, err)
	}
	if s.dev.drv != nil {
		err = s.dev.drv.waitEvent(h, e.handle)
	}
	if tr := s.dev.tracer.Load(); tr != nil && err == nil {
		tr.point(TraceEvent{Kind: "wait", Name: "event of " + e.dev.String(), Stream: s.laneName(), Flow: e.flow.Load(), FlowEnd: true}, h)
	}
	return opError(op, err)
}
