// Test infrastructure only: the few CUDA device functions emitted HIP
// source uses, defined for the host, so that a module compiles as ordinary
// C++ (through the prelude's CUDA branch) and its kernels run one thread at
// a time under the undefined-behaviour sanitizer.
#define __CUDACC__ 1
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__

struct qd_dim3 {
	unsigned x, y, z;
};
static qd_dim3 threadIdx, blockIdx, blockDim, gridDim;

static inline float __uint_as_float(unsigned x) {
	float f;
	memcpy(&f, &x, sizeof f);
	return f;
}
static inline unsigned __float_as_uint(float f) {
	unsigned x;
	memcpy(&x, &f, sizeof x);
	return x;
}
static inline double __longlong_as_double(long long x) {
	double f;
	memcpy(&f, &x, sizeof f);
	return f;
}
static inline long long __double_as_longlong(double f) {
	long long x;
	memcpy(&x, &f, sizeof x);
	return x;
}
static inline int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
static inline unsigned __umulhi(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x * y) >> 32); }
static inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
	return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline unsigned long long __brevll(unsigned long long x) {
	unsigned long long r = 0;
	for (int i = 0; i < 64; i++) r |= ((x >> i) & 1) << (63 - i);
	return r;
}
static inline unsigned __brev(unsigned x) { return (unsigned)(__brevll(x) >> 32); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
	unsigned long long bytes = (unsigned long long)y << 32 | x;
	unsigned r = 0;
	for (int i = 0; i < 4; i++) r |= (unsigned)(bytes >> 8 * ((s >> 4 * i) & 7) & 0xff) << 8 * i;
	return r;
}

// The atomic functions, for one thread: the host runs threads one at a
// time.
#define QD_HOST_ATOMIC(name, update)                  \
	template <typename T>                         \
	static inline T name(T *p, T v) {             \
		T old = *p;                           \
		*p = (update);                        \
		return old;                           \
	}
QD_HOST_ATOMIC(atomicAdd, old + v)
QD_HOST_ATOMIC(atomicMin, old < v ? old : v)
QD_HOST_ATOMIC(atomicMax, old > v ? old : v)
QD_HOST_ATOMIC(atomicAnd, old & v)
QD_HOST_ATOMIC(atomicOr, old | v)
QD_HOST_ATOMIC(atomicExch, v)
template <typename T>
static inline T atomicCAS(T *p, T compare, T v) {
	T old = *p;
	if (old == compare) *p = v;
	return old;
}
