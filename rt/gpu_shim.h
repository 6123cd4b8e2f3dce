// The driver functions qd calls, for CUDA (libcuda) and HIP (libamdhip64).
// The two APIs take the same arguments for all but a few calls, so one
// table of function pointers holds either API's functions, resolved with
// dlsym, and one set of wrappers below serves both. qd declares what it
// calls itself: no CUDA or HIP header or library is needed to build.
// Several Go files include this header: everything in it is static.
#ifndef QD_GPU_SHIM_H
#define QD_GPU_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int qd_result;

// CUDA_KERNEL_NODE_PARAMS_v2. The older entry points read only the fields
// before kern, which are those of v1.
typedef struct {
	void *func;
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
	void *kern;
	void *ctx;
} qd_kernel_node_params;

// CUDA_MEMCPY3D.
typedef struct {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	int srcMemoryType;
	const void *srcHost;
	uintptr_t srcDevice;
	void *srcArray, *reserved0;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	int dstMemoryType;
	void *dstHost;
	uintptr_t dstDevice;
	void *dstArray, *reserved1;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} qd_memcpy3d;

// CUDA_MEMSET_NODE_PARAMS.
typedef struct {
	uintptr_t dst;
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

// CUmemAccessDesc: a device (location type 1) and its access to a pool.
typedef struct {
	int locationType, locationId;
	int flags;
} qd_mem_access_desc;

// QD_CALLS lists every call: its name in the table, its CUDA and its HIP
// symbol (NULL where one API has no such call), its result and its
// parameters. The parameters are written in types both APIs pass the same
// way: handles (contexts, modules, functions, streams, events) as void *,
// device addresses as uintptr_t, devices as int.
#define QD_CALLS(X)                                                                                          \
	X(Init, "cuInit", "hipInit", qd_result, (unsigned))                                                  \
	X(DeviceGetCount, "cuDeviceGetCount", "hipGetDeviceCount", qd_result, (int *))                       \
	X(DeviceGet, "cuDeviceGet", "hipDeviceGet", qd_result, (int *, int))                                 \
	X(DeviceGetName, "cuDeviceGetName", "hipDeviceGetName", qd_result, (char *, int, int))               \
	X(DeviceGetAttribute, "cuDeviceGetAttribute", "hipDeviceGetAttribute", qd_result, (int *, int, int)) \
	X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, qd_result, (void **, int))               \
	X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", NULL, qd_result, (int))                   \
	X(CtxSetCurrent, "cuCtxSetCurrent", NULL, qd_result, (void *))                                       \
	X(CtxGetCurrent, "cuCtxGetCurrent", NULL, qd_result, (void **))                                      \
	X(SetDevice, NULL, "hipSetDevice", qd_result, (int))                                                 \
	X(GetDevice, NULL, "hipGetDevice", qd_result, (int *))                                               \
	X(Synchronize, "cuCtxSynchronize", "hipDeviceSynchronize", qd_result, (void))                        \
	X(DriverVersion, "cuDriverGetVersion", "hipRuntimeGetVersion", qd_result, (int *))                   \
	X(MemAlloc, "cuMemAlloc_v2", "hipMalloc", qd_result, (uintptr_t *, size_t))                          \
	X(MemFree, "cuMemFree_v2", "hipFree", qd_result, (uintptr_t))                                        \
	X(MemcpyHtoD, "cuMemcpyHtoD_v2", "hipMemcpyHtoD", qd_result, (uintptr_t, const void *, size_t))      \
	X(MemcpyDtoH, "cuMemcpyDtoH_v2", "hipMemcpyDtoH", qd_result, (void *, uintptr_t, size_t))            \
	X(ModuleLoadDataEx, "cuModuleLoadDataEx", "hipModuleLoadDataEx", qd_result,                          \
		(void **, const void *, unsigned, int *, void **))                                           \
	X(ModuleUnload, "cuModuleUnload", "hipModuleUnload", qd_result, (void *))                            \
	X(ModuleGetFunction, "cuModuleGetFunction", "hipModuleGetFunction", qd_result,                       \
		(void **, void *, const char *))                                                             \
	X(LaunchKernel, "cuLaunchKernel", "hipModuleLaunchKernel", qd_result,                                \
		(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,       \
			void **, void **))                                                                   \
	X(StreamSynchronize, "cuStreamSynchronize", "hipStreamSynchronize", qd_result, (void *))             \
	X(GetErrorNameCUDA, "cuGetErrorName", NULL, qd_result, (qd_result, const char **))                   \
	X(GetErrorNameHIP, NULL, "hipGetErrorName", const char *, (qd_result))                               \
	X(StreamCreateWithPriority, "cuStreamCreateWithPriority", "hipStreamCreateWithPriority", qd_result,  \
		(void **, unsigned, int))                                                                    \
	X(StreamCreate, "cuStreamCreate", NULL, qd_result, (void **, unsigned))                              \
	X(StreamDestroy, "cuStreamDestroy_v2", "hipStreamDestroy", qd_result, (void *))                      \
	X(StreamQuery, "cuStreamQuery", "hipStreamQuery", qd_result, (void *))                               \
	X(StreamWaitEvent, "cuStreamWaitEvent", "hipStreamWaitEvent", qd_result, (void *, void *, unsigned)) \
	X(EventCreate, "cuEventCreate", "hipEventCreateWithFlags", qd_result, (void **, unsigned))           \
	X(EventDestroy, "cuEventDestroy_v2", "hipEventDestroy", qd_result, (void *))                         \
	X(EventRecord, "cuEventRecord", "hipEventRecord", qd_result, (void *, void *))                       \
	X(EventSynchronize, "cuEventSynchronize", "hipEventSynchronize", qd_result, (void *))                \
	X(EventQuery, "cuEventQuery", "hipEventQuery", qd_result, (void *))                                  \
	X(EventElapsedTime, "cuEventElapsedTime", "hipEventElapsedTime", qd_result, (float *, void *, void *)) \
	X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", "hipMemcpyHtoDAsync", qd_result,                          \
		(uintptr_t, const void *, size_t, void *))                                                   \
	X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", "hipMemcpyDtoHAsync", qd_result,                          \
		(void *, uintptr_t, size_t, void *))                                                         \
	X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", "hipMemcpyDtoDAsync", qd_result,                          \
		(uintptr_t, uintptr_t, size_t, void *))                                                      \
	X(MemsetD8Async, "cuMemsetD8Async", "hipMemsetD8Async", qd_result,                                   \
		(uintptr_t, unsigned char, size_t, void *))                                                  \
	X(MemAllocHost, "cuMemAllocHost_v2", NULL, qd_result, (void **, size_t))                             \
	X(MemHostAlloc, "cuMemHostAlloc", "hipHostMalloc", qd_result, (void **, size_t, unsigned))           \
	X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", "hipHostGetDevicePointer", qd_result,     \
		(uintptr_t *, void *, unsigned))                                                             \
	X(MemFreeHost, "cuMemFreeHost", "hipHostFree", qd_result, (void *))                                  \
	X(StreamPriorityRange, "cuCtxGetStreamPriorityRange", "hipDeviceGetStreamPriorityRange", qd_result,  \
		(int *, int *))                                                                              \
	X(ModuleLoadData, "cuModuleLoadData", "hipModuleLoadData", qd_result, (void **, const void *))

// QD_OPTIONAL_CALLS lists the calls a driver may lack: CUDA's graphs need
// CUDA 11.4, its memory pools 11.2; qd then launches eagerly, allocates
// with cuMemAlloc and loads PTX without its cache. Each has a CUDA symbol,
// an older CUDA symbol to fall back on, and a HIP symbol: HIP's graphs and
// memory pools take structures of other layouts, so the HIP driver goes
// without them for now, and it compiles source itself instead of linking
// PTX.
#define QD_OPTIONAL_CALLS(X)                                                                                   \
	X(GraphCreate, "cuGraphCreate", NULL, NULL, qd_result, (void **, unsigned))                            \
	X(GraphDestroy, "cuGraphDestroy", NULL, NULL, qd_result, (void *))                                     \
	X(GraphAddKernelNode, "cuGraphAddKernelNode_v2", "cuGraphAddKernelNode", NULL, qd_result,              \
		(void **, void *, void *const *, size_t, const qd_kernel_node_params *))                       \
	X(GraphAddEmptyNode, "cuGraphAddEmptyNode", NULL, NULL, qd_result, (void **, void *, void *const *, size_t)) \
	X(GraphAddMemcpyNode, "cuGraphAddMemcpyNode", NULL, NULL, qd_result,                                   \
		(void **, void *, void *const *, size_t, const qd_memcpy3d *, void *))                         \
	X(GraphAddMemsetNode, "cuGraphAddMemsetNode", NULL, NULL, qd_result,                                   \
		(void **, void *, void *const *, size_t, const qd_memset_params *, void *))                    \
	X(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", NULL, NULL, qd_result,                     \
		(void **, void *, unsigned long long))                                                         \
	X(GraphExecDestroy, "cuGraphExecDestroy", NULL, NULL, qd_result, (void *))                             \
	X(GraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2", "cuGraphExecKernelNodeSetParams", \
		NULL, qd_result, (void *, void *, const qd_kernel_node_params *))                              \
	X(GraphExecMemcpyNodeSetParams, "cuGraphExecMemcpyNodeSetParams", NULL, NULL, qd_result,               \
		(void *, void *, const qd_memcpy3d *, void *))                                                 \
	X(GraphExecMemsetNodeSetParams, "cuGraphExecMemsetNodeSetParams", NULL, NULL, qd_result,               \
		(void *, void *, const qd_memset_params *, void *))                                            \
	X(GraphLaunch, "cuGraphLaunch", NULL, NULL, qd_result, (void *, void *))                               \
	X(MemPoolCreate, "cuMemPoolCreate", NULL, NULL, qd_result, (void **, const qd_mem_pool_props *))       \
	X(MemPoolDestroy, "cuMemPoolDestroy", NULL, NULL, qd_result, (void *))                                 \
	X(MemPoolSetAttribute, "cuMemPoolSetAttribute", NULL, NULL, qd_result, (void *, int, void *))          \
	X(MemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", NULL, NULL, qd_result,                             \
		(uintptr_t *, size_t, void *, void *))                                                         \
	X(MemFreeAsync, "cuMemFreeAsync", NULL, NULL, qd_result, (uintptr_t, void *))                          \
	X(LinkCreate, "cuLinkCreate_v2", NULL, NULL, qd_result, (unsigned, int *, void **, void **))           \
	X(LinkAddData, "cuLinkAddData_v2", NULL, NULL, qd_result,                                              \
		(void *, int, void *, size_t, const char *, unsigned, int *, void **))                         \
	X(LinkComplete, "cuLinkComplete", NULL, NULL, qd_result, (void *, void **, size_t *))                  \
	X(LinkDestroy, "cuLinkDestroy", NULL, NULL, qd_result, (void *))                                       \
	X(MemAllocAsync, "cuMemAllocAsync", NULL, NULL, qd_result, (uintptr_t *, size_t, void *)) /* benchmarks */ \
	X(OccupancyMaxActiveBlocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL,                        \
		"hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", qd_result, (int *, void *, int, size_t))  \
	X(DeviceCanAccessPeer, "cuDeviceCanAccessPeer", NULL, "hipDeviceCanAccessPeer", qd_result, (int *, int, int)) \
	X(CtxEnablePeerAccess, "cuCtxEnablePeerAccess", NULL, "hipDeviceEnablePeerAccess", qd_result, (void *, unsigned)) \
	X(MemcpyPeerAsync, "cuMemcpyPeerAsync", NULL, "hipMemcpyPeerAsync", qd_result,                         \
		(uintptr_t, void *, uintptr_t, void *, size_t, void *))                                        \
	X(MemPoolSetAccess, "cuMemPoolSetAccess", NULL, NULL, qd_result, (void *, const qd_mem_access_desc *, size_t)) \
	X(StreamBeginCapture, "cuStreamBeginCapture_v2", NULL, NULL, qd_result, (void *, int))                \
	X(StreamEndCapture, "cuStreamEndCapture", NULL, NULL, qd_result, (void *, void **))                    \
	X(GraphAddChildGraphNode, "cuGraphAddChildGraphNode", NULL, NULL, qd_result,                           \
		(void **, void *, void *const *, size_t, void *))                                              \
	X(GraphExecChildGraphNodeSetParams, "cuGraphExecChildGraphNodeSetParams", NULL, NULL, qd_result,       \
		(void *, void *, void *))

#define QD_CALL_INDEX(field, cuda, hip, result, params) QD_CALL_##field,
#define QD_OPTIONAL_INDEX(field, cuda, older, hip, result, params) QD_CALL_##field,
// The optional calls' indexes follow the required ones'.
enum { QD_CALLS(QD_CALL_INDEX) QD_NUM_REQUIRED, QD_LAST_REQUIRED = QD_NUM_REQUIRED - 1, QD_OPTIONAL_CALLS(QD_OPTIONAL_INDEX) QD_NUM_CALLS };
#undef QD_CALL_INDEX
#undef QD_OPTIONAL_INDEX

#define QD_CALL_TYPE(field, cuda, hip, result, params) typedef result(*qd_##field##_fn) params;
#define QD_OPTIONAL_TYPE(field, cuda, older, hip, result, params) typedef result(*qd_##field##_fn) params;
QD_CALLS(QD_CALL_TYPE)
QD_OPTIONAL_CALLS(QD_OPTIONAL_TYPE)
#undef QD_CALL_TYPE
#undef QD_OPTIONAL_TYPE

// qd_call_names holds each call's CUDA and HIP symbol, and for optional
// calls the older CUDA symbol to try when the first is missing.
static const char *const qd_call_names[3][QD_NUM_CALLS] = {
#define QD_CALL_CUDA(field, cuda, hip, result, params) cuda,
#define QD_CALL_HIP(field, cuda, hip, result, params) hip,
#define QD_CALL_NONE(field, cuda, hip, result, params) NULL,
#define QD_OPTIONAL_CUDA(field, cuda, older, hip, result, params) cuda,
#define QD_OPTIONAL_HIP(field, cuda, older, hip, result, params) hip,
#define QD_OPTIONAL_OLDER(field, cuda, older, hip, result, params) older,
	{QD_CALLS(QD_CALL_CUDA) QD_OPTIONAL_CALLS(QD_OPTIONAL_CUDA)},
	{QD_CALLS(QD_CALL_HIP) QD_OPTIONAL_CALLS(QD_OPTIONAL_HIP)},
	{QD_CALLS(QD_CALL_NONE) QD_OPTIONAL_CALLS(QD_OPTIONAL_OLDER)},
#undef QD_CALL_CUDA
#undef QD_CALL_HIP
#undef QD_CALL_NONE
#undef QD_OPTIONAL_CUDA
#undef QD_OPTIONAL_HIP
#undef QD_OPTIONAL_OLDER
};

// qd_api is one driver API, loaded.
struct qd_api {
	int hip; // 0 for CUDA, 1 for HIP
	void *lib;
	void *fn[QD_NUM_CALLS];
};

// QD calls the function field of api with its own signature.
#define QD(api, field) ((qd_##field##_fn)(api)->fn[QD_CALL_##field])

// qd_call_name is the symbol of a call in api's library, for errors.
static inline const char *qd_call_name(const struct qd_api *api, int call) {
	const char *name = qd_call_names[api->hip][call];
	return name ? name : "?";
}

// qd_open_table opens the library lib and resolves the symbols names
// into fn, skipping NULL names: the first required ones must be there,
// the others are left NULL when missing (then tried by their older names,
// if any). On failure it sets *msg and returns NULL, else the library's
// handle.
static inline void *qd_open_table(const char *lib, const char *const *names, const char *const *older, int required, int n, void **fn, const char **msg) {
	void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		*msg = dlerror();
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		if (!names[i]) continue;
		fn[i] = dlsym(handle, names[i]);
		if (!fn[i] && older && older[i]) fn[i] = dlsym(handle, older[i]);
		if (i >= required) continue;
		if (!fn[i]) {
			static char missing[256];
			snprintf(missing, sizeof missing, "%s: missing symbol %s", lib, names[i]);
			*msg = missing;
			dlclose(handle);
			return NULL;
		}
	}
	return handle;
}

// qd_open_api opens the library lib and resolves every call of the API
// (HIP's if hip is set, else CUDA's); on failure it sets *msg and returns
// NULL.
static inline struct qd_api *qd_open_api(int hip, const char *lib, const char **msg) {
	struct qd_api *api = calloc(1, sizeof *api);
	if (!api) {
		*msg = "out of memory";
		return NULL;
	}
	api->hip = hip;
	api->lib = qd_open_table(lib, qd_call_names[hip], hip ? NULL : qd_call_names[2], QD_NUM_REQUIRED, QD_NUM_CALLS, api->fn, msg);
	if (!api->lib) {
		free(api);
		return NULL;
	}
	return api;
}

static inline const char *qd_error_name(const struct qd_api *api, qd_result r) {
	const char *name = NULL;
	if (api->hip && api->fn[QD_CALL_GetErrorNameHIP]) {
		name = QD(api, GetErrorNameHIP)(r);
	} else if (!api->hip && api->fn[QD_CALL_GetErrorNameCUDA] && QD(api, GetErrorNameCUDA)(r, &name) != 0) {
		name = NULL;
	}
	if (name) return name;
	return api->hip ? "hipErrorUnknown" : "CUDA_ERROR_UNKNOWN";
}

static inline qd_result qd_init(const struct qd_api *api) { return QD(api, Init)(0); }

static inline qd_result qd_device_count(const struct qd_api *api, int *n) { return QD(api, DeviceGetCount)(n); }

// A device's context is, for CUDA, its primary context; for HIP, the
// device's index, since HIP keeps a current device per thread instead.
// qd_use makes it current on the calling thread: Go moves goroutines
// between threads, so every call that needs it sets it first.
static inline qd_result qd_use(const struct qd_api *api, uintptr_t ctx) {
	if (api->hip) {
		int cur = -1;
		qd_result r = QD(api, GetDevice)(&cur);
		return r != 0 || cur == (int)ctx ? r : QD(api, SetDevice)((int)ctx);
	}
	void *cur = NULL;
	qd_result r = QD(api, CtxGetCurrent)(&cur);
	return r != 0 || cur == (void *)ctx ? r : QD(api, CtxSetCurrent)((void *)ctx);
}

static inline qd_result qd_device_open(const struct qd_api *api, int index, int *dev, uintptr_t *ctx, char *name, int len) {
	qd_result r = QD(api, DeviceGet)(dev, index);
	if (r == 0) r = QD(api, DeviceGetName)(name, len, *dev);
	if (r != 0) return r;
	if (api->hip) {
		*ctx = (uintptr_t)index;
		return QD(api, SetDevice)(index);
	}
	void *c = NULL;
	r = QD(api, DevicePrimaryCtxRetain)(&c, *dev);
	*ctx = (uintptr_t)c;
	return r;
}

static inline qd_result qd_device_close(const struct qd_api *api, int dev) {
	return api->hip ? 0 : QD(api, DevicePrimaryCtxRelease)(dev);
}

static inline qd_result qd_attribute(const struct qd_api *api, int dev, int attr, int *v) {
	return QD(api, DeviceGetAttribute)(v, attr, dev);
}

static inline qd_result qd_alloc(const struct qd_api *api, uintptr_t ctx, uintptr_t *p, size_t n) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemAlloc)(p, n);
}

static inline qd_result qd_free(const struct qd_api *api, uintptr_t ctx, uintptr_t p) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemFree)(p);
}

// Host memory in copies is typed as bytes, not void *, so that cgo knows
// it holds no Go pointers and checks nothing: it is a buffer's numbers.
static inline qd_result qd_copy_to_device(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, const unsigned char *src, size_t n) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyHtoD)(dst, src, n);
}

static inline qd_result qd_copy_to_host(const struct qd_api *api, uintptr_t ctx, unsigned char *dst, uintptr_t src, size_t n) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyDtoH)(dst, src, n);
}

// CUDA compiles PTX with line information (CU_JIT_GENERATE_LINE_INFO)
// so that compute-sanitizer, cuda-gdb and the profilers name the Go line
// of each instruction the PTX's .loc directives give; it changes no code.
enum { QD_JIT_ERROR_LOG_BUFFER = 5, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6, QD_JIT_GENERATE_LINE_INFO = 13 };

// qd_module_load loads a module from an image the driver takes as it is
// (a code object, a cubin) or compiles (PTX); CUDA's compiler writes its
// errors to log. The image is copied before the call returns.
static inline qd_result qd_module_load(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, const void *image, char *log, int logSize) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *mod = NULL;
	log[0] = 0;
	if (api->hip) {
		r = QD(api, ModuleLoadDataEx)(&mod, image, 0, NULL, NULL);
	} else {
		int options[3] = {QD_JIT_ERROR_LOG_BUFFER, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, QD_JIT_GENERATE_LINE_INFO};
		void *values[3] = {log, (void *)(size_t)logSize, (void *)(size_t)1};
		r = QD(api, ModuleLoadDataEx)(&mod, image, 3, options, values);
	}
	*out = (uintptr_t)mod;
	return r;
}

static inline qd_result qd_module_unload(const struct qd_api *api, uintptr_t ctx, uintptr_t mod) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, ModuleUnload)((void *)mod);
}

static inline qd_result qd_function(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, uintptr_t mod, const char *name) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *fn = NULL;
	r = QD(api, ModuleGetFunction)(&fn, (void *)mod, name);
	*out = (uintptr_t)fn;
	return r;
}

// qd_active_blocks is how many blocks of block threads of fn one
// multiprocessor holds at once (its registers and shared memory decide),
// or 0 when the driver cannot say.
static inline int qd_active_blocks(const struct qd_api *api, uintptr_t ctx, uintptr_t fn, int block) {
	int n = 0;
	if (!api->fn[QD_CALL_OccupancyMaxActiveBlocks] || qd_use(api, ctx)) return 0;
	if (QD(api, OccupancyMaxActiveBlocks)(&n, (void *)fn, block, 0)) return 0;
	return n;
}

// qd_extra is the launch's extra argument: the packed argument buffer and
// its size, which the driver copies before the launch returns. The
// markers are CUDA's and HIP's CU/HIP_LAUNCH_PARAM_*, which differ only in
// the one that ends the list.
#define QD_EXTRA(api, args, size)                                                   \
	{(void *)1 /* BUFFER_POINTER */, args, (void *)2 /* BUFFER_SIZE */, &size, \
		(void *)(uintptr_t)((api)->hip ? 3 : 0) /* END */}

// qd_task_launch is one task of qd_launch_seq: its function and grid.
typedef struct {
	uintptr_t fn;
	unsigned grid, block;
} qd_task_launch;

// qd_launch_seq queues on stream a wait for event wait (unless 0), the n
// tasks in order, each with the arguments packed in one buffer, which the
// driver copies before returning, then a record of event record (unless
// 0): a kernel's launch is one call into C. On failure *failed is -1 for
// the wait, the task's index, or n for the record. The buffer is typed as
// bytes, not void *, so that cgo knows it holds no Go pointers and checks
// nothing at each launch.
static inline qd_result qd_launch_seq(const struct qd_api *api, uintptr_t ctx, const qd_task_launch *tasks, int n, uintptr_t stream,
		unsigned char *args, size_t size, uintptr_t wait, uintptr_t record, int *failed) {
	qd_result r = qd_use(api, ctx);
	*failed = -1;
	if (r == 0 && wait) r = QD(api, StreamWaitEvent)((void *)stream, (void *)wait, 0);
	void *extra[] = QD_EXTRA(api, args, size);
	for (int i = 0; r == 0 && i < n; i++) {
		*failed = i;
		r = QD(api, LaunchKernel)((void *)tasks[i].fn, tasks[i].grid, 1, 1, tasks[i].block, 1, 1, 0, (void *)stream, NULL, extra);
	}
	if (r == 0 && record) {
		*failed = n;
		r = QD(api, EventRecord)((void *)record, (void *)stream);
	}
	return r;
}

static inline qd_result qd_stream_synchronize(const struct qd_api *api, uintptr_t ctx, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamSynchronize)((void *)s);
}

static inline qd_result qd_synchronize(const struct qd_api *api, uintptr_t ctx) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, Synchronize)();
}

static inline qd_result qd_driver_version(const struct qd_api *api, int *v) { return QD(api, DriverVersion)(v); }

// Streams and events. Handles cross into Go as uintptr_t.

enum { QD_STREAM_NON_BLOCKING = 1, QD_EVENT_DISABLE_TIMING = 2 };

// qd_new_stream makes a stream. CUDA's streams of the default priority
// take the CUDA runtime's path, cuStreamCreate, which costs less; HIP's
// take one path whatever their priority.
static inline qd_result qd_new_stream(const struct qd_api *api, uintptr_t *out, int priority) {
	void *s = NULL;
	qd_result r = priority == 0 && api->fn[QD_CALL_StreamCreate] ? QD(api, StreamCreate)(&s, QD_STREAM_NON_BLOCKING)
	                                                             : QD(api, StreamCreateWithPriority)(&s, QD_STREAM_NON_BLOCKING, priority);
	*out = (uintptr_t)s;
	return r;
}

static inline qd_result qd_stream_create(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, int priority) {
	qd_result r = qd_use(api, ctx);
	return r ? r : qd_new_stream(api, out, priority);
}

static inline qd_result qd_stream_destroy(const struct qd_api *api, uintptr_t ctx, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamDestroy)((void *)s);
}

static inline qd_result qd_stream_query(const struct qd_api *api, uintptr_t ctx, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamQuery)((void *)s);
}

static inline qd_result qd_stream_wait_event(const struct qd_api *api, uintptr_t ctx, uintptr_t s, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamWaitEvent)((void *)s, (void *)e, 0);
}

static inline qd_result qd_event_create(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, int timing) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *e = NULL;
	r = QD(api, EventCreate)(&e, timing ? 0 : QD_EVENT_DISABLE_TIMING);
	*out = (uintptr_t)e;
	return r;
}

static inline qd_result qd_event_destroy(const struct qd_api *api, uintptr_t ctx, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventDestroy)((void *)e);
}

static inline qd_result qd_event_record(const struct qd_api *api, uintptr_t ctx, uintptr_t e, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventRecord)((void *)e, (void *)s);
}

static inline qd_result qd_event_synchronize(const struct qd_api *api, uintptr_t ctx, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventSynchronize)((void *)e);
}

static inline qd_result qd_event_query(const struct qd_api *api, uintptr_t ctx, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventQuery)((void *)e);
}

static inline qd_result qd_event_elapsed(const struct qd_api *api, uintptr_t ctx, float *ms, uintptr_t start, uintptr_t end) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventElapsedTime)(ms, (void *)start, (void *)end);
}

static inline qd_result qd_copy_to_device_async(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, const unsigned char *src, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyHtoDAsync)(dst, src, n, (void *)s);
}

static inline qd_result qd_copy_to_host_async(const struct qd_api *api, uintptr_t ctx, unsigned char *dst, uintptr_t src, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyDtoHAsync)(dst, src, n, (void *)s);
}

static inline qd_result qd_copy_on_device_async(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, uintptr_t src, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyDtoDAsync)(dst, src, n, (void *)s);
}

static inline qd_result qd_memset_async(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, unsigned char v, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemsetD8Async)(dst, v, n, (void *)s);
}

// Page-locked host memory is C memory: Go's collector never moves or frees
// it, so asynchronous copies may read and write it after the call returns.
static inline qd_result qd_alloc_host(const struct qd_api *api, uintptr_t ctx, void **out, size_t n) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	return api->hip ? QD(api, MemHostAlloc)(out, n, 0) : QD(api, MemAllocHost)(out, n);
}

// qd_alloc_mapped allocates page-locked host memory mapped into the
// device's address space, and gives its device address. The flags have
// the same values in CUDA and HIP.
enum { QD_MEMHOSTALLOC_PORTABLE = 1, QD_MEMHOSTALLOC_DEVICEMAP = 2 };

static inline qd_result qd_alloc_mapped(const struct qd_api *api, uintptr_t ctx, void **host, uintptr_t *dev, size_t n) {
	qd_result r = qd_use(api, ctx);
	if (r == 0) r = QD(api, MemHostAlloc)(host, n, QD_MEMHOSTALLOC_PORTABLE | QD_MEMHOSTALLOC_DEVICEMAP);
	if (r == 0) {
		r = QD(api, MemHostGetDevicePointer)(dev, *host, 0);
		if (r) QD(api, MemFreeHost)(*host);
	}
	return r;
}

static inline qd_result qd_free_host(const struct qd_api *api, uintptr_t ctx, void *p) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemFreeHost)(p);
}

static inline qd_result qd_priority_range(const struct qd_api *api, uintptr_t ctx, int *least, int *greatest) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamPriorityRange)(least, greatest);
}

// qd_fork makes each of n streams wait for the point stream from has
// reached, recorded in event ev.
static inline qd_result qd_fork(const struct qd_api *api, uintptr_t ctx, uintptr_t ev, uintptr_t from, const uintptr_t *streams, int n) {
	qd_result r = qd_use(api, ctx);
	if (r == 0) r = QD(api, EventRecord)((void *)ev, (void *)from);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, StreamWaitEvent)((void *)streams[i], (void *)ev, 0);
	}
	return r;
}

// qd_join makes stream into wait for the points each of n streams has
// reached, recorded in the events.
static inline qd_result qd_join(const struct qd_api *api, uintptr_t ctx, const uintptr_t *events, const uintptr_t *streams, int n, uintptr_t into) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, EventRecord)((void *)events[i], (void *)streams[i]);
		if (r == 0) r = QD(api, StreamWaitEvent)((void *)into, (void *)events[i], 0);
	}
	return r;
}

// Loops of driver calls made from C, for benchmarks that compare the cost
// of calling the driver from Go with calling it from C in the same process.
static inline qd_result qd_bench_record_wait(const struct qd_api *api, uintptr_t ctx, uintptr_t ev, uintptr_t s1, uintptr_t s2, int n) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, EventRecord)((void *)ev, (void *)s1);
		if (r == 0) r = QD(api, StreamWaitEvent)((void *)s2, (void *)ev, 0);
	}
	return r;
}

static inline qd_result qd_bench_stream_create_destroy(const struct qd_api *api, uintptr_t ctx, int n) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		uintptr_t s;
		r = qd_new_stream(api, &s, 0);
		if (r == 0) r = QD(api, StreamDestroy)((void *)s);
	}
	return r;
}

static inline qd_result qd_bench_launch(const struct qd_api *api, uintptr_t ctx, uintptr_t fn, uintptr_t stream, void *args, size_t size, int n) {
	qd_result r = qd_use(api, ctx);
	void *extra[] = QD_EXTRA(api, args, size);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, LaunchKernel)((void *)fn, 1, 1, 1, 256, 1, 1, 0, (void *)stream, NULL, extra);
	}
	return r;
}

// qd_bench_launch_params is qd_bench_launch for a kernel of one parameter
// passed as the CUDA runtime passes parameters: an array of pointers to
// each, rather than one packed buffer.
static inline qd_result qd_bench_launch_params(const struct qd_api *api, uintptr_t ctx, uintptr_t fn, uintptr_t stream, void *arg0, int n) {
	qd_result r = qd_use(api, ctx);
	void *params[] = {arg0};
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, LaunchKernel)((void *)fn, 1, 1, 1, 256, 1, 1, 0, (void *)stream, params, NULL);
	}
	return r;
}

// qd_bench_alloc_free allocates and frees size bytes on stream s, n times:
// from pool, or with pool 0 from the device's default pool as
// cudaMallocAsync does.
static inline qd_result qd_bench_alloc_free(const struct qd_api *api, uintptr_t ctx, uintptr_t pool, uintptr_t s, size_t size, int n) {
	qd_result r = qd_use(api, ctx);
	if (r == 0 && !QD(api, MemFreeAsync)) return 500; // CUDA_ERROR_NOT_FOUND
	if (r == 0 && !pool && !QD(api, MemAllocAsync)) return 500;
	for (int i = 0; r == 0 && i < n; i++) {
		uintptr_t p;
		r = pool ? QD(api, MemAllocFromPoolAsync)(&p, size, (void *)pool, (void *)s) : QD(api, MemAllocAsync)(&p, size, (void *)s);
		if (r == 0) r = QD(api, MemFreeAsync)(p, (void *)s);
	}
	return r;
}

static inline qd_result qd_bench_noop(void) { return 0; }

static inline qd_result qd_bench_use(const struct qd_api *api, uintptr_t ctx, int n) {
	qd_result r = 0;
	for (int i = 0; r == 0 && i < n; i++) r = qd_use(api, ctx);
	return r;
}

static inline qd_result qd_bench_record(const struct qd_api *api, uintptr_t ctx, uintptr_t ev, uintptr_t s1, int n) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) r = QD(api, EventRecord)((void *)ev, (void *)s1);
	return r;
}

// Optional calls, each usable only when every function of its feature
// loaded; shared code asks the driver's features before calling them.

static inline int qd_has(const struct qd_api *api, int first, int last) {
	for (int i = first; i <= last; i++) {
		if (!api->fn[i]) return 0;
	}
	return 1;
}

static inline int qd_has_graphs(const struct qd_api *api) { return qd_has(api, QD_CALL_GraphCreate, QD_CALL_GraphLaunch); }
static inline int qd_has_pools(const struct qd_api *api) { return qd_has(api, QD_CALL_MemPoolCreate, QD_CALL_MemFreeAsync); }
static inline int qd_has_linker(const struct qd_api *api) { return qd_has(api, QD_CALL_LinkCreate, QD_CALL_LinkDestroy); }

// Graphs. A kernel node takes the kernel's arguments packed in one buffer,
// which the driver copies when the node is added or updated.

enum { QD_MEMORYTYPE_HOST = 1, QD_MEMORYTYPE_DEVICE = 2 };

// qd_graph_node describes one node for qd_graph_add_node and
// qd_graph_set_node: kind 0 is empty, 1 a kernel, 2 a copy, 3 a memset.
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

static inline void qd_kernel_params(const struct qd_api *api, qd_kernel_node_params *p, const qd_graph_node *n, void **extra, size_t *size) {
	memset(p, 0, sizeof *p);
	p->func = (void *)n->fn;
	p->gridDimX = n->grid;
	p->gridDimY = p->gridDimZ = 1;
	p->blockDimX = n->block;
	p->blockDimY = p->blockDimZ = 1;
	*size = n->argSize;
	void *list[] = QD_EXTRA(api, n->args, *size);
	memcpy(extra, list, sizeof list);
	extra[3] = size;
	if (n->argSize > 0) p->extra = extra;
}

static inline void qd_copy_params(qd_memcpy3d *p, const qd_graph_node *n) {
	memset(p, 0, sizeof *p);
	p->srcMemoryType = n->srcType;
	p->dstMemoryType = n->dstType;
	if (n->srcType == QD_MEMORYTYPE_HOST) p->srcHost = (const void *)n->src;
	else p->srcDevice = n->src;
	if (n->dstType == QD_MEMORYTYPE_HOST) p->dstHost = (void *)n->dst;
	else p->dstDevice = n->dst;
	p->srcPitch = p->dstPitch = p->WidthInBytes = n->bytes;
	p->srcHeight = p->dstHeight = p->Height = p->Depth = 1;
}

static inline void qd_memset_node_params(qd_memset_params *p, const qd_graph_node *n) {
	memset(p, 0, sizeof *p);
	p->dst = n->dst;
	p->value = n->value;
	p->elementSize = 1;
	p->pitch = p->width = n->bytes;
	p->height = 1;
}

static inline qd_result qd_graph_create(const struct qd_api *api, uintptr_t ctx, uintptr_t *out) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *g = NULL;
	r = QD(api, GraphCreate)(&g, 0);
	*out = (uintptr_t)g;
	return r;
}

static inline qd_result qd_graph_destroy(const struct qd_api *api, uintptr_t ctx, uintptr_t g) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, GraphDestroy)((void *)g);
}

// qd_graph_add_node adds node desc, whose kernel arguments are args, after
// the ndeps nodes deps.
static inline qd_result qd_graph_add_node(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, uintptr_t g, const uintptr_t *deps, int ndeps, const qd_graph_node *desc, void *args) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	qd_graph_node node_desc = *desc, *n = &node_desc;
	n->args = args;
	void *node = NULL;
	void *const *d = (void *const *)deps;
	switch (n->kind) {
	case 1: {
		qd_kernel_node_params p;
		void *extra[5];
		size_t size;
		qd_kernel_params(api, &p, n, extra, &size);
		r = QD(api, GraphAddKernelNode)(&node, (void *)g, d, ndeps, &p);
		break;
	}
	case 2: {
		qd_memcpy3d p;
		qd_copy_params(&p, n);
		r = QD(api, GraphAddMemcpyNode)(&node, (void *)g, d, ndeps, &p, (void *)ctx);
		break;
	}
	case 3: {
		qd_memset_params p;
		qd_memset_node_params(&p, n);
		r = QD(api, GraphAddMemsetNode)(&node, (void *)g, d, ndeps, &p, (void *)ctx);
		break;
	}
	default:
		r = QD(api, GraphAddEmptyNode)(&node, (void *)g, d, ndeps);
	}
	*out = (uintptr_t)node;
	return r;
}

static inline qd_result qd_graph_instantiate(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, uintptr_t g) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *e = NULL;
	r = QD(api, GraphInstantiateWithFlags)(&e, (void *)g, 0);
	*out = (uintptr_t)e;
	return r;
}

static inline qd_result qd_graph_exec_destroy(const struct qd_api *api, uintptr_t ctx, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, GraphExecDestroy)((void *)e);
}

// qd_graph_set_node changes the parameters of one node of an instantiated
// graph; later launches use them.
static inline qd_result qd_graph_set_node(const struct qd_api *api, uintptr_t ctx, uintptr_t exec, uintptr_t node, const qd_graph_node *desc, void *args) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	qd_graph_node node_desc = *desc, *n = &node_desc;
	n->args = args;
	switch (n->kind) {
	case 1: {
		qd_kernel_node_params p;
		void *extra[5];
		size_t size;
		qd_kernel_params(api, &p, n, extra, &size);
		return QD(api, GraphExecKernelNodeSetParams)((void *)exec, (void *)node, &p);
	}
	case 2: {
		qd_memcpy3d p;
		qd_copy_params(&p, n);
		return QD(api, GraphExecMemcpyNodeSetParams)((void *)exec, (void *)node, &p, (void *)ctx);
	}
	case 3: {
		qd_memset_params p;
		qd_memset_node_params(&p, n);
		return QD(api, GraphExecMemsetNodeSetParams)((void *)exec, (void *)node, &p, (void *)ctx);
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

// qd_graph_launch updates n kernel nodes of exec, all with the argument
// buffer args, then launches exec on stream: one call into C per launch.
static inline qd_result qd_graph_launch(const struct qd_api *api, uintptr_t ctx, uintptr_t exec, uintptr_t stream, const qd_node_update *ups, int n,
		unsigned char *args, size_t argSize) {
	qd_result r = qd_use(api, ctx);
	qd_graph_node gn = {.kind = 1, .args = args, .argSize = argSize};
	for (int i = 0; r == 0 && i < n; i++) {
		qd_kernel_node_params p;
		void *extra[5];
		size_t size;
		gn.fn = ups[i].fn;
		gn.grid = ups[i].grid;
		gn.block = ups[i].block;
		qd_kernel_params(api, &p, &gn, extra, &size);
		r = QD(api, GraphExecKernelNodeSetParams)((void *)exec, (void *)ups[i].node, &p);
	}
	return r ? r : QD(api, GraphLaunch)((void *)exec, (void *)stream);
}

// Stream-ordered memory from a pool of qd's own, which never makes an
// allocation wait for GPU work: it reuses memory only once its free has
// happened, and keeps freed memory for reuse instead of returning it to the
// system at every synchronization.

enum {
	QD_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
	QD_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
};

static inline qd_result qd_pool_create(const struct qd_api *api, uintptr_t ctx, int dev, uintptr_t *out) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	qd_mem_pool_props props;
	memset(&props, 0, sizeof props);
	props.allocType = 1;    // CU_MEM_ALLOCATION_TYPE_PINNED
	props.locationType = 1; // CU_MEM_LOCATION_TYPE_DEVICE
	props.locationId = dev;
	void *pool = NULL;
	r = QD(api, MemPoolCreate)(&pool, &props);
	int no = 0;
	unsigned long long keep = ~0ULL;
	if (r == 0) r = QD(api, MemPoolSetAttribute)(pool, QD_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &no);
	if (r == 0) r = QD(api, MemPoolSetAttribute)(pool, QD_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
	if (r != 0 && pool != NULL) {
		QD(api, MemPoolDestroy)(pool);
		pool = NULL;
	}
	*out = (uintptr_t)pool;
	return r;
}

static inline qd_result qd_pool_destroy(const struct qd_api *api, uintptr_t ctx, uintptr_t pool) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemPoolDestroy)((void *)pool);
}

// qd_alloc_async allocates from pool on stream s. With wait it then waits
// for s, so that the memory may be used on any stream at once; qd passes a
// stream that carries only allocations, which never wait for GPU work, so
// the wait is short.
static inline qd_result qd_alloc_async(const struct qd_api *api, uintptr_t ctx, uintptr_t *p, size_t n, uintptr_t pool, uintptr_t s, int wait) {
	qd_result r = qd_use(api, ctx);
	if (r == 0) r = QD(api, MemAllocFromPoolAsync)(p, n, (void *)pool, (void *)s);
	return r || !wait ? r : QD(api, StreamSynchronize)((void *)s);
}

// qd_free_after frees p on stream into once into has waited for each of n
// streams, recording one event on each.
static inline qd_result qd_free_after(const struct qd_api *api, uintptr_t ctx, uintptr_t p, const uintptr_t *events, const uintptr_t *streams, int n, uintptr_t into) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, EventRecord)((void *)events[i], (void *)streams[i]);
		if (r == 0) r = QD(api, StreamWaitEvent)((void *)into, (void *)events[i], 0);
	}
	return r ? r : QD(api, MemFreeAsync)(p, (void *)into);
}

// The driver's own linker compiles PTX to a cubin, which qd keeps on disk.

enum { QD_JIT_INPUT_PTX = 1 };

// qd_link compiles the PTX image (NUL-terminated) for the current
// context's GPU. On success *cubin and *size hold the cubin inside the
// linker's state *state, which the caller copies and then destroys.
static inline qd_result qd_link(const struct qd_api *api, uintptr_t ctx, uintptr_t *state, const char *ptx, void **cubin, size_t *size, char *log, int logSize) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *s = NULL;
	int options[3] = {QD_JIT_ERROR_LOG_BUFFER, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, QD_JIT_GENERATE_LINE_INFO};
	void *values[3] = {log, (void *)(size_t)logSize, (void *)(size_t)1};
	log[0] = 0;
	r = QD(api, LinkCreate)(3, options, values, &s);
	if (r == 0) r = QD(api, LinkAddData)(s, QD_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "qd", 0, NULL, NULL);
	if (r == 0) r = QD(api, LinkComplete)(s, cubin, size);
	*state = (uintptr_t)s;
	return r;
}

static inline qd_result qd_link_destroy(const struct qd_api *api, uintptr_t state) { return QD(api, LinkDestroy)((void *)state); }

// qd_module_load_binary loads binary code (a cubin, a code object) as it
// is.
static inline qd_result qd_module_load_binary(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, const void *image) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *mod = NULL;
	r = QD(api, ModuleLoadData)(&mod, image);
	*out = (uintptr_t)mod;
	return r;
}

#endif
