// Work that other libraries queue on a stream, such as NCCL's collectives,
// enters a graph only by stream capture: the calls are captured on a
// stream into a graph of their own, which a recording adds as a child
// graph node (capture.go).
#ifndef QD_GPU_CAPTURE_H
#define QD_GPU_CAPTURE_H
#include "gpu_shim.h"

// CU_STREAM_CAPTURE_MODE_RELAXED: the captured library may make calls
// that are not allowed while a stream of the process is captured in the
// other modes, such as allocating memory on its first use.
enum { QD_CAPTURE_RELAXED = 2 };

static inline int qd_has_capture(const struct qd_api *api) {
	return qd_has(api, QD_CALL_StreamBeginCapture, QD_CALL_GraphExecChildGraphNodeSetParams);
}

static inline qd_result qd_capture_begin(const struct qd_api *api, uintptr_t ctx, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamBeginCapture)((void *)s, QD_CAPTURE_RELAXED);
}

// qd_capture_end ends the capture on s and sets *graph to the graph of
// the work captured (0 when the capture failed).
static inline qd_result qd_capture_end(const struct qd_api *api, uintptr_t ctx, uintptr_t s, uintptr_t *graph) {
	qd_result r = qd_use(api, ctx);
	void *g = NULL;
	if (r == 0) r = QD(api, StreamEndCapture)((void *)s, &g);
	*graph = (uintptr_t)g;
	return r;
}

// qd_graph_add_child adds to graph g, after the ndeps nodes deps, a node
// that runs a copy of graph child.
static inline qd_result qd_graph_add_child(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, uintptr_t g, const uintptr_t *deps, int ndeps, uintptr_t child) {
	qd_result r = qd_use(api, ctx);
	void *node = NULL;
	if (r == 0) r = QD(api, GraphAddChildGraphNode)(&node, (void *)g, (void *const *)deps, ndeps, (void *)child);
	*out = (uintptr_t)node;
	return r;
}

// qd_graph_set_child makes child node of executable graph exec run graph
// child, which must have the same nodes and edges as the node's graph.
static inline qd_result qd_graph_set_child(const struct qd_api *api, uintptr_t ctx, uintptr_t exec, uintptr_t node, uintptr_t child) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, GraphExecChildGraphNodeSetParams)((void *)exec, (void *)node, (void *)child);
}

#endif
