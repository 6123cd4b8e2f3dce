// TEST INFRASTRUCTURE ONLY: never part of qd or of a user's binary.
//
// A stand-in for ROCm's libamdhip64.so on an NVIDIA GPU: it provides the
// hip* and hiprtc* functions qd's HIP driver calls, on top of the CUDA
// driver API (libcuda) and NVRTC, so that the HIP driver's own code runs
// the stream, event, pool and StreamParallel tests on an NVIDIA GPU. HIP
// source is compiled by NVRTC for the GPU at hand (the prelude of emitted
// HIP maps it to CUDA), and "code objects" are cubins.
//
// It reports the device's architecture as QD_HIPSHIM_ARCH, by default
// "gfx942:sramecc+:xnack-", so that the driver's handling of AMD targets
// is exercised; the wave size it reports is the GPU's real one, 32.
//
// Build (no CUDA headers needed: the few prototypes are declared here):
//
//	gcc -shared -fPIC -O2 -o DIR/libamdhip64.so rt/testdata/hipshim/hipshim.c -ldl
//
// and run with LD_LIBRARY_PATH=DIR QD_BACKEND=hip. NVRTC is found as
// QD_NVRTC names it, else in the usual CUDA places. gpu-tests.sh, beside
// this file, builds it with the test binaries for a GPU machine.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cu_result;
typedef int hip_error;
typedef void *handle;

// The CUDA driver and NVRTC functions the shim calls, resolved with dlsym.
#define CU_CALLS(X)                                                                                          \
	X(cuInit, cu_result, (unsigned))                                                                     \
	X(cuDeviceGetCount, cu_result, (int *))                                                              \
	X(cuDeviceGet, cu_result, (int *, int))                                                              \
	X(cuDeviceGetName, cu_result, (char *, int, int))                                                    \
	X(cuDeviceGetAttribute, cu_result, (int *, int, int))                                                \
	X(cuDevicePrimaryCtxRetain, cu_result, (handle *, int))                                              \
	X(cuCtxSetCurrent, cu_result, (handle))                                                              \
	X(cuCtxSynchronize, cu_result, (void))                                                               \
	X(cuDriverGetVersion, cu_result, (int *))                                                            \
	X(cuMemAlloc_v2, cu_result, (uintptr_t *, size_t))                                                   \
	X(cuMemFree_v2, cu_result, (uintptr_t))                                                              \
	X(cuMemcpyHtoD_v2, cu_result, (uintptr_t, const void *, size_t))                                     \
	X(cuMemcpyDtoH_v2, cu_result, (void *, uintptr_t, size_t))                                           \
	X(cuModuleLoadData, cu_result, (handle *, const void *))                                             \
	X(cuModuleUnload, cu_result, (handle))                                                               \
	X(cuModuleGetFunction, cu_result, (handle *, handle, const char *))                                  \
	X(cuLaunchKernel, cu_result,                                                                         \
		(handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, handle, void **, \
			void **))                                                                            \
	X(cuStreamSynchronize, cu_result, (handle))                                                          \
	X(cuStreamCreateWithPriority, cu_result, (handle *, unsigned, int))                                  \
	X(cuStreamDestroy_v2, cu_result, (handle))                                                           \
	X(cuStreamQuery, cu_result, (handle))                                                                \
	X(cuStreamWaitEvent, cu_result, (handle, handle, unsigned))                                          \
	X(cuEventCreate, cu_result, (handle *, unsigned))                                                    \
	X(cuEventDestroy_v2, cu_result, (handle))                                                            \
	X(cuEventRecord, cu_result, (handle, handle))                                                        \
	X(cuEventSynchronize, cu_result, (handle))                                                           \
	X(cuEventQuery, cu_result, (handle))                                                                 \
	X(cuEventElapsedTime, cu_result, (float *, handle, handle))                                          \
	X(cuMemcpyHtoDAsync_v2, cu_result, (uintptr_t, const void *, size_t, handle))                        \
	X(cuMemcpyDtoHAsync_v2, cu_result, (void *, uintptr_t, size_t, handle))                              \
	X(cuMemcpyDtoDAsync_v2, cu_result, (uintptr_t, uintptr_t, size_t, handle))                           \
	X(cuMemsetD8Async, cu_result, (uintptr_t, unsigned char, size_t, handle))                            \
	X(cuMemHostAlloc, cu_result, (void **, size_t, unsigned))                                            \
	X(cuMemHostGetDevicePointer_v2, cu_result, (uintptr_t *, void *, unsigned))                          \
	X(cuMemFreeHost, cu_result, (void *))                                                                \
	X(cuCtxGetStreamPriorityRange, cu_result, (int *, int *))

#define NVRTC_CALLS(X)                                                                                    \
	X(nvrtcCreateProgram, int, (handle *, const char *, const char *, int, const char *const *,       \
					   const char *const *))                                          \
	X(nvrtcCompileProgram, int, (handle, int, const char *const *))                                   \
	X(nvrtcGetProgramLogSize, int, (handle, size_t *))                                                \
	X(nvrtcGetProgramLog, int, (handle, char *))                                                      \
	X(nvrtcGetCUBINSize, int, (handle, size_t *))                                                     \
	X(nvrtcGetCUBIN, int, (handle, char *))                                                           \
	X(nvrtcDestroyProgram, int, (handle *))                                                           \
	X(nvrtcGetErrorString, const char *, (int))                                                       \
	X(nvrtcVersion, int, (int *, int *))

#define DECLARE(name, result, params) static result(*p_##name) params;
CU_CALLS(DECLARE)
NVRTC_CALLS(DECLARE)
#undef DECLARE

enum {
	hipSuccess = 0,
	hipErrorInvalidValue = 1,
	hipErrorNotInitialized = 3,
	hipErrorNoDevice = 100,
	hipErrorSharedObjectInitFailed = 303,
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static hip_error load_error = hipSuccess;

static void *open_first(const char *env, const char *const *names, const char *pattern) {
	const char *path = getenv(env);
	if (path && *path) return dlopen(path, RTLD_NOW | RTLD_LOCAL);
	for (; *names; names++) {
		void *lib = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
		if (lib) return lib;
	}
	glob_t g;
	void *lib = NULL;
	if (pattern && glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && !lib; i++) {
			if (!strstr(g.gl_pathv[i], "builtins")) lib = dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_LOCAL);
		}
		globfree(&g);
	}
	return lib;
}

static void load(void) {
	static const char *const cuda_names[] = {"libcuda.so.1", NULL};
	static const char *const nvrtc_names[] = {"libnvrtc.so", NULL};
	void *cuda = open_first("QD_HIPSHIM_CUDA", cuda_names, NULL);
	void *nvrtc = open_first("QD_NVRTC", nvrtc_names, "/usr/local/cuda*/lib64/libnvrtc.so*");
	if (!cuda || !nvrtc) {
		fprintf(stderr, "hipshim: cannot open %s\n", cuda ? "NVRTC (set QD_NVRTC)" : "libcuda.so.1");
		load_error = hipErrorSharedObjectInitFailed;
		return;
	}
#define RESOLVE(lib, name)                                                        \
	*(void **)&p_##name = dlsym(lib, #name);                                  \
	if (!p_##name) {                                                          \
		fprintf(stderr, "hipshim: missing %s\n", #name);                  \
		load_error = hipErrorSharedObjectInitFailed;                      \
		return;                                                           \
	}
#define RESOLVE_CU(name, result, params) RESOLVE(cuda, name)
#define RESOLVE_NVRTC(name, result, params) RESOLVE(nvrtc, name)
	CU_CALLS(RESOLVE_CU)
	NVRTC_CALLS(RESOLVE_NVRTC)
#undef RESOLVE
}

static hip_error loaded(void) {
	pthread_once(&load_once, load);
	return load_error;
}

// HIP keeps a current device per thread, device 0 until hipSetDevice; the
// shim makes that device's primary context current on each thread before
// its first CUDA call.
#define MAX_DEVICES 64
static handle contexts[MAX_DEVICES];
static pthread_mutex_t contexts_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int current = -1;

static hip_error set_device(int index) {
	hip_error r = loaded();
	if (r) return r;
	if (index < 0 || index >= MAX_DEVICES) return hipErrorInvalidValue;
	pthread_mutex_lock(&contexts_mu);
	if (!contexts[index]) {
		int dev;
		r = p_cuDeviceGet(&dev, index);
		if (r == 0) r = p_cuDevicePrimaryCtxRetain(&contexts[index], dev);
	}
	handle ctx = contexts[index];
	pthread_mutex_unlock(&contexts_mu);
	if (r == 0) r = p_cuCtxSetCurrent(ctx);
	if (r == 0) current = index;
	return r;
}

// use makes the thread's device current, for the calls that need it.
static hip_error use(void) { return current >= 0 ? loaded() : set_device(0); }

#define USE()                              \
	do {                               \
		hip_error use_r = use();   \
		if (use_r) return use_r;   \
	} while (0)

hip_error hipInit(unsigned flags) {
	hip_error r = loaded();
	return r ? r : p_cuInit(flags);
}

hip_error hipGetDeviceCount(int *n) {
	hip_error r = loaded();
	return r ? r : p_cuDeviceGetCount(n);
}

hip_error hipDeviceGet(int *dev, int index) {
	hip_error r = loaded();
	return r ? r : p_cuDeviceGet(dev, index);
}

static const char shim_label[] = " (qd HIP test shim)";

hip_error hipDeviceGetName(char *name, int len, int dev) {
	hip_error r = loaded();
	if (r) return r;
	r = p_cuDeviceGetName(name, len, dev);
	if (r == 0 && strlen(name) + sizeof shim_label <= (size_t)len) strcat(name, shim_label);
	return r;
}

// hipDeviceGetAttribute answers the attributes qd reads, by HIP's numbers,
// with CUDA's answers.
hip_error hipDeviceGetAttribute(int *v, int attr, int dev) {
	hip_error r = loaded();
	if (r) return r;
	int cu;
	switch (attr) {
	case 56: cu = 1; break;  // max threads per block
	case 57: cu = 39; break; // max threads per multiprocessor
	case 63: cu = 16; break; // multiprocessors
	case 87: cu = 10; break; // warp size
	case 74: cu = 8; break;  // shared memory per block
	case 23: cu = 75; break; // compute capability major
	case 61: cu = 76; break; // compute capability minor
	default: return hipErrorInvalidValue;
	}
	return p_cuDeviceGetAttribute(v, cu, dev);
}

hip_error hipSetDevice(int index) { return set_device(index); }

hip_error hipGetDevice(int *index) {
	hip_error r = loaded();
	if (r == 0) *index = current >= 0 ? current : 0;
	return r;
}

// hipGetDevicePropertiesR0600 fills what qd reads of ROCm 6's
// hipDeviceProp_t: the name at offset 0 and gcnArchName at 1160.
hip_error hipGetDevicePropertiesR0600(void *props, int dev) {
	hip_error r = hipDeviceGetName((char *)props, 256, dev);
	if (r) return r;
	const char *arch = getenv("QD_HIPSHIM_ARCH");
	snprintf((char *)props + 1160, 256, "%s", arch && *arch ? arch : "gfx942:sramecc+:xnack-");
	return 0;
}

hip_error hipRuntimeGetVersion(int *v) {
	hip_error r = loaded();
	return r ? r : p_cuDriverGetVersion(v);
}

hip_error hipDeviceSynchronize(void) {
	USE();
	return p_cuCtxSynchronize();
}

hip_error hipMalloc(uintptr_t *p, size_t n) {
	USE();
	return p_cuMemAlloc_v2(p, n);
}

hip_error hipFree(uintptr_t p) {
	USE();
	return p_cuMemFree_v2(p);
}

hip_error hipMemcpyHtoD(uintptr_t dst, const void *src, size_t n) {
	USE();
	return p_cuMemcpyHtoD_v2(dst, src, n);
}

hip_error hipMemcpyDtoH(void *dst, uintptr_t src, size_t n) {
	USE();
	return p_cuMemcpyDtoH_v2(dst, src, n);
}

hip_error hipModuleLoadDataEx(handle *mod, const void *image, unsigned n, int *options, void **values) {
	USE();
	return p_cuModuleLoadData(mod, image);
}

hip_error hipModuleLoadData(handle *mod, const void *image) {
	USE();
	return p_cuModuleLoadData(mod, image);
}

hip_error hipModuleUnload(handle mod) {
	USE();
	return p_cuModuleUnload(mod);
}

// NVRTC, unlike the compilers of HIP, takes no '$' in names, which qd's
// entries of kernels with names beyond ASCII have: the shim spells each
// as "_qdS_", in the source it compiles and in the names it looks up.
static char *noDollars(const char *s) {
	size_t n = strlen(s), d = 0;
	for (size_t i = 0; i < n; i++) d += s[i] == '$';
	char *out = malloc(n + 4 * d + 1), *o = out;
	for (; *s; s++) {
		if (*s == '$') { memcpy(o, "_qdS_", 5); o += 5; } else *o++ = *s;
	}
	*o = 0;
	return out;
}

hip_error hipModuleGetFunction(handle *fn, handle mod, const char *name) {
	USE();
	char *n = noDollars(name);
	hip_error r = p_cuModuleGetFunction(fn, mod, n);
	free(n);
	return r;
}

// hipModuleLaunchKernel passes extra on with HIP's end marker (3) turned
// into CUDA's (0).
hip_error hipModuleLaunchKernel(handle fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		unsigned bz, unsigned shared, handle stream, void **params, void **extra) {
	USE();
	void *cuExtra[8];
	void **e = NULL;
	if (extra) {
		int i = 0;
		for (; i < 7 && extra[i] != (void *)3; i += 2) {
			cuExtra[i] = extra[i];
			cuExtra[i + 1] = extra[i + 1];
		}
		if (extra[i] != (void *)3) return hipErrorInvalidValue;
		cuExtra[i] = NULL;
		e = cuExtra;
	}
	return p_cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, shared, stream, params, e);
}

hip_error hipStreamSynchronize(handle s) {
	USE();
	return p_cuStreamSynchronize(s);
}

hip_error hipStreamCreateWithPriority(handle *s, unsigned flags, int priority) {
	USE();
	return p_cuStreamCreateWithPriority(s, flags, priority);
}

hip_error hipStreamDestroy(handle s) {
	USE();
	return p_cuStreamDestroy_v2(s);
}

hip_error hipStreamQuery(handle s) {
	USE();
	return p_cuStreamQuery(s);
}

hip_error hipStreamWaitEvent(handle s, handle e, unsigned flags) {
	USE();
	return p_cuStreamWaitEvent(s, e, flags);
}

hip_error hipEventCreateWithFlags(handle *e, unsigned flags) {
	USE();
	return p_cuEventCreate(e, flags);
}

hip_error hipEventDestroy(handle e) {
	USE();
	return p_cuEventDestroy_v2(e);
}

hip_error hipEventRecord(handle e, handle s) {
	USE();
	return p_cuEventRecord(e, s);
}

hip_error hipEventSynchronize(handle e) {
	USE();
	return p_cuEventSynchronize(e);
}

hip_error hipEventQuery(handle e) {
	USE();
	return p_cuEventQuery(e);
}

hip_error hipEventElapsedTime(float *ms, handle start, handle end) {
	USE();
	return p_cuEventElapsedTime(ms, start, end);
}

hip_error hipMemcpyHtoDAsync(uintptr_t dst, const void *src, size_t n, handle s) {
	USE();
	return p_cuMemcpyHtoDAsync_v2(dst, src, n, s);
}

hip_error hipMemcpyDtoHAsync(void *dst, uintptr_t src, size_t n, handle s) {
	USE();
	return p_cuMemcpyDtoHAsync_v2(dst, src, n, s);
}

hip_error hipMemcpyDtoDAsync(uintptr_t dst, uintptr_t src, size_t n, handle s) {
	USE();
	return p_cuMemcpyDtoDAsync_v2(dst, src, n, s);
}

hip_error hipMemsetD8Async(uintptr_t dst, unsigned char v, size_t n, handle s) {
	USE();
	return p_cuMemsetD8Async(dst, v, n, s);
}

// hipHostMalloc's flags (portable 1, mapped 2) are cuMemHostAlloc's.
hip_error hipHostMalloc(void **p, size_t n, unsigned flags) {
	USE();
	return p_cuMemHostAlloc(p, n, flags);
}

hip_error hipHostGetDevicePointer(uintptr_t *dev, void *host, unsigned flags) {
	USE();
	return p_cuMemHostGetDevicePointer_v2(dev, host, flags);
}

hip_error hipHostFree(void *p) {
	USE();
	return p_cuMemFreeHost(p);
}

hip_error hipDeviceGetStreamPriorityRange(int *least, int *greatest) {
	USE();
	return p_cuCtxGetStreamPriorityRange(least, greatest);
}

// hipGetErrorName names CUDA's results, whose numbers HIP shares, as HIP
// does.
const char *hipGetErrorName(hip_error r) {
	switch (r) {
	case 0: return "hipSuccess";
	case 1: return "hipErrorInvalidValue";
	case 2: return "hipErrorOutOfMemory";
	case 3: return "hipErrorNotInitialized";
	case 4: return "hipErrorDeinitialized";
	case 100: return "hipErrorNoDevice";
	case 101: return "hipErrorInvalidDevice";
	case 200: return "hipErrorInvalidImage";
	case 201: return "hipErrorInvalidContext";
	case 209: return "hipErrorNoBinaryForGpu";
	case 303: return "hipErrorSharedObjectInitFailed";
	case 400: return "hipErrorInvalidHandle";
	case 500: return "hipErrorNotFound";
	case 600: return "hipErrorNotReady";
	case 700: return "hipErrorIllegalAddress";
	case 701: return "hipErrorLaunchOutOfResources";
	case 702: return "hipErrorLaunchTimeOut";
	case 719: return "hipErrorLaunchFailure";
	}
	return "hipErrorUnknown";
}

// hiprtc on NVRTC. The HIP driver's options name an AMD target and clang
// flags; the shim compiles for the current CUDA device instead, with the
// options that keep NVRTC to Go's arithmetic.

int hiprtcCreateProgram(handle *prog, const char *src, const char *name, int n, const char *const *headers,
		const char *const *includes) {
	int r = loaded();
	if (r) return r;
	char *s = noDollars(src);
	r = p_nvrtcCreateProgram(prog, s, name, n, headers, includes);
	free(s);
	return r;
}

int hiprtcCompileProgram(handle prog, int n, const char *const *options) {
	int r = use();
	if (r) return r;
	int major = 0, minor = 0;
	p_cuDeviceGetAttribute(&major, 75, current);
	p_cuDeviceGetAttribute(&minor, 76, current);
	char arch[64];
	snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
	const char *nvOptions[] = {arch, "--fmad=false", "--prec-div=true", "--prec-sqrt=true", "--ftz=false"};
	return p_nvrtcCompileProgram(prog, 5, nvOptions);
}

int hiprtcGetProgramLogSize(handle prog, size_t *n) { return p_nvrtcGetProgramLogSize(prog, n); }
int hiprtcGetProgramLog(handle prog, char *log) { return p_nvrtcGetProgramLog(prog, log); }
int hiprtcGetCodeSize(handle prog, size_t *n) { return p_nvrtcGetCUBINSize(prog, n); }
int hiprtcGetCode(handle prog, char *code) { return p_nvrtcGetCUBIN(prog, code); }
int hiprtcDestroyProgram(handle *prog) { return p_nvrtcDestroyProgram(prog); }

// NVRTC's result names match hiprtc's but for the prefix.
const char *hiprtcGetErrorString(int r) {
	static __thread char name[96];
	const char *nv = loaded() ? "NVRTC_ERROR_UNKNOWN" : p_nvrtcGetErrorString(r);
	snprintf(name, sizeof name, "HIP%s", strncmp(nv, "NVRTC", 5) == 0 ? nv + 2 : nv);
	return name;
}

int hiprtcVersion(int *major, int *minor) {
	int r = loaded();
	return r ? r : p_nvrtcVersion(major, minor);
}
