package rt

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/qdgo/qd/rt/internal/stubabi"
)

// Recorder collects work into a graph instead of running it; Device.Record
// passes one to the function that issues the work. Its streams and events
// are used as any others are: kernels launched on them with OnStream,
// copies and memsets queued on them, events recorded on one and waited for
// on another. Work issued on other streams runs as usual. A Recorder and
// its streams and events are usable only until that function returns.
type Recorder struct {
	dev *Device

	mu     sync.Mutex
	plan   graphPlan      // GPU: the nodes
	steps  []func() error // CPU: the calls, in order
	refs   map[*atomic.Int32]graphRef
	lanes  []*Stream
	events []*Event
	// children are the graphs captured for child nodes (capture.go).
	children []uintptr
}

// graphRef is memory a graph refers to: a device buffer or page-locked host
// memory, which cannot be freed while the graph exists.
type graphRef interface {
	argGraphs() *atomic.Int32
}

// Stream returns a new stream of the recording. Each stream of a recording
// starts when the graph is launched; the launch ends when every stream's
// work is done.
func (r *Recorder) Stream() *Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &Stream{dev: r.dev, rec: r, lane: fmt.Sprintf("graph stream %d", len(r.lanes)+1)}
	r.lanes = append(r.lanes, s)
	return s
}

// Event returns a new event of the recording, to order work between its
// streams: Record on one stream, Wait on another. It records no time and
// cannot be synchronized with or queried.
func (r *Recorder) Event() *Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &Event{dev: r.dev, rec: r}
	r.events = append(r.events, e)
	return e
}

// record runs the function of a recording.
func (d *Device) record(fn func(r *Recorder) error) (*Recorder, error) {
	r := &Recorder{dev: d, refs: map[*atomic.Int32]graphRef{}}
	d.recording.Add(1)
	defer func() {
		d.recording.Add(-1)
		r.mu.Lock()
		for _, s := range r.lanes {
			s.closed.Store(true)
		}
		for _, e := range r.events {
			e.closed.Store(true)
		}
		r.mu.Unlock()
	}()
	if err := fn(r); err != nil {
		if d.drv != nil {
			destroyGraphs(d.drv, r.children)
		}
		return nil, err
	}
	return r, nil
}

// refer notes that the graph uses bufs.
func (r *Recorder) refer(bufs []stubabi.ArgBuffer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range bufs {
		a := arg(b)
		r.refs[a.argGraphs()] = a
	}
}

// addKernel adds one launch of a kernel on a stream of the recording.
func (r *Recorder) addKernel(m *Module, kernel int, counts []int64, args []byte, cfg launchSettings) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := cfg.stream
	s.tail = m.appendKernel(&r.plan, kernel, counts, args, cfg, s.tail)
	return nil
}

// addStep adds a call the CPU backend makes when the graph is launched.
func (r *Recorder) addStep(f func() error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, f)
	return nil
}

// addTransfer adds a copy or memset.
func (r *Recorder) addTransfer(t *transfer) error {
	if r.dev.drv == nil {
		cpu := t.cpu
		return r.addStep(func() error { cpu(); return nil })
	}
	var host graphRef
	if t.host != nil {
		if host = r.dev.hostBufferOf(uintptr(t.host), t.node.bytes); host == nil {
			return errors.New("a copy in a recording must be to or from page-locked memory (rt.AllocHost), which the graph reads or writes on each launch")
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if host != nil {
		r.refs[host.argGraphs()] = host
	}
	for _, b := range t.bufs {
		if b != nil {
			r.refs[b.argGraphs()] = b
		}
	}
	s := t.s
	s.tail = []int32{r.plan.add(t.node, s.tail)}
	return nil
}

// recordEvent makes e stand for the point s has reached.
func (r *Recorder) recordEvent(e *Event, s *Stream) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.point, e.recorded = slices.Clone(s.tail), true
	return nil
}

// waitEvent makes the next work of s wait for e's point.
func (r *Recorder) waitEvent(e *Event, s *Stream) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !e.recorded {
		return errors.New("the event is waited for before it is recorded in the recording")
	}
	for _, n := range e.point {
		if !slices.Contains(s.tail, n) {
			s.tail = append(slices.Clone(s.tail), n)
		}
	}
	return nil
}

// recordingEvent checks that an event operation on s with e either
// involves no recording or stays within one; inside reports which.
func recordingEvent(e *Event, s *Stream) (inside bool, err error) {
	switch {
	case e.rec == nil && !s.recording():
		return false, nil
	case e.rec == nil:
		return true, fmt.Errorf("an event of the device used on a stream of a recording; use Recorder.Event: %w", ErrRecording)
	case !s.recording() || s.rec != e.rec:
		return true, fmt.Errorf("an event of a recording used on a stream outside it: %w", ErrRecording)
	}
	return true, nil
}

// hostBufferOf returns the page-locked buffer of d that holds bytes at
// address p, or nil.
func (d *Device) hostBufferOf(p, bytes uintptr) graphRef {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.live {
		if h, ok := l.r.(pinnedMemory); ok {
			if start, end := h.hostSpan(); start <= p && p+bytes <= end {
				return h
			}
		}
	}
	return nil
}

// pinnedMemory is a HostBuffer of any element type.
type pinnedMemory interface {
	graphRef
	hostSpan() (start, end uintptr)
}

func (h *HostBuffer[T]) hostSpan() (start, end uintptr) {
	start = uintptr(h.ptr)
	return start, start + uintptr(len(h.data))*unsafe.Sizeof(*new(T))
}

func (h *HostBuffer[T]) argGraphs() *atomic.Int32 { return &h.graphs }
