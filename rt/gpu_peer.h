// Copies between two GPUs of one driver, straight over NVLink or PCIe
// when the devices can reach each other's memory (peer.go).
#ifndef QD_GPU_PEER_H
#define QD_GPU_PEER_H
#include "gpu_shim.h"

// CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED and
// hipErrorPeerAccessAlreadyEnabled: enabling twice is no error to qd.
enum { QD_PEER_ALREADY_ENABLED = 704 };

static inline int qd_has_peer(const struct qd_api *api) { return qd_has(api, QD_CALL_DeviceCanAccessPeer, QD_CALL_MemcpyPeerAsync); }

// qd_can_access_peer sets *can to whether device dev can read and write
// the memory of device peer.
static inline qd_result qd_can_access_peer(const struct qd_api *api, int dev, int peer, int *can) {
	*can = 0;
	return QD(api, DeviceCanAccessPeer)(can, dev, peer);
}

// qd_enable_peer lets the context ctx (HIP: the device) reach the memory
// of peer's context (HIP: the device index) allocated with cuMemAlloc.
static inline qd_result qd_enable_peer(const struct qd_api *api, uintptr_t ctx, uintptr_t peer) {
	qd_result r = qd_use(api, ctx);
	if (r == 0) r = QD(api, CtxEnablePeerAccess)((void *)peer, 0);
	return r == QD_PEER_ALREADY_ENABLED ? 0 : r;
}

// qd_pool_grant lets device dev read and write the memory of pool, which
// peer access does not cover: a pool's allocations are reachable from the
// devices its own access list names.
static inline qd_result qd_pool_grant(const struct qd_api *api, uintptr_t ctx, uintptr_t pool, int dev) {
	qd_result r = qd_use(api, ctx);
	if (r) return r;
	qd_mem_access_desc desc = {1 /* CU_MEM_LOCATION_TYPE_DEVICE */, dev, 3 /* CU_MEM_ACCESS_FLAGS_PROT_READWRITE */};
	return QD(api, MemPoolSetAccess)((void *)pool, &desc, 1);
}

// qd_copy_peer queues on stream s (of context ctx) a copy of n bytes from
// src in context srcCtx to dst in context dstCtx. HIP's call takes device
// indices where CUDA's takes contexts, which a HIP context is.
static inline qd_result qd_copy_peer(const struct qd_api *api, uintptr_t ctx, uintptr_t dst, uintptr_t dstCtx, uintptr_t src, uintptr_t srcCtx, size_t n, uintptr_t s) {
	qd_result r = qd_use(api, ctx);
	return r ? r : QD(api, MemcpyPeerAsync)(dst, (void *)dstCtx, src, (void *)srcCtx, n, (void *)s);
}

#endif
