// The CUDA driver functions qd calls, declared here and resolved with
// dlsym, so that no CUDA header or library is needed to build. Several Go
// files include this header; the table of functions is defined once, in
// cuda_shim.c, and the helpers are static inline in each.
#ifndef QD_CUDA_SHIM_H
#define QD_CUDA_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUlinkState_st *CUlinkState;

// CUDA_KERNEL_NODE_PARAMS_v2. The older entry points read only the fields
// before kern, which are those of v1.
typedef struct {
	CUfunction func;
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
	void *kern;
	CUcontext ctx;
} qd_kernel_node_params;

// CUDA_MEMCPY3D.
typedef struct {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	int srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	void *srcArray, *reserved0;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	void *dstArray, *reserved1;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} qd_memcpy3d;

// CUDA_MEMSET_NODE_PARAMS.
typedef struct {
	CUdeviceptr dst;
	size_t pitch;
	unsigned int value, elementSize;
	size_t width, height;
} qd_memset_params;

// CUmemPoolProps: the fields qd sets, then reserved bytes that must be 0.
typedef struct {
	int allocType, handleTypes;
	int locationType, locationId;
	void *win32SecurityAttributes;
	unsigned char reserved[64];
} qd_mem_pool_props;

enum {
	QD_ATTR_MAX_THREADS_PER_BLOCK = 1,
	QD_ATTR_WARP_SIZE = 10,
	QD_ATTR_MULTIPROCESSOR_COUNT = 16,
	QD_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	QD_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
	QD_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
	QD_ATTR_MEMORY_POOLS_SUPPORTED = 115,
};

struct qd_cu_table {
	CUresult (*Init)(unsigned int);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxGetCurrent)(CUcontext *);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned int, int *, void **);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
		unsigned, CUstream, void **, void **);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*StreamCreateWithPriority)(CUstream *, unsigned int, int);
	CUresult (*StreamDestroy)(CUstream);
	CUresult (*StreamQuery)(CUstream);
	CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned int);
	CUresult (*EventCreate)(CUevent *, unsigned int);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventQuery)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
	CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
	CUresult (*MemAllocHost)(void **, size_t);
	CUresult (*MemFreeHost)(void *);
	CUresult (*CtxGetStreamPriorityRange)(int *, int *);
	CUresult (*MemHostAlloc)(void **, size_t, unsigned int);
	CUresult (*MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned int);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);

	// Optional: NULL where the driver is too old. Graphs need CUDA 11.4,
	// memory pools 11.2; qd then launches eagerly, allocates with
	// cuMemAlloc and loads PTX without its cache.
	CUresult (*GraphCreate)(CUgraph *, unsigned int);
	CUresult (*GraphDestroy)(CUgraph);
	CUresult (*GraphAddKernelNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, const qd_kernel_node_params *);
	CUresult (*GraphAddEmptyNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t);
	CUresult (*GraphAddMemcpyNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, const qd_memcpy3d *, CUcontext);
	CUresult (*GraphAddMemsetNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, const qd_memset_params *, CUcontext);
	CUresult (*GraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
	CUresult (*GraphExecDestroy)(CUgraphExec);
	CUresult (*GraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode, const qd_kernel_node_params *);
	CUresult (*GraphExecMemcpyNodeSetParams)(CUgraphExec, CUgraphNode, const qd_memcpy3d *, CUcontext);
	CUresult (*GraphExecMemsetNodeSetParams)(CUgraphExec, CUgraphNode, const qd_memset_params *, CUcontext);
	CUresult (*GraphLaunch)(CUgraphExec, CUstream);
	CUresult (*MemPoolCreate)(CUmemoryPool *, const qd_mem_pool_props *);
	CUresult (*MemPoolDestroy)(CUmemoryPool);
	CUresult (*MemPoolSetAttribute)(CUmemoryPool, int, void *);
	CUresult (*MemAllocFromPoolAsync)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
	CUresult (*MemFreeAsync)(CUdeviceptr, CUstream);
	CUresult (*LinkCreate)(unsigned int, int *, void **, CUlinkState *);
	CUresult (*LinkAddData)(CUlinkState, int, void *, size_t, const char *, unsigned int, int *, void **);
	CUresult (*LinkComplete)(CUlinkState, void **, size_t *);
	CUresult (*LinkDestroy)(CUlinkState);
};

extern struct qd_cu_table qd_cu;
extern void *qd_cu_lib;

// qd_cu_load opens libcuda and resolves every function; on failure it
// sets *msg and returns non-zero. A missing optional function is only left
// NULL.
static inline int qd_cu_load(char **msg) {
	qd_cu_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!qd_cu_lib) {
		*msg = dlerror();
		return 1;
	}
#define QD_SYM(field, name)                                  \
	*(void **)(&qd_cu.field) = dlsym(qd_cu_lib, name);   \
	if (!qd_cu.field) {                                  \
		*msg = "missing symbol " name;               \
		return 1;                                    \
	}
	QD_SYM(Init, "cuInit");
	QD_SYM(DeviceGetCount, "cuDeviceGetCount");
	QD_SYM(DeviceGet, "cuDeviceGet");
	QD_SYM(DeviceGetName, "cuDeviceGetName");
	QD_SYM(DeviceGetAttribute, "cuDeviceGetAttribute");
	QD_SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	QD_SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	QD_SYM(CtxSetCurrent, "cuCtxSetCurrent");
	QD_SYM(CtxGetCurrent, "cuCtxGetCurrent");
	QD_SYM(CtxSynchronize, "cuCtxSynchronize");
	QD_SYM(MemAlloc, "cuMemAlloc_v2");
	QD_SYM(MemFree, "cuMemFree_v2");
	QD_SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
	QD_SYM(MemcpyDtoH, "cuMemcpyDtoH_v2");
	QD_SYM(ModuleLoadDataEx, "cuModuleLoadDataEx");
	QD_SYM(ModuleUnload, "cuModuleUnload");
	QD_SYM(ModuleGetFunction, "cuModuleGetFunction");
	QD_SYM(LaunchKernel, "cuLaunchKernel");
	QD_SYM(StreamSynchronize, "cuStreamSynchronize");
	QD_SYM(GetErrorName, "cuGetErrorName");
	QD_SYM(StreamCreateWithPriority, "cuStreamCreateWithPriority");
	QD_SYM(StreamDestroy, "cuStreamDestroy_v2");
	QD_SYM(StreamQuery, "cuStreamQuery");
	QD_SYM(StreamWaitEvent, "cuStreamWaitEvent");
	QD_SYM(EventCreate, "cuEventCreate");
	QD_SYM(EventDestroy, "cuEventDestroy_v2");
	QD_SYM(EventRecord, "cuEventRecord");
	QD_SYM(EventSynchronize, "cuEventSynchronize");
	QD_SYM(EventQuery, "cuEventQuery");
	QD_SYM(EventElapsedTime, "cuEventElapsedTime");
	QD_SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
	QD_SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
	QD_SYM(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
	QD_SYM(MemsetD8Async, "cuMemsetD8Async");
	QD_SYM(MemAllocHost, "cuMemAllocHost_v2");
	QD_SYM(MemFreeHost, "cuMemFreeHost");
	QD_SYM(CtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange");
	QD_SYM(MemHostAlloc, "cuMemHostAlloc");
	QD_SYM(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
	QD_SYM(DriverGetVersion, "cuDriverGetVersion");
	QD_SYM(ModuleLoadData, "cuModuleLoadData");
#undef QD_SYM
#define QD_OPT(field, name) \
	if (!qd_cu.field) *(void **)(&qd_cu.field) = dlsym(qd_cu_lib, name);
	QD_OPT(GraphCreate, "cuGraphCreate");
	QD_OPT(GraphDestroy, "cuGraphDestroy");
	QD_OPT(GraphAddKernelNode, "cuGraphAddKernelNode_v2");
	QD_OPT(GraphAddKernelNode, "cuGraphAddKernelNode");
	QD_OPT(GraphAddEmptyNode, "cuGraphAddEmptyNode");
	QD_OPT(GraphAddMemcpyNode, "cuGraphAddMemcpyNode");
	QD_OPT(GraphAddMemsetNode, "cuGraphAddMemsetNode");
	QD_OPT(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
	QD_OPT(GraphExecDestroy, "cuGraphExecDestroy");
	QD_OPT(GraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2");
	QD_OPT(GraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams");
	QD_OPT(GraphExecMemcpyNodeSetParams, "cuGraphExecMemcpyNodeSetParams");
	QD_OPT(GraphExecMemsetNodeSetParams, "cuGraphExecMemsetNodeSetParams");
	QD_OPT(GraphLaunch, "cuGraphLaunch");
	QD_OPT(MemPoolCreate, "cuMemPoolCreate");
	QD_OPT(MemPoolDestroy, "cuMemPoolDestroy");
	QD_OPT(MemPoolSetAttribute, "cuMemPoolSetAttribute");
	QD_OPT(MemAllocFromPoolAsync, "cuMemAllocFromPoolAsync");
	QD_OPT(MemFreeAsync, "cuMemFreeAsync");
	QD_OPT(LinkCreate, "cuLinkCreate_v2");
	QD_OPT(LinkAddData, "cuLinkAddData_v2");
	QD_OPT(LinkComplete, "cuLinkComplete");
	QD_OPT(LinkDestroy, "cuLinkDestroy");
#undef QD_OPT
	return 0;
}

// The optional features, each usable only when all its functions loaded.
static inline int qd_cu_has_graphs(void) {
	return qd_cu.GraphCreate && qd_cu.GraphDestroy && qd_cu.GraphAddKernelNode && qd_cu.GraphAddEmptyNode &&
		qd_cu.GraphAddMemcpyNode && qd_cu.GraphAddMemsetNode && qd_cu.GraphInstantiateWithFlags &&
		qd_cu.GraphExecDestroy && qd_cu.GraphExecKernelNodeSetParams && qd_cu.GraphExecMemcpyNodeSetParams &&
		qd_cu.GraphExecMemsetNodeSetParams && qd_cu.GraphLaunch;
}

static inline int qd_cu_has_pools(void) {
	return qd_cu.MemPoolCreate && qd_cu.MemPoolDestroy && qd_cu.MemPoolSetAttribute &&
		qd_cu.MemAllocFromPoolAsync && qd_cu.MemFreeAsync;
}

static inline int qd_cu_has_linker(void) {
	return qd_cu.LinkCreate && qd_cu.LinkAddData && qd_cu.LinkComplete && qd_cu.LinkDestroy;
}

static inline CUresult qd_cu_init(void) { return qd_cu.Init(0); }

static inline const char *qd_cu_error_name(CUresult r) {
	const char *name = NULL;
	if (qd_cu.GetErrorName == NULL || qd_cu.GetErrorName(r, &name) != 0 || name == NULL) {
		return "CUDA_ERROR_UNKNOWN";
	}
	return name;
}

// qd_cu_use makes ctx current on the calling thread. Go moves goroutines
// between threads, so every call that needs a context sets it first.
static inline CUresult qd_cu_use(CUcontext ctx) {
	CUcontext cur = NULL;
	CUresult r = qd_cu.CtxGetCurrent(&cur);
	if (r != 0 || cur == ctx) {
		return r;
	}
	return qd_cu.CtxSetCurrent(ctx);
}

static inline CUresult qd_cu_device_count(int *n) { return qd_cu.DeviceGetCount(n); }

static inline CUresult qd_cu_device_open(int index, CUdevice *dev, CUcontext *ctx, char *name, int len) {
	CUresult r = qd_cu.DeviceGet(dev, index);
	if (r == 0) r = qd_cu.DeviceGetName(name, len, *dev);
	if (r == 0) r = qd_cu.DevicePrimaryCtxRetain(ctx, *dev);
	return r;
}

static inline CUresult qd_cu_device_close(CUdevice dev) { return qd_cu.DevicePrimaryCtxRelease(dev); }

static inline CUresult qd_cu_attribute(CUdevice dev, int attr, int *v) {
	return qd_cu.DeviceGetAttribute(v, attr, dev);
}

static inline CUresult qd_cu_alloc(CUcontext ctx, CUdeviceptr *p, size_t n) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemAlloc(p, n);
}

static inline CUresult qd_cu_free(CUcontext ctx, CUdeviceptr p) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemFree(p);
}

static inline CUresult qd_cu_copy_to_device(CUcontext ctx, CUdeviceptr dst, const void *src, size_t n) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyHtoD(dst, src, n);
}

static inline CUresult qd_cu_copy_to_host(CUcontext ctx, void *dst, CUdeviceptr src, size_t n) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyDtoH(dst, src, n);
}

enum { QD_JIT_ERROR_LOG_BUFFER = 5, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

static inline CUresult qd_cu_module_load(CUcontext ctx, uintptr_t *out, const char *image, char *log, int logSize) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUmodule mod = NULL;
	int options[2] = {QD_JIT_ERROR_LOG_BUFFER, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *values[2] = {log, (void *)(size_t)logSize};
	log[0] = 0;
	r = qd_cu.ModuleLoadDataEx(&mod, image, 2, options, values);
	*out = (uintptr_t)mod;
	return r;
}

static inline CUresult qd_cu_module_unload(CUcontext ctx, uintptr_t mod) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.ModuleUnload((CUmodule)mod);
}

static inline CUresult qd_cu_function(CUcontext ctx, uintptr_t *out, uintptr_t mod, const char *name) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUfunction fn = NULL;
	r = qd_cu.ModuleGetFunction(&fn, (CUmodule)mod, name);
	*out = (uintptr_t)fn;
	return r;
}

// qd_cu_launch launches fn with its arguments packed in one buffer, which
// the driver copies before returning.
static inline CUresult qd_cu_launch(CUcontext ctx, uintptr_t fn, unsigned grid, unsigned block, uintptr_t stream,
		void *args, size_t size) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	void *extra[] = {(void *)1 /* CU_LAUNCH_PARAM_BUFFER_POINTER */, args,
		(void *)2 /* CU_LAUNCH_PARAM_BUFFER_SIZE */, &size, (void *)0 /* CU_LAUNCH_PARAM_END */};
	return qd_cu.LaunchKernel((CUfunction)fn, grid, 1, 1, block, 1, 1, 0, (CUstream)stream, NULL, extra);
}

static inline CUresult qd_cu_stream_synchronize(CUcontext ctx, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamSynchronize((CUstream)s);
}

static inline CUresult qd_cu_ctx_synchronize(CUcontext ctx) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.CtxSynchronize();
}

// Streams and events. Handles cross into Go as uintptr_t.

enum { QD_STREAM_NON_BLOCKING = 1, QD_EVENT_DISABLE_TIMING = 2 };

static inline CUresult qd_cu_stream_create(CUcontext ctx, uintptr_t *out, int priority) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUstream s = NULL;
	r = qd_cu.StreamCreateWithPriority(&s, QD_STREAM_NON_BLOCKING, priority);
	*out = (uintptr_t)s;
	return r;
}

static inline CUresult qd_cu_stream_destroy(CUcontext ctx, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamDestroy((CUstream)s);
}

static inline CUresult qd_cu_stream_query(CUcontext ctx, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamQuery((CUstream)s);
}

static inline CUresult qd_cu_stream_wait_event(CUcontext ctx, uintptr_t s, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamWaitEvent((CUstream)s, (CUevent)e, 0);
}

static inline CUresult qd_cu_event_create(CUcontext ctx, uintptr_t *out, int timing) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUevent e = NULL;
	r = qd_cu.EventCreate(&e, timing ? 0 : QD_EVENT_DISABLE_TIMING);
	*out = (uintptr_t)e;
	return r;
}

static inline CUresult qd_cu_event_destroy(CUcontext ctx, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventDestroy((CUevent)e);
}

static inline CUresult qd_cu_event_record(CUcontext ctx, uintptr_t e, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventRecord((CUevent)e, (CUstream)s);
}

static inline CUresult qd_cu_event_synchronize(CUcontext ctx, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventSynchronize((CUevent)e);
}

static inline CUresult qd_cu_event_query(CUcontext ctx, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventQuery((CUevent)e);
}

static inline CUresult qd_cu_event_elapsed(CUcontext ctx, float *ms, uintptr_t start, uintptr_t end) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventElapsedTime(ms, (CUevent)start, (CUevent)end);
}

static inline CUresult qd_cu_copy_to_device_async(CUcontext ctx, CUdeviceptr dst, const void *src, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyHtoDAsync(dst, src, n, (CUstream)s);
}

static inline CUresult qd_cu_copy_to_host_async(CUcontext ctx, void *dst, CUdeviceptr src, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyDtoHAsync(dst, src, n, (CUstream)s);
}

static inline CUresult qd_cu_copy_on_device_async(CUcontext ctx, CUdeviceptr dst, CUdeviceptr src, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyDtoDAsync(dst, src, n, (CUstream)s);
}

static inline CUresult qd_cu_memset_async(CUcontext ctx, CUdeviceptr dst, unsigned char v, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemsetD8Async(dst, v, n, (CUstream)s);
}

// Page-locked host memory is C memory: Go's collector never moves or frees
// it, so asynchronous copies may read and write it after the call returns.
static inline CUresult qd_cu_alloc_host(CUcontext ctx, void **out, size_t n) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	return qd_cu.MemAllocHost(out, n);
}

static inline CUresult qd_cu_free_host(CUcontext ctx, void *p) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemFreeHost(p);
}

// qd_cu_alloc_mapped allocates page-locked host memory mapped into the
// device's address space, and gives its device address.
enum { QD_MEMHOSTALLOC_PORTABLE = 1, QD_MEMHOSTALLOC_DEVICEMAP = 2 };

static inline CUresult qd_cu_alloc_mapped(CUcontext ctx, void **host, CUdeviceptr *dev, size_t n) {
	CUresult r = qd_cu_use(ctx);
	if (r == 0) r = qd_cu.MemHostAlloc(host, n, QD_MEMHOSTALLOC_PORTABLE | QD_MEMHOSTALLOC_DEVICEMAP);
	if (r == 0) {
		r = qd_cu.MemHostGetDevicePointer(dev, *host, 0);
		if (r) qd_cu.MemFreeHost(*host);
	}
	return r;
}

static inline CUresult qd_cu_priority_range(CUcontext ctx, int *least, int *greatest) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.CtxGetStreamPriorityRange(least, greatest);
}

// qd_cu_fork makes each of n streams wait for the point stream from has
// reached, recorded in event ev.
static inline CUresult qd_cu_fork(CUcontext ctx, uintptr_t ev, uintptr_t from, const uintptr_t *streams, int n) {
	CUresult r = qd_cu_use(ctx);
	if (r == 0) r = qd_cu.EventRecord((CUevent)ev, (CUstream)from);
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.StreamWaitEvent((CUstream)streams[i], (CUevent)ev, 0);
	}
	return r;
}

// qd_cu_join makes stream into wait for the points each of n streams has
// reached, recorded in the events.
static inline CUresult qd_cu_join(CUcontext ctx, const uintptr_t *events, const uintptr_t *streams, int n, uintptr_t into) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.EventRecord((CUevent)events[i], (CUstream)streams[i]);
		if (r == 0) r = qd_cu.StreamWaitEvent((CUstream)into, (CUevent)events[i], 0);
	}
	return r;
}

// Loops of driver calls made from C, for benchmarks that compare the cost
// of calling the driver from Go with calling it from C in the same process.
static inline CUresult qd_cu_bench_record_wait(CUcontext ctx, uintptr_t ev, uintptr_t s1, uintptr_t s2, int n) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.EventRecord((CUevent)ev, (CUstream)s1);
		if (r == 0) r = qd_cu.StreamWaitEvent((CUstream)s2, (CUevent)ev, 0);
	}
	return r;
}

static inline CUresult qd_cu_bench_stream_create_destroy(CUcontext ctx, int n) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		CUstream s;
		r = qd_cu.StreamCreateWithPriority(&s, QD_STREAM_NON_BLOCKING, 0);
		if (r == 0) r = qd_cu.StreamDestroy(s);
	}
	return r;
}

static inline CUresult qd_cu_bench_launch(CUcontext ctx, uintptr_t fn, uintptr_t stream, void *args, size_t size, int n) {
	CUresult r = qd_cu_use(ctx);
	void *extra[] = {(void *)1, args, (void *)2, &size, (void *)0};
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.LaunchKernel((CUfunction)fn, 1, 1, 1, 256, 1, 1, 0, (CUstream)stream, NULL, extra);
	}
	return r;
}

static inline CUresult qd_cu_bench_noop(void) { return 0; }

static inline CUresult qd_cu_bench_use(CUcontext ctx, int n) {
	CUresult r = 0;
	for (int i = 0; r == 0 && i < n; i++) r = qd_cu_use(ctx);
	return r;
}

static inline CUresult qd_cu_bench_record(CUcontext ctx, uintptr_t ev, uintptr_t s1, int n) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) r = qd_cu.EventRecord((CUevent)ev, (CUstream)s1);
	return r;
}
// Graphs. A kernel node takes the kernel's arguments packed in one buffer,
// which the driver copies when the node is added or updated.

enum { QD_LAUNCH_PARAM_BUFFER_POINTER = 1, QD_LAUNCH_PARAM_BUFFER_SIZE = 2 };
enum { QD_MEMORYTYPE_HOST = 1, QD_MEMORYTYPE_DEVICE = 2 };

// qd_graph_node describes one node for qd_cu_graph_add_node and
// qd_cu_graph_set_node: kind 0 is empty, 1 a kernel, 2 a copy, 3 a memset.
typedef struct {
	int kind;
	uintptr_t fn;
	unsigned grid, block;
	void *args;
	size_t argSize;
	// Copies: the memory type (host or device) and address of each side.
	int dstType, srcType;
	uintptr_t dst, src;
	size_t bytes;
	unsigned value;
} qd_graph_node;

static inline void qd_cu_kernel_params(qd_kernel_node_params *p, const qd_graph_node *n, void **extra, size_t *size) {
	memset(p, 0, sizeof *p);
	p->func = (CUfunction)n->fn;
	p->gridDimX = n->grid;
	p->gridDimY = p->gridDimZ = 1;
	p->blockDimX = n->block;
	p->blockDimY = p->blockDimZ = 1;
	*size = n->argSize;
	extra[0] = (void *)QD_LAUNCH_PARAM_BUFFER_POINTER;
	extra[1] = n->args;
	extra[2] = (void *)QD_LAUNCH_PARAM_BUFFER_SIZE;
	extra[3] = size;
	extra[4] = NULL;
	if (n->argSize > 0) p->extra = extra;
}

static inline void qd_cu_copy_params(qd_memcpy3d *p, const qd_graph_node *n) {
	memset(p, 0, sizeof *p);
	p->srcMemoryType = n->srcType;
	p->dstMemoryType = n->dstType;
	if (n->srcType == QD_MEMORYTYPE_HOST) p->srcHost = (const void *)n->src;
	else p->srcDevice = (CUdeviceptr)n->src;
	if (n->dstType == QD_MEMORYTYPE_HOST) p->dstHost = (void *)n->dst;
	else p->dstDevice = (CUdeviceptr)n->dst;
	p->srcPitch = p->dstPitch = p->WidthInBytes = n->bytes;
	p->srcHeight = p->dstHeight = p->Height = p->Depth = 1;
}

static inline void qd_cu_memset_params(qd_memset_params *p, const qd_graph_node *n) {
	memset(p, 0, sizeof *p);
	p->dst = (CUdeviceptr)n->dst;
	p->value = n->value;
	p->elementSize = 1;
	p->pitch = p->width = n->bytes;
	p->height = 1;
}

static inline CUresult qd_cu_graph_create(CUcontext ctx, uintptr_t *out) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUgraph g = NULL;
	r = qd_cu.GraphCreate(&g, 0);
	*out = (uintptr_t)g;
	return r;
}

static inline CUresult qd_cu_graph_destroy(CUcontext ctx, uintptr_t g) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.GraphDestroy((CUgraph)g);
}

// qd_cu_graph_add_node adds node n, whose kernel arguments are args, after
// the ndeps nodes deps.
static inline CUresult qd_cu_graph_add_node(CUcontext ctx, uintptr_t *out, uintptr_t g, const uintptr_t *deps, int ndeps, const qd_graph_node *desc, void *args) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	qd_graph_node node_desc = *desc, *n = &node_desc;
	n->args = args;
	CUgraphNode node = NULL;
	const CUgraphNode *d = (const CUgraphNode *)deps;
	switch (n->kind) {
	case 1: {
		qd_kernel_node_params p;
		void *extra[5];
		size_t size;
		qd_cu_kernel_params(&p, n, extra, &size);
		r = qd_cu.GraphAddKernelNode(&node, (CUgraph)g, d, ndeps, &p);
		break;
	}
	case 2: {
		qd_memcpy3d p;
		qd_cu_copy_params(&p, n);
		r = qd_cu.GraphAddMemcpyNode(&node, (CUgraph)g, d, ndeps, &p, ctx);
		break;
	}
	case 3: {
		qd_memset_params p;
		qd_cu_memset_params(&p, n);
		r = qd_cu.GraphAddMemsetNode(&node, (CUgraph)g, d, ndeps, &p, ctx);
		break;
	}
	default:
		r = qd_cu.GraphAddEmptyNode(&node, (CUgraph)g, d, ndeps);
	}
	*out = (uintptr_t)node;
	return r;
}

static inline CUresult qd_cu_graph_instantiate(CUcontext ctx, uintptr_t *out, uintptr_t g) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUgraphExec e = NULL;
	r = qd_cu.GraphInstantiateWithFlags(&e, (CUgraph)g, 0);
	*out = (uintptr_t)e;
	return r;
}

static inline CUresult qd_cu_graph_exec_destroy(CUcontext ctx, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.GraphExecDestroy((CUgraphExec)e);
}

// qd_cu_graph_set_node changes the parameters of one node of an
// instantiated graph; later launches use them.
static inline CUresult qd_cu_graph_set_node(CUcontext ctx, uintptr_t exec, uintptr_t node, const qd_graph_node *desc, void *args) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	qd_graph_node node_desc = *desc, *n = &node_desc;
	n->args = args;
	switch (n->kind) {
	case 1: {
		qd_kernel_node_params p;
		void *extra[5];
		size_t size;
		qd_cu_kernel_params(&p, n, extra, &size);
		return qd_cu.GraphExecKernelNodeSetParams((CUgraphExec)exec, (CUgraphNode)node, &p);
	}
	case 2: {
		qd_memcpy3d p;
		qd_cu_copy_params(&p, n);
		return qd_cu.GraphExecMemcpyNodeSetParams((CUgraphExec)exec, (CUgraphNode)node, &p, ctx);
	}
	case 3: {
		qd_memset_params p;
		qd_cu_memset_params(&p, n);
		return qd_cu.GraphExecMemsetNodeSetParams((CUgraphExec)exec, (CUgraphNode)node, &p, ctx);
	}
	}
	return 0;
}

// qd_node_update is a kernel node whose function or grid changes, or that
// gets the launch's new argument buffer.
typedef struct {
	uintptr_t node, fn;
	unsigned grid, block;
} qd_node_update;

// qd_cu_graph_launch updates n kernel nodes of exec, all with the argument
// buffer args, then launches exec on stream: one call into C per launch.
static inline CUresult qd_cu_graph_launch(CUcontext ctx, uintptr_t exec, uintptr_t stream, const qd_node_update *ups, int n,
		void *args, size_t argSize) {
	CUresult r = qd_cu_use(ctx);
	qd_graph_node gn = {.kind = 1, .args = args, .argSize = argSize};
	for (int i = 0; r == 0 && i < n; i++) {
		qd_kernel_node_params p;
		void *extra[5];
		size_t size;
		gn.fn = ups[i].fn;
		gn.grid = ups[i].grid;
		gn.block = ups[i].block;
		qd_cu_kernel_params(&p, &gn, extra, &size);
		r = qd_cu.GraphExecKernelNodeSetParams((CUgraphExec)exec, (CUgraphNode)ups[i].node, &p);
	}
	return r ? r : qd_cu.GraphLaunch((CUgraphExec)exec, (CUstream)stream);
}

// Stream-ordered memory from a pool of qd's own, which never makes an
// allocation wait for GPU work: it reuses memory only once its free has
// happened, and keeps freed memory for reuse instead of returning it to the
// system at every synchronization.

enum {
	QD_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
	QD_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
};

static inline CUresult qd_cu_pool_create(CUcontext ctx, CUdevice dev, uintptr_t *out) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	qd_mem_pool_props props;
	memset(&props, 0, sizeof props);
	props.allocType = 1;    // CU_MEM_ALLOCATION_TYPE_PINNED
	props.locationType = 1; // CU_MEM_LOCATION_TYPE_DEVICE
	props.locationId = dev;
	CUmemoryPool pool = NULL;
	r = qd_cu.MemPoolCreate(&pool, &props);
	int no = 0;
	unsigned long long keep = ~0ULL;
	if (r == 0) r = qd_cu.MemPoolSetAttribute(pool, QD_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &no);
	if (r == 0) r = qd_cu.MemPoolSetAttribute(pool, QD_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
	if (r != 0 && pool != NULL) {
		qd_cu.MemPoolDestroy(pool);
		pool = NULL;
	}
	*out = (uintptr_t)pool;
	return r;
}

static inline CUresult qd_cu_pool_destroy(CUcontext ctx, uintptr_t pool) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemPoolDestroy((CUmemoryPool)pool);
}

// qd_cu_alloc_async allocates from pool on stream s. With wait it then
// waits for s, so that the memory may be used on any stream at once; qd
// passes a stream that carries only allocations, which never wait for GPU
// work, so the wait is short.
static inline CUresult qd_cu_alloc_async(CUcontext ctx, CUdeviceptr *p, size_t n, uintptr_t pool, uintptr_t s, int wait) {
	CUresult r = qd_cu_use(ctx);
	if (r == 0) r = qd_cu.MemAllocFromPoolAsync(p, n, (CUmemoryPool)pool, (CUstream)s);
	return r || !wait ? r : qd_cu.StreamSynchronize((CUstream)s);
}

// qd_cu_free_after frees p on stream into once into has waited for each of
// n streams, recording one event on each.
static inline CUresult qd_cu_free_after(CUcontext ctx, CUdeviceptr p, const uintptr_t *events, const uintptr_t *streams, int n, uintptr_t into) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.EventRecord((CUevent)events[i], (CUstream)streams[i]);
		if (r == 0) r = qd_cu.StreamWaitEvent((CUstream)into, (CUevent)events[i], 0);
	}
	return r ? r : qd_cu.MemFreeAsync(p, (CUstream)into);
}

// The driver's own linker compiles PTX to a cubin, which qd keeps on disk.

enum { QD_JIT_INPUT_PTX = 1 };

// qd_cu_link compiles the PTX image (NUL-terminated) for the current
// context's GPU. On success *cubin and *size hold the cubin inside the
// linker's state *state, which the caller copies and then destroys.
static inline CUresult qd_cu_link(CUcontext ctx, uintptr_t *state, const char *ptx, void **cubin, size_t *size, char *log, int logSize) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUlinkState s = NULL;
	int options[2] = {QD_JIT_ERROR_LOG_BUFFER, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *values[2] = {log, (void *)(size_t)logSize};
	log[0] = 0;
	r = qd_cu.LinkCreate(2, options, values, &s);
	if (r == 0) r = qd_cu.LinkAddData(s, QD_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "qd", 0, NULL, NULL);
	if (r == 0) r = qd_cu.LinkComplete(s, cubin, size);
	*state = (uintptr_t)s;
	return r;
}

static inline CUresult qd_cu_link_destroy(uintptr_t state) { return qd_cu.LinkDestroy((CUlinkState)state); }

static inline CUresult qd_cu_module_load_binary(CUcontext ctx, uintptr_t *out, const void *image) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUmodule mod = NULL;
	r = qd_cu.ModuleLoadData(&mod, image);
	*out = (uintptr_t)mod;
	return r;
}

static inline CUresult qd_cu_driver_version(int *v) { return qd_cu.DriverGetVersion(v); }

#endif
