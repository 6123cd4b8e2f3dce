package rt

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Stream is a queue of GPU work: launches, copies and event operations run
// in the order they are queued on one stream, and work on different streams
// may run at the same time. Streams qd creates do not synchronize with the
// legacy default stream (they are non-blocking); order work across streams
// with events.
//
// A Stream is safe for use by many goroutines at once. On the CPU backend
// every stream operation succeeds and does nothing: work runs when it is
// launched.
type Stream struct {
	tracked  // in its device's list of what Close frees
	dev      *Device
	handle   uintptr
	external bool // made elsewhere: never destroyed by qd
	priority int
	lane     string      // its name in traces; see laneName
	number   int64       // of a stream NewStream made, named in traces by it
	queued   atomic.Bool // work was ever queued: Close must wait for it
	closed   atomic.Bool
	closing  sync.Mutex

	// A stream of a recording (Recorder.Stream) queues nothing: its work
	// becomes nodes of the recording, the next of which wait for tail.
	rec  *Recorder
	tail []int32
}

// StreamOption configures NewStream.
type StreamOption struct {
	priority    int
	setPriority bool
}

// WithPriority sets a stream's priority: lower numbers are higher
// priorities, within Device.StreamPriorityRange; the GPU prefers work of
// higher priority streams when it has a choice. It is a hint, and it does
// not preempt running work.
func WithPriority(p int) StreamOption { return StreamOption{priority: p, setPriority: true} }

// NewStream creates a stream on d.
func (d *Device) NewStream(opts ...StreamOption) (*Stream, error) {
	const op = "create stream"
	if err := d.check(); err != nil {
		return nil, opError(op, err)
	}
	s := &Stream{dev: d, number: d.streamIDs.Add(1)}
	for _, o := range opts {
		if o.setPriority {
			s.priority = o.priority
		}
	}
	if d.drv != nil {
		if s.priority != 0 {
			least, greatest, err := d.drv.priorityRange()
			if err != nil {
				return nil, opError(op, err)
			}
			if s.priority > least || s.priority < greatest {
				return nil, opError(op, fmt.Errorf("priority %d outside the device's range [%d, %d]", s.priority, greatest, least))
			}
		}
		h, err := d.newDriverStream(s.priority)
		if err != nil {
			return nil, opError(op, err)
		}
		s.handle = h
	}
	if err := d.track(s); err != nil {
		s.release()
		return nil, opError(op, err)
	}
	return s, nil
}

// WrapStream returns a Stream for a stream handle (a CUstream) made by
// other code, such as another CUDA library, so that kernels can be
// launched on it. qd never destroys it: Close only stops its use here.
func (d *Device) WrapStream(handle uintptr) (*Stream, error) {
	if err := d.check(); err != nil {
		return nil, opError("wrap stream", err)
	}
	s := &Stream{dev: d, handle: handle, external: true, lane: fmt.Sprintf("stream %d (wrapped)", d.streamIDs.Add(1))}
	if err := d.track(s); err != nil {
		return nil, opError("wrap stream", err)
	}
	return s, nil
}

// StreamPriorityRange returns the priorities streams of d may have, from
// the lowest (least, the default 0) to the highest (greatest, a negative
// number on CUDA). Both are 0 on the CPU.
func (d *Device) StreamPriorityRange() (least, greatest int, err error) {
	if err := d.check(); err != nil || d.drv == nil {
		return 0, 0, opError("stream priority range", err)
	}
	least, greatest, err = d.drv.priorityRange()
	return least, greatest, opError("stream priority range", err)
}

// Handle returns the driver's handle of the stream (a CUstream), for use
// with other GPU libraries; 0 on the CPU, and 0 for nil, the default
// stream, as the drivers name it.
func (s *Stream) Handle() uintptr {
	if s == nil {
		return 0
	}
	return s.handle
}

// Device returns the device the stream belongs to.
func (s *Stream) Device() *Device { return s.dev }

// Priority returns the priority the stream was created with.
func (s *Stream) Priority() int { return s.priority }

// use checks that s may be used with d and returns its handle; a nil
// stream is the default stream.
func (s *Stream) use(d *Device) (uintptr, error) {
	if s == nil {
		return 0, nil
	}
	if s.closed.Load() {
		if s.rec != nil {
			return 0, fmt.Errorf("stream of a finished recording: %w", ErrClosed)
		}
		return 0, fmt.Errorf("stream: %w", ErrClosed)
	}
	if s.dev != d {
		return 0, fmt.Errorf("stream: %w", ErrWrongDevice)
	}
	if !s.queued.Load() {
		s.queued.Store(true)
	}
	return s.handle, nil
}

func (s *Stream) usable(op string) error {
	if err := s.dev.check(); err != nil {
		return opError(op, err)
	}
	if s.closed.Load() {
		return opError(op, ErrClosed)
	}
	if s.rec != nil {
		return opError(op, fmt.Errorf("a stream of a recording: %w", ErrRecording))
	}
	return nil
}

// recording reports whether s is a stream of a recording.
func (s *Stream) recording() bool { return s != nil && s.rec != nil }

// Synchronize blocks until all work queued on s is done, and returns the
// first error of that work, or a kernel's Fault.
func (s *Stream) Synchronize() error {
	const op = "synchronize stream"
	if err := s.usable(op); err != nil || s.dev.drv == nil {
		return err
	}
	return s.dev.observe(opError(op, s.dev.drv.synchronizeStream(s.handle)))
}

// Query reports, without blocking, whether all work queued on s is done;
// when it is, a kernel's Fault is returned as Synchronize returns it.
func (s *Stream) Query() (bool, error) {
	const op = "query stream"
	if err := s.usable(op); err != nil || s.dev.drv == nil {
		return err == nil, err
	}
	done, err := s.dev.drv.queryStream(s.handle)
	if done {
		return done, s.dev.observe(opError(op, err))
	}
	return done, opError(op, err)
}

// Close waits for the work queued on s, if any, then destroys the stream; a
// stream made elsewhere (WrapStream) is only forgotten. Closing twice is
// harmless; any other use of a closed stream is an error wrapping
// ErrClosed, never a fallback to the default stream. Close must not run at
// the same time as other uses of s: close a stream once every goroutine
// using it is done with it.
func (s *Stream) Close() error {
	s.closing.Lock()
	defer s.closing.Unlock()
	if s.closed.Load() {
		return nil
	}
	if s.rec != nil {
		s.closed.Store(true) // it queued nothing
		return nil
	}
	if s.dev.check() != nil {
		s.closed.Store(true) // the device released it
		return nil
	}
	var err error
	if s.dev.drv != nil && s.queued.Load() {
		err = s.dev.drv.synchronizeStream(s.handle)
	}
	s.closed.Store(true)
	s.dev.untrack(s)
	if e := s.release(); err == nil {
		err = e
	}
	return opError("close stream", err)
}

// release destroys the driver's stream without waiting.
func (s *Stream) release() error {
	s.closed.Store(true)
	if s.dev.drv == nil || s.external || s.handle == 0 {
		return nil
	}
	return s.dev.destroyDriverStream(s.handle)
}
