// The NCCL functions package nccl calls, resolved with dlopen and dlsym
// from libnccl.so.2 (or RCCL's librccl.so, which has the same API), so
// that building needs no NCCL header or library. ncclUniqueId is 128
// opaque bytes, passed by value.
#ifndef QD_NCCL_SHIM_H
#define QD_NCCL_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char internal[128]; } qd_nccl_id;

#define QD_NCCL_CALLS(X)                                                                              \
	X(GetErrorString, "ncclGetErrorString", const char *, (int))                                  \
	X(GetUniqueId, "ncclGetUniqueId", int, (qd_nccl_id *))                                        \
	X(CommInitRank, "ncclCommInitRank", int, (void **, int, qd_nccl_id, int))                     \
	X(CommInitAll, "ncclCommInitAll", int, (void **, int, const int *))                           \
	X(CommDestroy, "ncclCommDestroy", int, (void *))                                              \
	X(AllReduce, "ncclAllReduce", int, (const void *, void *, size_t, int, int, void *, void *)) \
	X(Broadcast, "ncclBroadcast", int, (const void *, void *, size_t, int, int, void *, void *)) \
	X(Reduce, "ncclReduce", int, (const void *, void *, size_t, int, int, int, void *, void *))  \
	X(AllGather, "ncclAllGather", int, (const void *, void *, size_t, int, void *, void *))      \
	X(ReduceScatter, "ncclReduceScatter", int,                                                   \
		(const void *, void *, size_t, int, int, void *, void *))                            \
	X(Send, "ncclSend", int, (const void *, size_t, int, int, void *, void *))                   \
	X(Recv, "ncclRecv", int, (void *, size_t, int, int, void *, void *))                         \
	X(GroupStart, "ncclGroupStart", int, (void))                                                  \
	X(GroupEnd, "ncclGroupEnd", int, (void))

#define QD_NCCL_ENUM(name, sym, ret, params) QD_NCCL_##name,
enum { QD_NCCL_CALLS(QD_NCCL_ENUM) QD_NCCL_NUM };
#define QD_NCCL_TYPE(name, sym, ret, params) typedef ret(*qd_nccl_##name##_fn) params;
QD_NCCL_CALLS(QD_NCCL_TYPE)
#define QD_NCCL_SYM(name, sym, ret, params) sym,
static const char *qd_nccl_names[] = {QD_NCCL_CALLS(QD_NCCL_SYM)};

struct qd_nccl {
	void *lib;
	void *fn[QD_NCCL_NUM];
};

#define QDN(api, name) ((qd_nccl_##name##_fn)(api)->fn[QD_NCCL_##name])

// qd_nccl_open loads lib and resolves every call; on failure it sets *msg
// (dlerror's text, which the next dlopen may overwrite) and returns NULL.
static inline struct qd_nccl *qd_nccl_open(const char *lib, const char **msg) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*msg = dlerror();
		return NULL;
	}
	struct qd_nccl *api = calloc(1, sizeof *api);
	if (!api) {
		*msg = "out of memory";
		return NULL;
	}
	api->lib = h;
	for (int i = 0; i < QD_NCCL_NUM; i++) {
		api->fn[i] = dlsym(h, qd_nccl_names[i]);
		if (!api->fn[i]) {
			*msg = qd_nccl_names[i];
			free(api);
			return NULL;
		}
	}
	return api;
}

static inline const char *qd_nccl_error(const struct qd_nccl *api, int r) { return QDN(api, GetErrorString)(r); }
static inline int qd_nccl_unique_id(const struct qd_nccl *api, void *id) { return QDN(api, GetUniqueId)((qd_nccl_id *)id); }
static inline int qd_nccl_init_rank(const struct qd_nccl *api, uintptr_t *comm, int n, const void *id, int rank) {
	qd_nccl_id v;
	memcpy(&v, id, sizeof v);
	return QDN(api, CommInitRank)((void **)comm, n, v, rank);
}
static inline int qd_nccl_init_all(const struct qd_nccl *api, uintptr_t *comms, int n, const int *devs) {
	return QDN(api, CommInitAll)((void **)comms, n, devs);
}
static inline int qd_nccl_destroy(const struct qd_nccl *api, uintptr_t c) { return QDN(api, CommDestroy)((void *)c); }
static inline int qd_nccl_all_reduce(const struct qd_nccl *api, uintptr_t s, uintptr_t r, size_t n, int t, int op, uintptr_t c, uintptr_t st) {
	return QDN(api, AllReduce)((const void *)s, (void *)r, n, t, op, (void *)c, (void *)st);
}
static inline int qd_nccl_broadcast(const struct qd_nccl *api, uintptr_t s, uintptr_t r, size_t n, int t, int root, uintptr_t c, uintptr_t st) {
	return QDN(api, Broadcast)((const void *)s, (void *)r, n, t, root, (void *)c, (void *)st);
}
static inline int qd_nccl_reduce(const struct qd_nccl *api, uintptr_t s, uintptr_t r, size_t n, int t, int op, int root, uintptr_t c, uintptr_t st) {
	return QDN(api, Reduce)((const void *)s, (void *)r, n, t, op, root, (void *)c, (void *)st);
}
static inline int qd_nccl_all_gather(const struct qd_nccl *api, uintptr_t s, uintptr_t r, size_t n, int t, uintptr_t c, uintptr_t st) {
	return QDN(api, AllGather)((const void *)s, (void *)r, n, t, (void *)c, (void *)st);
}
static inline int qd_nccl_reduce_scatter(const struct qd_nccl *api, uintptr_t s, uintptr_t r, size_t n, int t, int op, uintptr_t c, uintptr_t st) {
	return QDN(api, ReduceScatter)((const void *)s, (void *)r, n, t, op, (void *)c, (void *)st);
}
static inline int qd_nccl_send(const struct qd_nccl *api, uintptr_t b, size_t n, int t, int peer, uintptr_t c, uintptr_t st) {
	return QDN(api, Send)((const void *)b, n, t, peer, (void *)c, (void *)st);
}
static inline int qd_nccl_recv(const struct qd_nccl *api, uintptr_t b, size_t n, int t, int peer, uintptr_t c, uintptr_t st) {
	return QDN(api, Recv)((void *)b, n, t, peer, (void *)c, (void *)st);
}
static inline int qd_nccl_group_start(const struct qd_nccl *api) { return QDN(api, GroupStart)(); }
static inline int qd_nccl_group_end(const struct qd_nccl *api) { return QDN(api, GroupEnd)(); }
#endif
