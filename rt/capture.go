package rt

import (
	"errors"
	"fmt"
	"runtime"
)

// qd builds a recording's graph node by node, but libraries that queue
// their own work on a stream, such as NCCL's collectives, enter graphs
// only by stream capture. QueueForeign on a stream of a recording
// therefore captures the library's calls on a private stream of the
// device into a graph of their own (relaxed mode: the library may
// allocate memory on its first use), and the recording adds that graph
// as a child graph node after the stream's previous work. Graph.Update
// records again, so each update captures anew: the child node takes the
// new graph in place (cuGraphExecChildGraphNodeSetParams) when the
// driver accepts it, else the graph is rebuilt. A captured graph lives
// as long as the graph built from it, since the library may tie
// resources to it. On the CPU backend the work itself is the step the
// graph makes when launched.

// nodeChild is a node that runs a captured graph (graphNode.child).
const nodeChild = nodeMemset + 1

// captureDriver is the part of a driver that captures a stream's work
// into a graph and adds such graphs to others as child nodes.
type captureDriver interface {
	// canCapture reports whether the driver has the calls below.
	canCapture() bool
	beginCapture(s uintptr) error
	endCapture(s uintptr) (graph uintptr, err error)
	addChildNode(g uintptr, deps []uintptr, child uintptr) (uintptr, error)
	setChildNode(exec, node, child uintptr) error
}

// Recording reports whether s is a stream of a recording (Recorder.Stream),
// on which work becomes part of a graph instead of running: for libraries
// that queue work through QueueForeign and must know, such as one that
// groups several calls into one capture.
func (s *Stream) Recording() bool { return s.recording() }

// addCapture adds to the recording, after the work of its stream s, the
// work queue issues on a stream given to it: on a GPU, captured into a
// child graph; on the CPU backend, as a step of each launch.
func (r *Recorder) addCapture(s *Stream, name string, queue func(stream uintptr) error) error {
	d := r.dev
	if d.drv == nil {
		return r.addStep(func() error { return queue(0) })
	}
	cd, ok := d.drv.(captureDriver)
	if !ok || !cd.canCapture() {
		return fmt.Errorf("%s cannot be recorded into a graph: the driver has no stream capture (cuStreamBeginCapture, cuGraphAddChildGraphNode): %w", name, ErrRecording)
	}
	graph, err := capture(d.drv, cd, queue)
	if err != nil {
		return fmt.Errorf("%s could not be captured into a graph: %w", name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.children = append(r.children, graph)
	s.tail = []int32{r.plan.add(graphNode{kind: nodeChild, name: name, child: graph}, s.tail)}
	return nil
}

// capture runs queue on a new stream of the device captured into a graph
// and returns the graph. The thread stays the same from the capture's
// beginning to its end, for libraries that keep state per thread.
func capture(drv driver, cd captureDriver, queue func(stream uintptr) error) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := drv.newStream(0)
	if err != nil {
		return 0, err
	}
	defer drv.destroyStream(s)
	if err := cd.beginCapture(s); err != nil {
		return 0, err
	}
	qerr := queue(s)
	graph, err := cd.endCapture(s)
	if qerr != nil || err != nil {
		if graph != 0 {
			drv.destroyGraph(graph)
		}
		return 0, errors.Join(qerr, err)
	}
	return graph, nil
}

// addNode adds node n to graph g after deps.
func addNode(drv driver, g uintptr, deps []uintptr, n *graphNode) (uintptr, error) {
	if n.kind == nodeChild {
		return drv.(captureDriver).addChildNode(g, deps, n.child)
	}
	return drv.addGraphNode(g, deps, n)
}

// setNode changes node of exec to do n's work.
func setNode(drv driver, exec, node uintptr, n *graphNode) error {
	if n.kind == nodeChild {
		return drv.(captureDriver).setChildNode(exec, node, n.child)
	}
	return drv.setGraphNode(exec, node, n)
}

// destroyGraphs destroys captured graphs.
func destroyGraphs(drv driver, graphs []uintptr) error {
	var err error
	for _, g := range graphs {
		if e := drv.destroyGraph(g); err == nil {
			err = e
		}
	}
	return err
}
