//go:build cgo

package rt

// #include "gpu_capture.h"
import "C"

import "unsafe"

// The GPU drivers capture a stream's work into a graph with
// cuStreamBeginCapture and cuStreamEndCapture, and add such a graph to
// another as a child graph node (capture.go says why). HIP's driver goes
// without graphs for now, and so without these.

func (g *gpuDriver) canCapture() bool {
	return g.feat.graphs && C.qd_has_capture(g.api) != 0
}

func (g *gpuDriver) beginCapture(s uintptr) error {
	return g.check(C.QD_CALL_StreamBeginCapture, C.qd_capture_begin(g.api, g.ctx, C.uintptr_t(s)))
}

func (g *gpuDriver) endCapture(s uintptr) (uintptr, error) {
	var gr C.uintptr_t
	r := C.qd_capture_end(g.api, g.ctx, C.uintptr_t(s), &gr)
	return uintptr(gr), g.check(C.QD_CALL_StreamEndCapture, r)
}

func (g *gpuDriver) addChildNode(gr uintptr, deps []uintptr, child uintptr) (uintptr, error) {
	var node C.uintptr_t
	r := C.qd_graph_add_child(g.api, g.ctx, &node, C.uintptr_t(gr), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(deps))), C.int(len(deps)), C.uintptr_t(child))
	return uintptr(node), g.check(C.QD_CALL_GraphAddChildGraphNode, r)
}

func (g *gpuDriver) setChildNode(exec, node, child uintptr) error {
	r := C.qd_graph_set_child(g.api, g.ctx, C.uintptr_t(exec), C.uintptr_t(node), C.uintptr_t(child))
	return g.check(C.QD_CALL_GraphExecChildGraphNodeSetParams, r)
}
