// TEST INFRASTRUCTURE ONLY: never part of qd or of a user's binary.
//
// A fake libcuda.so.1 of two devices that can reach each other's memory,
// for testing copies between devices through qd's real CUDA driver and
// its shim on a machine without a GPU (TestCopyPeerOnFakeCUDA). Device
// memory is malloc's and every copy is a memcpy done at once; nothing
// runs. The peer calls check their arguments as the driver would and
// write what they did, a line each, to the file $QD_PEERFAKE_LOG. With
// QD_PEERFAKE_NO_PEER=1 the devices cannot reach each other.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uintptr_t handle;
enum { INVALID_VALUE = 1, INVALID_DEVICE = 101, PEER_ALREADY_ENABLED = 704, NDEV = 2 };

static uintptr_t next_handle = 0x1000;
static handle fresh(void) { return next_handle += 0x10; }
static __thread handle current;

// A device's primary context is 0xc0 + 0x10 × its index.
static handle ctx_of(int dev) { return 0xc0 + 0x10 * (handle)dev; }
static int dev_of(handle ctx) { return ctx >= 0xc0 && ctx < 0xc0 + 0x10 * NDEV && ctx % 0x10 == 0 ? (int)((ctx - 0xc0) / 0x10) : -1; }

static void note(const char *format, int a, int b, size_t n) {
	const char *path = getenv("QD_PEERFAKE_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f) return;
	fprintf(f, format, a, b, n);
	fputc('\n', f);
	fclose(f);
}

// Allocations, to know which device a pointer's memory is on.
static struct { handle p; size_t n; int dev; } allocs[4096];
static int nallocs;
static handle alloc_on(int dev, size_t n) {
	void *p = calloc(1, n ? n : 1);
	if (nallocs < 4096) allocs[nallocs++] = (typeof(allocs[0])){(handle)p, n, dev};
	return (handle)p;
}
static int owner(handle p, size_t n) {
	for (int i = 0; i < nallocs; i++) {
		if (p >= allocs[i].p && p + n <= allocs[i].p + allocs[i].n) return allocs[i].dev;
	}
	return -1;
}
static void release(handle p) {
	for (int i = 0; i < nallocs; i++) {
		if (allocs[i].p == p) {
			allocs[i] = allocs[--nallocs];
			free((void *)p);
			return;
		}
	}
}

CUresult cuInit(unsigned flags) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = NDEV; return 0; }
CUresult cuDeviceGet(int *dev, int index) { *dev = index; return index >= 0 && index < NDEV ? 0 : INVALID_DEVICE; }
CUresult cuDeviceGetName(char *name, int len, int dev) { strncpy(name, "peerfake", len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
	switch (attr) {
	case 1: *v = 1024; break;
	case 10: *v = 32; break;
	case 16: *v = 132; break;
	case 39: *v = 2048; break;
	case 75: *v = 9; break;
	case 115: *v = 1; break; // memory pools
	default: *v = 0;
	}
	return 0;
}
CUresult cuDevicePrimaryCtxRetain(handle *ctx, int dev) { *ctx = ctx_of(dev); return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { return 0; }
CUresult cuCtxSetCurrent(handle ctx) { current = ctx; return 0; }
CUresult cuCtxGetCurrent(handle *ctx) { *ctx = current; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -5; return 0; }
CUresult cuGetErrorName(CUresult r, const char **name) {
	*name = r == INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_FAKE";
	return 0;
}

CUresult cuMemAlloc_v2(handle *p, size_t n) { *p = alloc_on(dev_of(current), n); return 0; }
CUresult cuMemFree_v2(handle p) { release(p); return 0; }
CUresult cuMemcpyHtoD_v2(handle dst, const void *src, size_t n) { memcpy((void *)dst, src, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *dst, handle src, size_t n) { memcpy(dst, (void *)src, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(handle dst, const void *src, size_t n, handle s) { return cuMemcpyHtoD_v2(dst, src, n); }
CUresult cuMemcpyDtoHAsync_v2(void *dst, handle src, size_t n, handle s) { return cuMemcpyDtoH_v2(dst, src, n); }
CUresult cuMemcpyDtoDAsync_v2(handle dst, handle src, size_t n, handle s) { memmove((void *)dst, (void *)src, n); return 0; }
CUresult cuMemsetD8Async(handle dst, unsigned char v, size_t n, handle s) { memset((void *)dst, v, n); return 0; }
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

// A pool is the device it was made for, after a fresh handle.
static struct { handle pool; int dev; } pools[16];
static int npools;
CUresult cuMemPoolCreate(handle *pool, const int *props) {
	*pool = fresh();
	if (npools < 16) pools[npools++] = (typeof(pools[0])){*pool, props[3] /* location id */};
	return 0;
}
static int pool_dev(handle pool) {
	for (int i = 0; i < npools; i++) {
		if (pools[i].pool == pool) return pools[i].dev;
	}
	return -1;
}
CUresult cuMemPoolDestroy(handle pool) { return 0; }
CUresult cuMemPoolSetAttribute(handle pool, int attr, void *v) { return 0; }
CUresult cuMemAllocFromPoolAsync(handle *p, size_t n, handle pool, handle s) { *p = alloc_on(pool_dev(pool), n); return 0; }
CUresult cuMemFreeAsync(handle p, handle s) { release(p); return 0; }

// Peer access.
static int enabled[NDEV][NDEV];
CUresult cuDeviceCanAccessPeer(int *can, int dev, int peer) {
	if (dev < 0 || dev >= NDEV || peer < 0 || peer >= NDEV) return INVALID_DEVICE;
	*can = dev != peer && !getenv("QD_PEERFAKE_NO_PEER");
	return 0;
}
CUresult cuCtxEnablePeerAccess(handle peer, unsigned flags) {
	int me = dev_of(current), other = dev_of(peer);
	if (me < 0 || other < 0 || me == other || flags != 0) return INVALID_VALUE;
	if (enabled[me][other]) return PEER_ALREADY_ENABLED;
	enabled[me][other] = 1;
	note("enable peer access %d to %d", me, other, 0);
	return 0;
}
// The pool's memory becomes reachable from the device the one descriptor
// names: {location type 1 (a device), its index, flags 3 (read and write)}.
CUresult cuMemPoolSetAccess(handle pool, const int *desc, size_t count) {
	int dev = pool_dev(pool);
	if (dev < 0 || count != 1 || desc[0] != 1 || desc[1] < 0 || desc[1] >= NDEV || desc[2] != 3) return INVALID_VALUE;
	note("pool of %d reachable from %d", dev, desc[1], 0);
	return 0;
}
CUresult cuMemcpyPeerAsync(handle dst, handle dstCtx, handle src, handle srcCtx, size_t n, handle s) {
	int d = owner(dst, n), sd = owner(src, n);
	if (d < 0 || sd < 0 || ctx_of(d) != dstCtx || ctx_of(sd) != srcCtx || dev_of(current) != d) return INVALID_VALUE;
	memcpy((void *)dst, (void *)src, n);
	note("copy from %d to %d, %zu bytes", sd, d, n);
	return 0;
}
