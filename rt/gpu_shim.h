// The driver functions qd calls, for CUDA (libcuda) and HIP (libamdhip64).
// The two APIs take the same arguments for all but a few calls, so one
// table of function pointers holds either API's functions, resolved with
// dlsym, and one set of wrappers below serves both. qd declares what it
// calls itself: no CUDA or HIP header or library is needed to build.
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int qd_result;

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
	X(HostMalloc, NULL, "hipHostMalloc", qd_result, (void **, size_t, unsigned))                         \
	X(MemFreeHost, "cuMemFreeHost", "hipHostFree", qd_result, (void *))                                  \
	X(StreamPriorityRange, "cuCtxGetStreamPriorityRange", "hipDeviceGetStreamPriorityRange", qd_result,  \
		(int *, int *))

#define QD_CALL_INDEX(field, cuda, hip, result, params) QD_CALL_##field,
enum { QD_CALLS(QD_CALL_INDEX) QD_NUM_CALLS };
#undef QD_CALL_INDEX

#define QD_CALL_TYPE(field, cuda, hip, result, params) typedef result(*qd_##field##_fn) params;
QD_CALLS(QD_CALL_TYPE)
#undef QD_CALL_TYPE

static const char *const qd_call_names[2][QD_NUM_CALLS] = {
#define QD_CALL_CUDA(field, cuda, hip, result, params) cuda,
#define QD_CALL_HIP(field, cuda, hip, result, params) hip,
	{QD_CALLS(QD_CALL_CUDA)},
	{QD_CALLS(QD_CALL_HIP)},
#undef QD_CALL_CUDA
#undef QD_CALL_HIP
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
static const char *qd_call_name(const struct qd_api *api, int call) {
	const char *name = qd_call_names[api->hip][call];
	return name ? name : "?";
}

// qd_open_table opens the library lib and resolves the n symbols names
// into fn, skipping NULL names; on failure it sets *msg and returns NULL,
// else the library's handle.
static void *qd_open_table(const char *lib, const char *const *names, int n, void **fn, const char **msg) {
	void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		*msg = dlerror();
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		if (!names[i]) continue;
		fn[i] = dlsym(handle, names[i]);
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
static struct qd_api *qd_open_api(int hip, const char *lib, const char **msg) {
	struct qd_api *api = calloc(1, sizeof *api);
	if (!api) {
		*msg = "out of memory";
		return NULL;
	}
	api->hip = hip;
	api->lib = qd_open_table(lib, qd_call_names[hip], QD_NUM_CALLS, api->fn, msg);
	if (!api->lib) {
		free(api);
		return NULL;
	}
	return api;
}

static const char *qd_error_name(const struct qd_api *api, qd_result r) {
	const char *name = NULL;
	if (api->hip && api->fn[QD_CALL_GetErrorNameHIP]) {
		name = QD(api, GetErrorNameHIP)(r);
	} else if (!api->hip && api->fn[QD_CALL_GetErrorNameCUDA] && QD(api, GetErrorNameCUDA)(r, &name) != 0) {
		name = NULL;
	}
	if (name) return name;
	return api->hip ? "hipErrorUnknown" : "CUDA_ERROR_UNKNOWN";
}

static qd_result qd_init(const struct qd_api *api) { return QD(api, Init)(0); }

static qd_result qd_device_count(const struct qd_api *api, int *n) { return QD(api, DeviceGetCount)(n); }

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

static qd_result qd_device_open(const struct qd_api *api, int index, int *dev, uintptr_t *ctx, char *name, int len) {
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

static qd_result qd_device_close(const struct qd_api *api, int dev) {
	return api->hip ? 0 : QD(api, DevicePrimaryCtxRelease)(dev);
}

static qd_result qd_attribute(const struct qd_api *api, int dev, int attr, int *v) {
	return QD(api, DeviceGetAttribute)(v, attr, dev);
}

static qd_result qd_alloc(const struct qd_api *api, uintptr_t ctx, uintptr_t *p, size_t n) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemAlloc)(p, n);
}

static qd_result qd_free(const struct qd_api *api, uintptr_t ctx, uintptr_t p) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemFree)(p);
}

static qd_result qd_copy_to_device(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, const void *src, size_t n) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyHtoD)(dst, src, n);
}

static qd_result qd_copy_to_host(const struct qd_api *api, uintptr_t ctx, void *dst, uintptr_t src, size_t n) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyDtoH)(dst, src, n);
}

enum { QD_JIT_ERROR_LOG_BUFFER = 5, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

// qd_module_load loads a module from an image the driver takes as it is
// (a code object, a cubin) or compiles (PTX); CUDA's compiler writes its
// errors to log. The image is copied before the call returns.
static qd_result qd_module_load(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, const void *image, char *log, int logSize) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *mod = NULL;
	log[0] = 0;
	if (api->hip) {
		r = QD(api, ModuleLoadDataEx)(&mod, image, 0, NULL, NULL);
	} else {
		int options[2] = {QD_JIT_ERROR_LOG_BUFFER, QD_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *values[2] = {log, (void *)(size_t)logSize};
		r = QD(api, ModuleLoadDataEx)(&mod, image, 2, options, values);
	}
	*out = (uintptr_t)mod;
	return r;
}

static qd_result qd_module_unload(const struct qd_api *api, uintptr_t ctx, uintptr_t mod) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, ModuleUnload)((void *)mod);
}

static qd_result qd_function(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, uintptr_t mod, const char *name) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *fn = NULL;
	r = QD(api, ModuleGetFunction)(&fn, (void *)mod, name);
	*out = (uintptr_t)fn;
	return r;
}

// qd_extra is the launch's extra argument: the packed argument buffer and
// its size, which the driver copies before the launch returns. The
// markers are CUDA's and HIP's CU/HIP_LAUNCH_PARAM_*, which differ only in
// the one that ends the list.
#define QD_EXTRA(api, args, size)                                                   \
	{(void *)1 /* BUFFER_POINTER */, args, (void *)2 /* BUFFER_SIZE */, &size, \
		(void *)(uintptr_t)((api)->hip ? 3 : 0) /* END */}

static qd_result qd_launch(const struct qd_api *api, uintptr_t ctx, uintptr_t fn, unsigned grid, unsigned block,
		uintptr_t stream, void *args, size_t size) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *extra[] = QD_EXTRA(api, args, size);
	return QD(api, LaunchKernel)((void *)fn, grid, 1, 1, block, 1, 1, 0, (void *)stream, NULL, extra);
}

static qd_result qd_stream_synchronize(const struct qd_api *api, uintptr_t ctx, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamSynchronize)((void *)s);
}

static qd_result qd_synchronize(const struct qd_api *api, uintptr_t ctx) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, Synchronize)();
}

static qd_result qd_driver_version(const struct qd_api *api, int *v) { return QD(api, DriverVersion)(v); }

// Streams and events. Handles cross into Go as uintptr_t.

enum { QD_STREAM_NON_BLOCKING = 1, QD_EVENT_DISABLE_TIMING = 2 };

static qd_result qd_stream_create(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, int priority) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *s = NULL;
	r = QD(api, StreamCreateWithPriority)(&s, QD_STREAM_NON_BLOCKING, priority);
	*out = (uintptr_t)s;
	return r;
}

static qd_result qd_stream_destroy(const struct qd_api *api, uintptr_t ctx, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamDestroy)((void *)s);
}

static qd_result qd_stream_query(const struct qd_api *api, uintptr_t ctx, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamQuery)((void *)s);
}

static qd_result qd_stream_wait_event(const struct qd_api *api, uintptr_t ctx, uintptr_t s, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamWaitEvent)((void *)s, (void *)e, 0);
}

static qd_result qd_event_create(const struct qd_api *api, uintptr_t ctx, uintptr_t *out, int timing) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	void *e = NULL;
	r = QD(api, EventCreate)(&e, timing ? 0 : QD_EVENT_DISABLE_TIMING);
	*out = (uintptr_t)e;
	return r;
}

static qd_result qd_event_destroy(const struct qd_api *api, uintptr_t ctx, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventDestroy)((void *)e);
}

static qd_result qd_event_record(const struct qd_api *api, uintptr_t ctx, uintptr_t e, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventRecord)((void *)e, (void *)s);
}

static qd_result qd_event_synchronize(const struct qd_api *api, uintptr_t ctx, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventSynchronize)((void *)e);
}

static qd_result qd_event_query(const struct qd_api *api, uintptr_t ctx, uintptr_t e) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventQuery)((void *)e);
}

static qd_result qd_event_elapsed(const struct qd_api *api, uintptr_t ctx, float *ms, uintptr_t start, uintptr_t end) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, EventElapsedTime)(ms, (void *)start, (void *)end);
}

static qd_result qd_copy_to_device_async(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, const void *src, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyHtoDAsync)(dst, src, n, (void *)s);
}

static qd_result qd_copy_to_host_async(const struct qd_api *api, uintptr_t ctx, void *dst, uintptr_t src, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyDtoHAsync)(dst, src, n, (void *)s);
}

static qd_result qd_copy_on_device_async(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, uintptr_t src, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyDtoDAsync)(dst, src, n, (void *)s);
}

static qd_result qd_memset_async(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, unsigned char v, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemsetD8Async)(dst, v, n, (void *)s);
}

// Page-locked host memory is C memory: Go's collector never moves or frees
// it, so asynchronous copies may read and write it after the call returns.
static qd_result qd_alloc_host(const struct qd_api *api, uintptr_t ctx, void **out, size_t n) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	return api->hip ? QD(api, HostMalloc)(out, n, 0) : QD(api, MemAllocHost)(out, n);
}

static qd_result qd_free_host(const struct qd_api *api, uintptr_t ctx, void *p) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemFreeHost)(p);
}

static qd_result qd_priority_range(const struct qd_api *api, uintptr_t ctx, int *least, int *greatest) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, StreamPriorityRange)(least, greatest);
}

// qd_fork makes each of n streams wait for the point stream from has
// reached, recorded in event ev.
static qd_result qd_fork(const struct qd_api *api, uintptr_t ctx, uintptr_t ev, uintptr_t from, const uintptr_t *streams, int n) {
	qd_result r = qd_use(api, ctx);
	if (r == 0) r = QD(api, EventRecord)((void *)ev, (void *)from);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, StreamWaitEvent)((void *)streams[i], (void *)ev, 0);
	}
	return r;
}

// qd_join makes stream into wait for the points each of n streams has
// reached, recorded in the events.
static qd_result qd_join(const struct qd_api *api, uintptr_t ctx, const uintptr_t *events, const uintptr_t *streams, int n, uintptr_t into) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, EventRecord)((void *)events[i], (void *)streams[i]);
		if (r == 0) r = QD(api, StreamWaitEvent)((void *)into, (void *)events[i], 0);
	}
	return r;
}

// Loops of driver calls made from C, for benchmarks that compare the cost
// of calling the driver from Go with calling it from C in the same process.
static qd_result qd_bench_record_wait(const struct qd_api *api, uintptr_t ctx, uintptr_t ev, uintptr_t s1, uintptr_t s2, int n) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, EventRecord)((void *)ev, (void *)s1);
		if (r == 0) r = QD(api, StreamWaitEvent)((void *)s2, (void *)ev, 0);
	}
	return r;
}

static qd_result qd_bench_stream_create_destroy(const struct qd_api *api, uintptr_t ctx, int n) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) {
		void *s;
		r = QD(api, StreamCreateWithPriority)(&s, QD_STREAM_NON_BLOCKING, 0);
		if (r == 0) r = QD(api, StreamDestroy)(s);
	}
	return r;
}

static qd_result qd_bench_launch(const struct qd_api *api, uintptr_t ctx, uintptr_t fn, uintptr_t stream, void *args, size_t size, int n) {
	qd_result r = qd_use(api, ctx);
	void *extra[] = QD_EXTRA(api, args, size);
	for (int i = 0; r == 0 && i < n; i++) {
		r = QD(api, LaunchKernel)((void *)fn, 1, 1, 1, 256, 1, 1, 0, (void *)stream, NULL, extra);
	}
	return r;
}

static qd_result qd_bench_noop(void) { return 0; }

static qd_result qd_bench_use(const struct qd_api *api, uintptr_t ctx, int n) {
	qd_result r = 0;
	for (int i = 0; r == 0 && i < n; i++) r = qd_use(api, ctx);
	return r;
}

static qd_result qd_bench_record(const struct qd_api *api, uintptr_t ctx, uintptr_t ev, uintptr_t s1, int n) {
	qd_result r = qd_use(api, ctx);
	for (int i = 0; r == 0 && i < n; i++) r = QD(api, EventRecord)((void *)ev, (void *)s1);
	return r;
}
