//go:build cgo

package rt

/*
#cgo noescape qd_graph_launch
#cgo nocallback qd_graph_launch
#cgo noescape qd_alloc_async
#cgo nocallback qd_alloc_async
#cgo noescape qd_free_after
#cgo nocallback qd_free_after
#include "gpu_shim.h"
*/
import "C"

import "unsafe"

// The optional parts of a driver, declared in gpu_shim.h with the rest:
// graphs, stream-ordered memory and the linker, which CUDA has and the HIP
// driver goes without for now.

func (g *gpuDriver) features() driverFeatures { return g.feat }

// openFeatures finds the optional parts the driver and device have, and
// creates the device's memory pool.
func (g *gpuDriver) openFeatures(pools bool) {
	g.feat.graphs = C.qd_has_graphs(g.api) != 0
	g.feat.linker = C.qd_has_linker(g.api) != 0
	if pools && C.qd_has_pools(g.api) != 0 {
		var pool C.uintptr_t
		if C.qd_pool_create(g.api, g.ctx, g.dev, &pool) == 0 {
			g.memPool, g.feat.memPools = uintptr(pool), true
		}
	}
}

func (g *gpuDriver) newGraph() (uintptr, error) {
	var gr C.uintptr_t
	r := C.qd_graph_create(g.api, g.ctx, &gr)
	return uintptr(gr), g.check(C.QD_CALL_GraphCreate, r)
}

func (g *gpuDriver) destroyGraph(gr uintptr) error {
	return g.check(C.QD_CALL_GraphDestroy, C.qd_graph_destroy(g.api, g.ctx, C.uintptr_t(gr)))
}

// cNode describes n to C, all but its argument bytes: cgo forbids Go
// memory that C is given to hold pointers to Go memory, so the arguments
// are passed beside it.
func cNode(n *graphNode) C.qd_graph_node {
	return C.qd_graph_node{
		kind:    C.int(n.kind),
		fn:      C.uintptr_t(n.fn),
		grid:    C.uint(n.grid),
		block:   C.uint(n.block),
		argSize: C.size_t(len(n.args)),
		dstType: C.int(n.dstType),
		srcType: C.int(n.srcType),
		dst:     C.uintptr_t(n.dst),
		src:     C.uintptr_t(n.src),
		bytes:   C.size_t(n.bytes),
		value:   C.uint(n.value),
	}
}

// nodeCalls are the driver calls that add and update each kind of node.
var nodeCalls = [...][2]C.int{
	nodeEmpty:  {C.QD_CALL_GraphAddEmptyNode, C.QD_CALL_GraphAddEmptyNode},
	nodeKernel: {C.QD_CALL_GraphAddKernelNode, C.QD_CALL_GraphExecKernelNodeSetParams},
	nodeCopy:   {C.QD_CALL_GraphAddMemcpyNode, C.QD_CALL_GraphExecMemcpyNodeSetParams},
	nodeMemset: {C.QD_CALL_GraphAddMemsetNode, C.QD_CALL_GraphExecMemsetNodeSetParams},
}

func (g *gpuDriver) addGraphNode(gr uintptr, deps []uintptr, n *graphNode) (uintptr, error) {
	cn := cNode(n)
	var node C.uintptr_t
	r := C.qd_graph_add_node(g.api, g.ctx, &node, C.uintptr_t(gr), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(deps))), C.int(len(deps)), &cn, sliceData(n.args))
	return uintptr(node), g.check(nodeCalls[n.kind][0], r)
}

func (g *gpuDriver) instantiateGraph(gr uintptr) (uintptr, error) {
	var e C.uintptr_t
	r := C.qd_graph_instantiate(g.api, g.ctx, &e, C.uintptr_t(gr))
	return uintptr(e), g.check(C.QD_CALL_GraphInstantiateWithFlags, r)
}

func (g *gpuDriver) destroyGraphExec(exec uintptr) error {
	return g.check(C.QD_CALL_GraphExecDestroy, C.qd_graph_exec_destroy(g.api, g.ctx, C.uintptr_t(exec)))
}

func (g *gpuDriver) setGraphNode(exec, node uintptr, n *graphNode) error {
	cn := cNode(n)
	return g.check(nodeCalls[n.kind][1], C.qd_graph_set_node(g.api, g.ctx, C.uintptr_t(exec), C.uintptr_t(node), &cn, sliceData(n.args)))
}

func (g *gpuDriver) launchGraph(exec, stream uintptr, updates []nodeUpdate, args []byte) error {
	r := C.qd_graph_launch(g.api, g.ctx, C.uintptr_t(exec), C.uintptr_t(stream),
		(*C.qd_node_update)(unsafe.Pointer(unsafe.SliceData(updates))), C.int(len(updates)),
		(*C.uchar)(sliceData(args)), C.size_t(len(args)))
	if r == 0 {
		return nil
	}
	return g.driverError(g.callNames(C.QD_CALL_GraphLaunch)+" ("+g.callNames(C.QD_CALL_GraphExecKernelNodeSetParams)+")", r)
}

func (g *gpuDriver) allocAsync(bytes, s uintptr, wait bool) (uintptr, error) {
	var p C.uintptr_t
	r := C.qd_alloc_async(g.api, g.ctx, &p, C.size_t(bytes), C.uintptr_t(g.memPool), C.uintptr_t(s), boolInt(wait))
	return uintptr(p), g.check(C.QD_CALL_MemAllocFromPoolAsync, r)
}

func (g *gpuDriver) freeAsync(ptr, s uintptr, streams, events []uintptr) error {
	r := C.qd_free_after(g.api, g.ctx, C.uintptr_t(ptr), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(events))),
		(*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(streams))), C.int(len(streams)), C.uintptr_t(s))
	return g.check(C.QD_CALL_MemFreeAsync, r)
}

func (g *gpuDriver) linkPTX(ptx string) ([]byte, error) {
	src := C.CString(ptx)
	defer C.free(unsafe.Pointer(src))
	var state C.uintptr_t
	var cubin unsafe.Pointer
	var size C.size_t
	var log [8192]C.char
	r := C.qd_link(g.api, g.ctx, &state, src, &cubin, &size, &log[0], C.int(len(log)))
	defer func() {
		if state != 0 {
			C.qd_link_destroy(g.api, state)
		}
	}()
	if r != 0 {
		err := g.driverError(g.callNames(C.QD_CALL_LinkComplete), r)
		err.Log = C.GoString(&log[0])
		return nil, err
	}
	return C.GoBytes(cubin, C.int(size)), nil
}
