package rt

import (
	"sync"
)

// A kernel with qd.StreamParallel groups is launched as a cached graph:
// one kernel node per task, ordered as appendKernel orders them, so that
// the fork and the join cost the host nothing. The graph is built once per
// kernel and launch shape (which tasks have iterations), on the second
// launch of that shape: a kernel launched once costs no more than an eager
// launch. Each launch then updates only the kernel nodes whose grid, or
// whose arguments, differ from those of the executable graph's previous
// launch, and launches it on the launching stream.
//
// An executable graph is used by one launch at a time: launches take one
// from the shape's idle list and put it back, holding the kernel's lock
// only for that (the driver calls run outside it, except once per shape
// while its graph is built), so concurrent launches from many goroutines
// contend on a few list operations, not on the driver. The driver runs launches of one executable graph one after the
// other, even on different streams, so a launch prefers an idle graph that
// last ran on its own stream and otherwise instantiates another, up to
// maxExecsPerShape; past that it launches eagerly rather than wait.

const (
	// maxGraphTasks bounds the tasks of a kernel launched as a graph: the
	// shape of a launch is a bit mask of its tasks.
	maxGraphTasks = 64
	// maxShapes bounds the shapes cached per kernel.
	maxShapes = 8
	// maxExecsPerShape bounds the executable graphs of one shape.
	maxExecsPerShape = 8
)

// kernelGraphs are the cached graphs of one kernel.
type kernelGraphs struct {
	mu     sync.Mutex
	shapes []*shapeGraph
}

// shapeGraph is the graph of one launch shape of a kernel.
type shapeGraph struct {
	mask     uint64
	launches int  // eager launches of this shape so far
	failed   bool // building it failed: launch eagerly
	graph    uintptr
	// tasks and nodes give, for each kernel node, its task and the
	// driver's node.
	tasks []int
	nodes []uintptr
	// plan holds the nodes as built, which new executable graphs start
	// from.
	plan  []graphNode
	idle  []*graphExec
	execs []*graphExec // every executable graph, for release
}

// graphExec is one executable graph of a shape, with the parameters its
// kernel nodes have now.
type graphExec struct {
	handle  uintptr
	stream  uintptr // the stream it last ran on
	args    []byte
	grid    []uint32
	block   []uint32
	updates []nodeUpdate // scratch for one launch
}

// useGraphs reports whether launches of kernel go through graphs.
func (m *Module) useGraphs(kernel int, cfg launchSettings) bool {
	return m.graphs != nil && len(m.spec.Kernels[kernel].Groups) > 0 && !cfg.eager &&
		len(m.spec.Kernels[kernel].Tasks) <= maxGraphTasks && m.dev.traceOff()
}

// launchGraph launches kernel as a graph, and reports false when the
// launch should be eager instead: on the first launch of a shape, when a
// graph could not be built, or when every executable graph is in use.
func (m *Module) launchGraph(kernel int, stream uintptr, counts []int64, args []byte, cfg launchSettings) (bool, error) {
	k := &m.spec.Kernels[kernel]
	var grids, blocks [maxGraphTasks]uint32
	var mask uint64
	for i := range k.Tasks {
		var ok bool
		if grids[i], blocks[i], ok = m.taskGrid(kernel, i, counts[i], cfg); !ok {
			continue
		}
		mask |= 1 << i
	}
	kg := &m.graphs[kernel]
	ex, sg := m.takeExec(kg, kernel, mask, stream, counts, args, cfg)
	if ex == nil {
		return false, nil
	}
	ups := ex.updates[:0]
	changed := string(ex.args) != string(args)
	for n, t := range sg.tasks {
		if changed || ex.grid[n] != grids[t] || ex.block[n] != blocks[t] {
			ups = append(ups, nodeUpdate{node: sg.nodes[n], fn: m.entries[kernel][t], grid: grids[t], block: blocks[t]})
			ex.grid[n], ex.block[n] = grids[t], blocks[t]
		}
	}
	ex.args = append(ex.args[:0], args...)
	err := m.dev.drv.launchGraph(ex.handle, stream, ups, ex.args)
	ex.stream = stream
	kg.mu.Lock()
	if err == nil {
		sg.idle = append(sg.idle, ex)
	}
	kg.mu.Unlock()
	if err != nil {
		return true, opError("launch "+k.Name+" (graph)", err)
	}
	return true, nil
}

// takeExec finds or builds the shape's graph and takes an idle executable
// graph of it for one launch; nil means launch eagerly.
func (m *Module) takeExec(kg *kernelGraphs, kernel int, mask uint64, stream uintptr, counts []int64, args []byte, cfg launchSettings) (*graphExec, *shapeGraph) {
	kg.mu.Lock()
	defer kg.mu.Unlock()
	var sg *shapeGraph
	for _, s := range kg.shapes {
		if s.mask == mask {
			sg = s
		}
	}
	if sg == nil {
		if len(kg.shapes) >= maxShapes {
			return nil, nil
		}
		sg = &shapeGraph{mask: mask}
		kg.shapes = append(kg.shapes, sg)
	}
	if sg.failed {
		return nil, nil
	}
	if sg.graph == 0 {
		if sg.launches == 0 {
			sg.launches++
			return nil, nil
		}
		if err := m.buildShape(sg, kernel, counts, args, cfg); err != nil {
			sg.failed = true
			return nil, nil
		}
	}
	pick := -1
	for i, ex := range sg.idle {
		if ex.stream == stream {
			pick = i
			break
		}
	}
	if pick < 0 && len(sg.execs) >= maxExecsPerShape && len(sg.idle) > 0 {
		pick = len(sg.idle) - 1
	}
	if pick >= 0 {
		ex := sg.idle[pick]
		sg.idle = append(sg.idle[:pick], sg.idle[pick+1:]...)
		return ex, sg
	}
	if len(sg.execs) >= maxExecsPerShape {
		return nil, nil
	}
	ex, err := m.newExec(sg)
	if err != nil {
		return nil, nil
	}
	return ex, sg
}

// buildShape builds the graph of a shape from one launch's arguments.
func (m *Module) buildShape(sg *shapeGraph, kernel int, counts []int64, args []byte, cfg launchSettings) error {
	var p graphPlan
	m.appendKernel(&p, kernel, counts, args, cfg, nil)
	graph, nodes, err := realize(m.dev.drv, p.nodes)
	if err != nil {
		return err
	}
	sg.graph, sg.plan = graph, p.nodes
	for i := range p.nodes {
		if p.nodes[i].kind == nodeKernel {
			sg.tasks = append(sg.tasks, p.nodes[i].task)
			sg.nodes = append(sg.nodes, nodes[i])
		}
	}
	return nil
}

// newExec instantiates the shape's graph once more.
func (m *Module) newExec(sg *shapeGraph) (*graphExec, error) {
	h, err := m.dev.drv.instantiateGraph(sg.graph)
	if err != nil {
		return nil, err
	}
	ex := &graphExec{handle: h, updates: make([]nodeUpdate, 0, len(sg.nodes))}
	for i := range sg.plan {
		if n := &sg.plan[i]; n.kind == nodeKernel {
			ex.grid = append(ex.grid, n.grid)
			ex.block = append(ex.block, n.block)
			ex.args = n.args
		}
	}
	ex.args = append([]byte(nil), ex.args...)
	sg.execs = append(sg.execs, ex)
	return ex, nil
}

// releaseGraphs destroys the module's graphs; the device is idle.
func (m *Module) releaseGraphs() error {
	var err error
	for i := range m.graphs {
		kg := &m.graphs[i]
		kg.mu.Lock()
		for _, sg := range kg.shapes {
			for _, ex := range sg.execs {
				if e := m.dev.drv.destroyGraphExec(ex.handle); err == nil {
					err = e
				}
			}
			if sg.graph != 0 {
				if e := m.dev.drv.destroyGraph(sg.graph); err == nil {
					err = e
				}
			}
		}
		kg.shapes = nil
		kg.mu.Unlock()
	}
	return err
}
