package rt

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Graph is recorded work that launches as one unit, at a fraction of the
// host's cost of issuing the same work again: see Device.Record. A Graph is
// safe for use by many goroutines at once; its launches run one after
// another.
type Graph struct {
	tracked // in its device's list of what Close frees
	dev     *Device
	record  func(*Recorder) error

	mu    sync.Mutex // one launch, update or close at a time
	plan  []graphNode
	steps []func() error
	graph uintptr
	exec  uintptr
	nodes []uintptr // the driver's node of each node of plan
	refs  []graphRef
	// children are the captured graphs of plan's child nodes.
	children []uintptr
	// updates counts the updates that changed node parameters in place,
	// and rebuilds those that built the graph anew.
	updates, rebuilds int

	closed atomic.Bool
}

// Record runs record once with a Recorder and returns the work it issued
// on the Recorder's streams as a graph:
//
//	g, err := dev.Record(func(r *rt.Recorder) error {
//		s1, s2 := r.Stream(), r.Stream()
//		done := r.Event()
//		if err := x.CopyFromAsync(in.Data(), s1); err != nil {
//			return err
//		}
//		if err := ks.Scale(x, 2, rt.OnStream(s1)); err != nil {
//			return err
//		}
//		done.Record(s1)
//		done.Wait(s2)
//		return ks.Add(x, y, rt.OnStream(s2))
//	})
//	...
//	err = g.Launch(s) // after the work queued on s, before what follows
//
// Nothing runs while recording. The graph keeps the kernels' arguments and
// the buffers and page-locked memory its copies use; to change them (new
// buffers, new scalars), change what record reads and call Update, which
// records again and updates the graph without rebuilding it when only
// parameters changed. While record runs, synchronizing the device, or
// synchronizing or querying the recording's streams and events, is an
// error wrapping ErrRecording. Freeing a buffer or page-locked memory a
// graph refers to is an error wrapping ErrInUse.
//
// Work that other libraries queue on the recording's streams through
// QueueForeign, such as package nccl's collectives, is captured into the
// graph as a child graph node.
//
// On the CPU backend a launch makes the recorded calls (each kernel's Go
// function, each copy, each library call) in the order record made them.
func (d *Device) Record(record func(r *Recorder) error) (*Graph, error) {
	const op = "record graph"
	if err := d.check(); err != nil {
		return nil, opError(op, err)
	}
	g := &Graph{dev: d, record: record}
	if err := g.rerecord(); err != nil {
		return nil, opError(op, err)
	}
	if err := d.track(g); err != nil {
		g.release()
		return nil, opError(op, err)
	}
	return g, nil
}

// Update runs the graph's record function again and makes the graph do
// the work it issues now. When the work differs only in parameters (other
// buffers of the same device, other scalars, other lengths of the same
// copies), the graph is updated in place, which costs the host about as
// much as issuing the work once; otherwise it is built anew. Launches
// already queued are not affected.
func (g *Graph) Update() error {
	const op = "update graph"
	if err := g.usable(); err != nil {
		return opError(op, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return opError(op, g.rerecord())
}

// rerecord records the graph's work and makes the graph do it.
func (g *Graph) rerecord() error {
	r, err := g.dev.record(g.record)
	if err != nil {
		return err
	}
	refs := make([]graphRef, 0, len(r.refs))
	for _, ref := range r.refs {
		refs = append(refs, ref)
	}
	if g.dev.drv != nil {
		if err := g.adopt(r.plan.nodes); err != nil {
			destroyGraphs(g.dev.drv, r.children)
			return err
		}
		destroyGraphs(g.dev.drv, g.children)
		g.children = r.children
	}
	g.steps = r.steps
	for _, ref := range refs {
		ref.argGraphs().Add(1)
	}
	for _, ref := range g.refs {
		ref.argGraphs().Add(-1)
	}
	g.refs = refs
	return nil
}

// adopt makes the executable graph run plan: by changing the parameters
// of the nodes that differ when the plan has the current one's shape, else
// by building and instantiating it.
func (g *Graph) adopt(plan []graphNode) error {
	drv := g.dev.drv
	if g.exec != 0 && sameShape(g.plan, plan) && g.setParams(plan) == nil {
		g.updates++
		return nil
	}
	if !drv.features().graphs {
		return errors.New("the driver has no graphs")
	}
	graph, nodes, err := realize(drv, plan)
	if err == nil {
		var exec uintptr
		if exec, err = drv.instantiateGraph(graph); err == nil {
			g.destroy()
			g.plan, g.graph, g.exec, g.nodes = plan, graph, exec, nodes
			g.rebuilds++
			return nil
		}
		drv.destroyGraph(graph)
	}
	// The executable graph may have some nodes updated and not others:
	// launching it would do neither the old work nor the new.
	g.destroy()
	g.plan = nil
	return err
}

// setParams changes the parameters of the nodes that differ from plan's.
func (g *Graph) setParams(plan []graphNode) error {
	for i := range plan {
		if !sameParams(&g.plan[i], &plan[i]) {
			if err := setNode(g.dev.drv, g.exec, g.nodes[i], &plan[i]); err != nil {
				return err
			}
			g.plan[i] = plan[i]
		}
	}
	return nil
}

// Launch queues the graph's work on stream s (nil: the default stream):
// it starts after the work queued on s before it, and the work queued on s
// after it starts once the graph's work is done.
func (g *Graph) Launch(s *Stream) error {
	const op = "launch graph"
	if err := g.usable(); err != nil {
		return opError(op, err)
	}
	h, err := s.use(g.dev)
	if err != nil {
		return opError(op, err)
	}
	if s.recording() {
		return opError(op, errors.New("a graph cannot be launched on a stream of a recording"))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed.Load() {
		return opError(op, ErrClosed)
	}
	tr := g.dev.tracer.Load()
	var start stamp
	if tr != nil {
		start = tr.mark(h)
	}
	if g.dev.drv == nil {
		for _, step := range g.steps {
			if err := step(); err != nil {
				return opError(op, err)
			}
		}
	} else {
		if g.exec == 0 {
			return opError(op, errors.New("the graph's last update failed; update it again"))
		}
		if err := g.dev.drv.launchGraph(g.exec, h, nil, nil); err != nil {
			return opError(op, err)
		}
		for _, ref := range g.refs {
			if b, ok := ref.(argBuffer); ok {
				b.argUse(s)
			}
		}
	}
	if tr != nil {
		tr.add(TraceEvent{Kind: "graph", Name: "graph", Stream: s.laneName()}, start, tr.mark(h))
	}
	return nil
}

// Nodes returns how many nodes the graph has; 0 on the CPU backend.
func (g *Graph) Nodes() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.plan)
}

func (g *Graph) usable() error {
	if g.closed.Load() {
		return ErrClosed
	}
	return g.dev.check()
}

// Close releases the graph and the buffers it refers to; launches already
// queued still run. Closing twice is harmless; any other use of a closed
// graph is an error wrapping ErrClosed.
func (g *Graph) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed.Load() {
		return nil
	}
	if g.dev.check() != nil {
		g.closed.Store(true) // the device released it
		return nil
	}
	g.dev.untrack(g)
	return opError("close graph", g.release())
}

func (g *Graph) release() error {
	if g.closed.Swap(true) {
		return nil
	}
	for _, ref := range g.refs {
		ref.argGraphs().Add(-1)
	}
	g.refs = nil
	err := g.destroy()
	if g.children != nil {
		if e := destroyGraphs(g.dev.drv, g.children); err == nil {
			err = e
		}
		g.children = nil
	}
	return err
}

// destroy destroys the driver's graph and executable graph, if any.
func (g *Graph) destroy() error {
	var err error
	if g.exec != 0 {
		err = g.dev.drv.destroyGraphExec(g.exec)
	}
	if g.graph != 0 {
		if e := g.dev.drv.destroyGraph(g.graph); err == nil {
			err = e
		}
	}
	g.graph, g.exec, g.nodes = 0, 0, nil
	return err
}
