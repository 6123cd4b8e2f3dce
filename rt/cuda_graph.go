//go:build cgo

package rt

/*
#cgo noescape qd_cu_graph_launch
#cgo nocallback qd_cu_graph_launch
#include "cuda_shim.h"
*/
import "C"

import "unsafe"

// The CUDA driver's graphs, stream-ordered memory and linker, declared in
// cuda_shim.h with the rest of the driver.

func (d *cudaDriver) features() driverFeatures { return d.feat }

func (d *cudaDriver) driverVersion() int {
	var v C.int
	C.qd_cu_driver_version(&v)
	return int(v)
}

func (d *cudaDriver) newGraph() (uintptr, error) {
	var g C.uintptr_t
	r := C.qd_cu_graph_create(d.ctx, &g)
	return uintptr(g), cuError("cuGraphCreate", r)
}

func (d *cudaDriver) destroyGraph(g uintptr) error {
	return cuError("cuGraphDestroy", C.qd_cu_graph_destroy(d.ctx, C.uintptr_t(g)))
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

// nodeCalls names the driver call that adds or updates each kind of node.
var nodeCalls = [...][2]string{
	nodeEmpty:  {"cuGraphAddEmptyNode", ""},
	nodeKernel: {"cuGraphAddKernelNode", "cuGraphExecKernelNodeSetParams"},
	nodeCopy:   {"cuGraphAddMemcpyNode", "cuGraphExecMemcpyNodeSetParams"},
	nodeMemset: {"cuGraphAddMemsetNode", "cuGraphExecMemsetNodeSetParams"},
}

func (d *cudaDriver) addGraphNode(g uintptr, deps []uintptr, n *graphNode) (uintptr, error) {
	cn := cNode(n)
	var node C.uintptr_t
	r := C.qd_cu_graph_add_node(d.ctx, &node, C.uintptr_t(g), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(deps))), C.int(len(deps)), &cn, sliceData(n.args))
	return uintptr(node), cuError(nodeCalls[n.kind][0], r)
}

func (d *cudaDriver) instantiateGraph(g uintptr) (uintptr, error) {
	var e C.uintptr_t
	r := C.qd_cu_graph_instantiate(d.ctx, &e, C.uintptr_t(g))
	return uintptr(e), cuError("cuGraphInstantiateWithFlags", r)
}

func (d *cudaDriver) destroyGraphExec(exec uintptr) error {
	return cuError("cuGraphExecDestroy", C.qd_cu_graph_exec_destroy(d.ctx, C.uintptr_t(exec)))
}

func (d *cudaDriver) setGraphNode(exec, node uintptr, n *graphNode) error {
	cn := cNode(n)
	return cuError(nodeCalls[n.kind][1], C.qd_cu_graph_set_node(d.ctx, C.uintptr_t(exec), C.uintptr_t(node), &cn, sliceData(n.args)))
}

func (d *cudaDriver) launchGraph(exec, stream uintptr, updates []nodeUpdate, args []byte) error {
	r := C.qd_cu_graph_launch(d.ctx, C.uintptr_t(exec), C.uintptr_t(stream),
		(*C.qd_node_update)(unsafe.Pointer(unsafe.SliceData(updates))), C.int(len(updates)),
		sliceData(args), C.size_t(len(args)))
	return cuError("cuGraphLaunch (cuGraphExecKernelNodeSetParams)", r)
}

func (d *cudaDriver) allocAsync(bytes, s uintptr, wait bool) (uintptr, error) {
	var p C.CUdeviceptr
	r := C.qd_cu_alloc_async(d.ctx, &p, C.size_t(bytes), C.uintptr_t(d.memPool), C.uintptr_t(s), boolInt(wait))
	return uintptr(p), cuError("cuMemAllocFromPoolAsync", r)
}

func (d *cudaDriver) freeAsync(ptr, s uintptr, streams, events []uintptr) error {
	r := C.qd_cu_free_after(d.ctx, C.CUdeviceptr(ptr), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(events))),
		(*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(streams))), C.int(len(streams)), C.uintptr_t(s))
	return cuError("cuMemFreeAsync", r)
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func (d *cudaDriver) linkPTX(ptx string) ([]byte, error) {
	src := C.CString(ptx)
	defer C.free(unsafe.Pointer(src))
	var state C.uintptr_t
	var cubin unsafe.Pointer
	var size C.size_t
	var log [8192]C.char
	r := C.qd_cu_link(d.ctx, &state, src, &cubin, &size, &log[0], C.int(len(log)))
	defer func() {
		if state != 0 {
			C.qd_cu_link_destroy(state)
		}
	}()
	if r != 0 {
		err := cuError("cuLinkComplete", r).(*DriverError)
		err.Log = C.GoString(&log[0])
		return nil, err
	}
	return C.GoBytes(cubin, C.int(size)), nil
}

// openFeatures finds the optional parts the driver and device have, and
// creates the device's memory pool.
func (d *cudaDriver) openFeatures(pools bool) {
	d.feat.graphs = C.qd_cu_has_graphs() != 0
	d.feat.linker = C.qd_cu_has_linker() != 0
	if pools && C.qd_cu_has_pools() != 0 {
		var pool C.uintptr_t
		if C.qd_cu_pool_create(d.ctx, d.dev, &pool) == 0 {
			d.memPool, d.feat.memPools = uintptr(pool), true
		}
	}
}
