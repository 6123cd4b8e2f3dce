// TEST INFRASTRUCTURE ONLY: never part of qd or of a user's binary.
//
// A fake libcuda.so.1 whose calls do nothing, for measuring what qd's CUDA
// driver costs the host on a machine without a GPU
// (BenchmarkCUDAOnFake): the calls into C, the shim and the runtime above
// it, without the driver's own work. Handles are counters; host memory is
// malloc's; nothing runs. It has memory pools and the linker but no
// graphs, so stream-parallel kernels launch eagerly.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uintptr_t handle;

static uintptr_t next_handle = 0x1000;
static handle fresh(void) { return next_handle += 0x10; }
static __thread handle current;

CUresult cuInit(unsigned flags) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *dev, int index) { *dev = index; return index == 0 ? 0 : 101; }
CUresult cuDeviceGetName(char *name, int len, int dev) { strncpy(name, "fake", len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
	switch (attr) {
	case 1: *v = 1024; break;  // max threads per block
	case 10: *v = 32; break;   // warp size
	case 16: *v = 132; break;  // multiprocessors
	case 39: *v = 2048; break; // max threads per multiprocessor
	case 75: *v = 9; break;    // compute capability
	case 76: *v = 0; break;
	case 115: *v = 1; break;   // memory pools
	default: *v = 0;
	}
	return 0;
}
CUresult cuDevicePrimaryCtxRetain(handle *ctx, int dev) { *ctx = 0xc0; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { return 0; }
CUresult cuCtxSetCurrent(handle ctx) { current = ctx; return 0; }
CUresult cuCtxGetCurrent(handle *ctx) { *ctx = current; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -5; return 0; }
CUresult cuGetErrorName(CUresult r, const char **name) { *name = "CUDA_ERROR_FAKE"; return 0; }

CUresult cuMemAlloc_v2(handle *p, size_t n) { *p = fresh(); return 0; }
CUresult cuMemFree_v2(handle p) { return 0; }
CUresult cuMemcpyHtoD_v2(handle dst, const void *src, size_t n) { return 0; }
CUresult cuMemcpyDtoH_v2(void *dst, handle src, size_t n) { return 0; }
CUresult cuMemcpyHtoDAsync_v2(handle dst, const void *src, size_t n, handle s) { return 0; }
CUresult cuMemcpyDtoHAsync_v2(void *dst, handle src, size_t n, handle s) { return 0; }
CUresult cuMemcpyDtoDAsync_v2(handle dst, handle src, size_t n, handle s) { return 0; }
CUresult cuMemsetD8Async(handle dst, unsigned char v, size_t n, handle s) { return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t n) { *p = calloc(1, n ? n : 1); return 0; }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) { *p = calloc(1, n ? n : 1); return 0; }
CUresult cuMemHostGetDevicePointer_v2(handle *dev, void *host, unsigned flags) { *dev = (handle)host; return 0; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }

CUresult cuModuleLoadData(handle *mod, const void *image) { *mod = fresh(); return 0; }
CUresult cuModuleLoadDataEx(handle *mod, const void *image, unsigned n, int *opts, void **vals) { *mod = fresh(); return 0; }
CUresult cuModuleUnload(handle mod) { return 0; }
CUresult cuModuleGetFunction(handle *fn, handle mod, const char *name) { *fn = fresh(); return 0; }
CUresult cuLaunchKernel(handle fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		unsigned shared, handle s, void **params, void **extra) { return 0; }

CUresult cuStreamCreate(handle *s, unsigned flags) { *s = fresh(); return 0; }
CUresult cuStreamCreateWithPriority(handle *s, unsigned flags, int priority) { *s = fresh(); return 0; }
CUresult cuStreamDestroy_v2(handle s) { return 0; }
CUresult cuStreamSynchronize(handle s) { return 0; }
CUresult cuStreamQuery(handle s) { return 0; }
CUresult cuStreamWaitEvent(handle s, handle e, unsigned flags) { return 0; }
CUresult cuEventCreate(handle *e, unsigned flags) { *e = fresh(); return 0; }
CUresult cuEventDestroy_v2(handle e) { return 0; }
CUresult cuEventRecord(handle e, handle s) { return 0; }
CUresult cuEventSynchronize(handle e) { return 0; }
CUresult cuEventQuery(handle e) { return 0; }
CUresult cuEventElapsedTime(float *ms, handle a, handle b) { *ms = 0; return 0; }

CUresult cuMemPoolCreate(handle *pool, const void *props) { *pool = fresh(); return 0; }
CUresult cuMemPoolDestroy(handle pool) { return 0; }
CUresult cuMemPoolSetAttribute(handle pool, int attr, void *v) { return 0; }
CUresult cuMemAllocFromPoolAsync(handle *p, size_t n, handle pool, handle s) { *p = fresh(); return 0; }
CUresult cuMemAllocAsync(handle *p, size_t n, handle s) { *p = fresh(); return 0; }
CUresult cuMemFreeAsync(handle p, handle s) { return 0; }

// The linker's "cubin" is the PTX.
static const char *linked;
CUresult cuLinkCreate_v2(unsigned n, int *opts, void **vals, handle *state) { *state = fresh(); return 0; }
CUresult cuLinkAddData_v2(handle state, int type, void *data, size_t size, const char *name, unsigned n, int *opts, void **vals) {
	linked = data;
	return 0;
}
CUresult cuLinkComplete(handle state, void **cubin, size_t *size) {
	*cubin = (void *)linked;
	*size = strlen(linked);
	return 0;
}
CUresult cuLinkDestroy(handle state) { return 0; }
