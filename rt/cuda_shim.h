// The CUDA driver functions qd calls, declared here and resolved with
// dlsym, so that no CUDA header or library is needed to build.
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
	QD_ATTR_MAX_THREADS_PER_BLOCK = 1,
	QD_ATTR_WARP_SIZE = 10,
	QD_ATTR_MULTIPROCESSOR_COUNT = 16,
	QD_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	QD_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
	QD_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
};

static struct {
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
} qd_cu;

static void *qd_cu_lib;

// qd_cu_load opens libcuda and resolves every function; on failure it
// sets *msg and returns non-zero.
static int qd_cu_load(char **msg) {
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
#undef QD_SYM
	return 0;
}

static CUresult qd_cu_init(void) { return qd_cu.Init(0); }

static const char *qd_cu_error_name(CUresult r) {
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

static CUresult qd_cu_device_count(int *n) { return qd_cu.DeviceGetCount(n); }

static CUresult qd_cu_device_open(int index, CUdevice *dev, CUcontext *ctx, char *name, int len) {
	CUresult r = qd_cu.DeviceGet(dev, index);
	if (r == 0) r = qd_cu.DeviceGetName(name, len, *dev);
	if (r == 0) r = qd_cu.DevicePrimaryCtxRetain(ctx, *dev);
	return r;
}

static CUresult qd_cu_device_close(CUdevice dev) { return qd_cu.DevicePrimaryCtxRelease(dev); }

static CUresult qd_cu_attribute(CUdevice dev, int attr, int *v) {
	return qd_cu.DeviceGetAttribute(v, attr, dev);
}

static CUresult qd_cu_alloc(CUcontext ctx, CUdeviceptr *p, size_t n) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemAlloc(p, n);
}

static CUresult qd_cu_free(CUcontext ctx, CUdeviceptr p) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemFree(p);
}

static CUresult qd_cu_copy_to_device(CUcontext ctx, CUdeviceptr dst, const void *src, size_t n) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyHtoD(dst, src, n);
}

static CUresult qd_cu_copy_to_host(CUcontext ctx, void *dst, CUdeviceptr src, size_t n) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyDtoH(dst, src, n);
}

enum { QD_JIT_ERROR_LOG_BUFFER = 5, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

static CUresult qd_cu_module_load(CUcontext ctx, uintptr_t *out, const char *image, char *log, int logSize) {
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

static CUresult qd_cu_module_unload(CUcontext ctx, uintptr_t mod) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.ModuleUnload((CUmodule)mod);
}

static CUresult qd_cu_function(CUcontext ctx, uintptr_t *out, uintptr_t mod, const char *name) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUfunction fn = NULL;
	r = qd_cu.ModuleGetFunction(&fn, (CUmodule)mod, name);
	*out = (uintptr_t)fn;
	return r;
}

// qd_cu_launch launches fn with its arguments packed in one buffer, which
// the driver copies before returning.
static CUresult qd_cu_launch(CUcontext ctx, uintptr_t fn, unsigned grid, unsigned block, uintptr_t stream,
		void *args, size_t size) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	void *extra[] = {(void *)1 /* CU_LAUNCH_PARAM_BUFFER_POINTER */, args,
		(void *)2 /* CU_LAUNCH_PARAM_BUFFER_SIZE */, &size, (void *)0 /* CU_LAUNCH_PARAM_END */};
	return qd_cu.LaunchKernel((CUfunction)fn, grid, 1, 1, block, 1, 1, 0, (CUstream)stream, NULL, extra);
}

static CUresult qd_cu_stream_synchronize(CUcontext ctx, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamSynchronize((CUstream)s);
}

static CUresult qd_cu_ctx_synchronize(CUcontext ctx) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.CtxSynchronize();
}

// Streams and events. Handles cross into Go as uintptr_t.

enum { QD_STREAM_NON_BLOCKING = 1, QD_EVENT_DISABLE_TIMING = 2 };

static CUresult qd_cu_stream_create(CUcontext ctx, uintptr_t *out, int priority) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUstream s = NULL;
	r = qd_cu.StreamCreateWithPriority(&s, QD_STREAM_NON_BLOCKING, priority);
	*out = (uintptr_t)s;
	return r;
}

static CUresult qd_cu_stream_destroy(CUcontext ctx, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamDestroy((CUstream)s);
}

static CUresult qd_cu_stream_query(CUcontext ctx, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamQuery((CUstream)s);
}

static CUresult qd_cu_stream_wait_event(CUcontext ctx, uintptr_t s, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.StreamWaitEvent((CUstream)s, (CUevent)e, 0);
}

static CUresult qd_cu_event_create(CUcontext ctx, uintptr_t *out, int timing) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	CUevent e = NULL;
	r = qd_cu.EventCreate(&e, timing ? 0 : QD_EVENT_DISABLE_TIMING);
	*out = (uintptr_t)e;
	return r;
}

static CUresult qd_cu_event_destroy(CUcontext ctx, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventDestroy((CUevent)e);
}

static CUresult qd_cu_event_record(CUcontext ctx, uintptr_t e, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventRecord((CUevent)e, (CUstream)s);
}

static CUresult qd_cu_event_synchronize(CUcontext ctx, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventSynchronize((CUevent)e);
}

static CUresult qd_cu_event_query(CUcontext ctx, uintptr_t e) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventQuery((CUevent)e);
}

static CUresult qd_cu_event_elapsed(CUcontext ctx, float *ms, uintptr_t start, uintptr_t end) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.EventElapsedTime(ms, (CUevent)start, (CUevent)end);
}

static CUresult qd_cu_copy_to_device_async(CUcontext ctx, CUdeviceptr dst, const void *src, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyHtoDAsync(dst, src, n, (CUstream)s);
}

static CUresult qd_cu_copy_to_host_async(CUcontext ctx, void *dst, CUdeviceptr src, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyDtoHAsync(dst, src, n, (CUstream)s);
}

static CUresult qd_cu_copy_on_device_async(CUcontext ctx, CUdeviceptr dst, CUdeviceptr src, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemcpyDtoDAsync(dst, src, n, (CUstream)s);
}

static CUresult qd_cu_memset_async(CUcontext ctx, CUdeviceptr dst, unsigned char v, size_t n, uintptr_t s) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemsetD8Async(dst, v, n, (CUstream)s);
}

// Page-locked host memory is C memory: Go's collector never moves or frees
// it, so asynchronous copies may read and write it after the call returns.
static CUresult qd_cu_alloc_host(CUcontext ctx, void **out, size_t n) {
	CUresult r = qd_cu_use(ctx);
	if (r) return r;
	return qd_cu.MemAllocHost(out, n);
}

static CUresult qd_cu_free_host(CUcontext ctx, void *p) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.MemFreeHost(p);
}

static CUresult qd_cu_priority_range(CUcontext ctx, int *least, int *greatest) {
	CUresult r = qd_cu_use(ctx);
	return r ? r : qd_cu.CtxGetStreamPriorityRange(least, greatest);
}

// qd_cu_fork makes each of n streams wait for the point stream from has
// reached, recorded in event ev.
static CUresult qd_cu_fork(CUcontext ctx, uintptr_t ev, uintptr_t from, const uintptr_t *streams, int n) {
	CUresult r = qd_cu_use(ctx);
	if (r == 0) r = qd_cu.EventRecord((CUevent)ev, (CUstream)from);
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.StreamWaitEvent((CUstream)streams[i], (CUevent)ev, 0);
	}
	return r;
}

// qd_cu_join makes stream into wait for the points each of n streams has
// reached, recorded in the events.
static CUresult qd_cu_join(CUcontext ctx, const uintptr_t *events, const uintptr_t *streams, int n, uintptr_t into) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.EventRecord((CUevent)events[i], (CUstream)streams[i]);
		if (r == 0) r = qd_cu.StreamWaitEvent((CUstream)into, (CUevent)events[i], 0);
	}
	return r;
}

// Loops of driver calls made from C, for benchmarks that compare the cost
// of calling the driver from Go with calling it from C in the same process.
static CUresult qd_cu_bench_record_wait(CUcontext ctx, uintptr_t ev, uintptr_t s1, uintptr_t s2, int n) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.EventRecord((CUevent)ev, (CUstream)s1);
		if (r == 0) r = qd_cu.StreamWaitEvent((CUstream)s2, (CUevent)ev, 0);
	}
	return r;
}

static CUresult qd_cu_bench_stream_create_destroy(CUcontext ctx, int n) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		CUstream s;
		r = qd_cu.StreamCreateWithPriority(&s, QD_STREAM_NON_BLOCKING, 0);
		if (r == 0) r = qd_cu.StreamDestroy(s);
	}
	return r;
}

static CUresult qd_cu_bench_launch(CUcontext ctx, uintptr_t fn, uintptr_t stream, void *args, size_t size, int n) {
	CUresult r = qd_cu_use(ctx);
	void *extra[] = {(void *)1, args, (void *)2, &size, (void *)0};
	for (int i = 0; r == 0 && i < n; i++) {
		r = qd_cu.LaunchKernel((CUfunction)fn, 1, 1, 1, 256, 1, 1, 0, (CUstream)stream, NULL, extra);
	}
	return r;
}

static CUresult qd_cu_bench_noop(void) { return 0; }

static CUresult qd_cu_bench_use(CUcontext ctx, int n) {
	CUresult r = 0;
	for (int i = 0; r == 0 && i < n; i++) r = qd_cu_use(ctx);
	return r;
}

static CUresult qd_cu_bench_record(CUcontext ctx, uintptr_t ev, uintptr_t s1, int n) {
	CUresult r = qd_cu_use(ctx);
	for (int i = 0; r == 0 && i < n; i++) r = qd_cu.EventRecord((CUevent)ev, (CUstream)s1);
	return r;
}
