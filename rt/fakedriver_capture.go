package rt

import (
	"errors"
	"slices"
)

// fakeCapture sets how the fake driver answers for stream capture, and
// keeps what it captured.
type fakeCapture struct {
	// none makes canCapture say no; failEnd makes endCapture fail.
	none, failEnd bool
	on            uintptr   // the stream being captured, or 0
	live          []uintptr // captured graphs not destroyed yet
}

func (f *fakeDriver) canCapture() bool { return !f.capture.none }

func (f *fakeDriver) beginCapture(s uintptr) error {
	f.calls.Add(1)
	f.mu.Lock()
	f.capture.on = s
	f.mu.Unlock()
	f.logf("begin capture on %s", f.name(s))
	return nil
}

func (f *fakeDriver) endCapture(s uintptr) (uintptr, error) {
	f.calls.Add(1)
	f.mu.Lock()
	on, fail := f.capture.on, f.capture.failEnd
	f.capture.on = 0
	f.mu.Unlock()
	if on != s {
		return 0, errors.New("end of a capture that did not begin")
	}
	f.logf("end capture on %s", f.name(s))
	if fail {
		return 0, &DriverError{Call: "cuStreamEndCapture", Code: 901, Name: "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"}
	}
	g, _ := f.newGraph()
	f.mu.Lock()
	f.capture.live = append(f.capture.live, g)
	f.mu.Unlock()
	return g, nil
}

// capturing is the stream being captured, or 0.
func (f *fakeDriver) capturing() uintptr {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.capture.on
}

// liveCaptures is how many captured graphs are not destroyed.
func (f *fakeDriver) liveCaptures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, g := range f.capture.live {
		if f.graphs[g] != nil {
			n++
		}
	}
	return n
}

func (f *fakeDriver) addChildNode(g uintptr, deps []uintptr, child uintptr) (uintptr, error) {
	f.mu.Lock()
	ok := f.graphs[child] != nil
	f.mu.Unlock()
	if !ok {
		return 0, errors.New("child graph destroyed")
	}
	return f.addGraphNode(g, deps, &graphNode{kind: nodeChild, name: "child", child: child})
}

func (f *fakeDriver) setChildNode(exec, node, child uintptr) error {
	f.calls.Add(1)
	f.mu.Lock()
	fe := f.execs[exec]
	i := slices.Index(fe.ids, node)
	ok := f.graphs[child] != nil
	if ok {
		fe.nodes[i].child = child
	}
	f.mu.Unlock()
	if !ok {
		return errors.New("child graph destroyed")
	}
	f.logf("set child node %d", i)
	return nil
}
