package rt

import (
	"fmt"
	"slices"
)

// A graph plan is the work of a graph before the driver sees it: nodes in
// the order they were added, each naming the earlier nodes it waits for.
// Kernel graphs (kgraph.go) and recorded graphs (record.go) build plans;
// realize turns one into a driver graph.

type nodeKind uint8

const (
	nodeEmpty nodeKind = iota
	nodeKernel
	nodeCopy
	nodeMemset
)

// memType is where one side of a copy lives; the values are CUDA's
// CUmemorytype, which HIP shares.
type memType uint8

const (
	hostMemory   memType = 1
	deviceMemory memType = 2
)

// graphNode is one node of a plan.
type graphNode struct {
	kind nodeKind
	deps []int32 // earlier nodes of the plan this one waits for
	name string  // what it does, for errors and traces

	// Kernels: the entry, its grid and the packed arguments.
	fn          uintptr
	grid, block uint32
	args        []byte
	task        int // the task's number in its kernel

	// Copies and memsets: each side's memory and address, the length in
	// bytes, and a memset's byte.
	dstType, srcType memType
	dst, src         uintptr
	bytes            uintptr
	value            byte

	// Child graphs: the captured graph (capture.go).
	child uintptr
}

// nodeUpdate is a kernel node of an executable graph that a launch
// changes: its function and grid, and the launch's argument buffer.
type nodeUpdate struct {
	node, fn    uintptr
	grid, block uint32
}

// graphPlan is a list of nodes.
type graphPlan struct {
	nodes []graphNode
}

func (p *graphPlan) add(n graphNode, deps []int32) int32 {
	n.deps = slices.Clone(deps)
	p.nodes = append(p.nodes, n)
	return int32(len(p.nodes) - 1)
}

// join returns a single dependency standing for all of deps: an empty node
// when there are several, so that several later nodes waiting for all of
// them need one edge each instead of one per node of deps.
func (p *graphPlan) join(deps []int32) []int32 {
	if len(deps) <= 1 {
		return deps
	}
	return []int32{p.add(graphNode{kind: nodeEmpty, name: "join"}, deps)}
}

// sameShape reports whether two plans have the same nodes, kinds and
// edges, so that an executable graph of one becomes the other by changing
// node parameters only.
func sameShape(a, b []graphNode) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.kind != y.kind || !slices.Equal(x.deps, y.deps) || x.dstType != y.dstType || x.srcType != y.srcType {
			return false
		}
	}
	return true
}

// sameParams reports whether two nodes of the same kind do the same work.
func sameParams(x, y *graphNode) bool {
	return x.fn == y.fn && x.grid == y.grid && x.block == y.block && string(x.args) == string(y.args) &&
		x.dst == y.dst && x.src == y.src && x.bytes == y.bytes && x.value == y.value && x.child == y.child
}

// appendKernel adds the tasks of one launch of kernel to p, after the
// nodes of after, and returns the nodes the launch ends with: the tasks
// of a stream-parallel group wait for what precedes the group (the fork)
// and, within a block, for the block's previous task; what follows the
// group waits for every block (the join). Tasks with no iterations are
// left out. Blocks beyond the stream pool's size wait for the block that
// the eager launch would have put on the same stream before them, so a
// graph runs no more blocks at once than an eager launch does.
func (m *Module) appendKernel(p *graphPlan, kernel int, counts []int64, args []byte, cfg launchSettings, after []int32) []int32 {
	k := &m.spec.Kernels[kernel]
	frontier := after
	for i := 0; i < len(k.Tasks); {
		if k.Tasks[i].Group == 0 {
			if n, ok := m.taskNode(kernel, i, counts, args, cfg); ok {
				frontier = []int32{p.add(n, frontier)}
			}
			i++
			continue
		}
		j := i + 1
		for j < len(k.Tasks) && k.Tasks[j].Group == k.Tasks[i].Group {
			j++
		}
		if k.Tasks[i].Block != k.Tasks[j-1].Block {
			frontier = p.join(frontier) // several blocks fork from it
		}
		frontier = m.appendGroup(p, kernel, i, j, counts, args, cfg, frontier)
		i = j
	}
	return frontier
}

// appendGroup adds tasks [i, j), one stream-parallel group, after fork.
func (m *Module) appendGroup(p *graphPlan, kernel, i, j int, counts []int64, args []byte, cfg launchSettings, fork []int32) []int32 {
	k := &m.spec.Kernels[kernel]
	lanes := max(m.dev.pool.size, 1)
	last := make([]int32, lanes) // per pool stream, its last node, or -1
	for l := range last {
		last[l] = -1
	}
	block := -1
	var prev []int32
	for t := i; t < j; t++ {
		if t == i || k.Tasks[t].Block != k.Tasks[t-1].Block {
			block++
			prev = fork
			if l := last[block%lanes]; l >= 0 {
				prev = append(slices.Clone(fork), l)
			}
		}
		if n, ok := m.taskNode(kernel, t, counts, args, cfg); ok {
			id := p.add(n, prev)
			prev = []int32{id}
			last[block%lanes] = id
		}
	}
	var join []int32
	for _, l := range last {
		if l >= 0 {
			join = append(join, l)
		}
	}
	if join == nil {
		return fork // nothing ran: the group is empty
	}
	return join
}

// taskNode is the kernel node of task i, or false when the task has no
// iterations and is not launched.
func (m *Module) taskNode(kernel, i int, counts []int64, args []byte, cfg launchSettings) (graphNode, bool) {
	t := &m.spec.Kernels[kernel].Tasks[i]
	grid, block, ok := m.taskGrid(kernel, i, counts[i], cfg)
	if !ok {
		return graphNode{}, false
	}
	return graphNode{
		kind: nodeKernel, name: m.spec.Kernels[kernel].Name + " (task " + t.Entry + ")", task: i,
		fn: m.entries[kernel][i], grid: grid, block: block, args: slices.Clone(args),
	}, true
}

// realize builds a driver graph from p and returns it with the driver's
// node for each node of p.
func realize(drv driver, p []graphNode) (graph uintptr, nodes []uintptr, err error) {
	graph, err = drv.newGraph()
	if err != nil {
		return 0, nil, err
	}
	nodes = make([]uintptr, len(p))
	var deps []uintptr
	for i := range p {
		deps = deps[:0]
		for _, d := range p[i].deps {
			deps = append(deps, nodes[d])
		}
		if nodes[i], err = addNode(drv, graph, deps, &p[i]); err != nil {
			drv.destroyGraph(graph)
			return 0, nil, fmt.Errorf("graph node %d (%s): %w", i, p[i].name, err)
		}
	}
	return graph, nodes, nil
}
