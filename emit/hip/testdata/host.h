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
