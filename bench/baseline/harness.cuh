// The host side shared by bench/baseline's suites (suite.cu, nests.cu):
// the inputs, drawn as bench/suite draws them, the launch shapes, the
// checksums and the timing that bench/qdsuite reads. Each suite prints one
// line per kernel, "name median-ms checksum": the checksum is FNV-1a over
// the output of the first launch on fresh inputs, the time the median of
// the launches after it.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

typedef long long i64;
typedef int i32;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
              cudaGetErrorString(err_));                                         \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)


static u64 mix(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
  return x ^ x >> 31;
}
static u64 rnd(u64 seed, u64 i) { return mix(seed << 32 ^ i); }
static float unit32(u64 seed, u64 i) { return (float)(rnd(seed, i) >> 40) * 0x1p-24f; }
static double unit64(u64 seed, u64 i) { return (double)(rnd(seed, i) >> 11) * 0x1p-53; }

template <typename T> static T *upload(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T> static T *zeros(size_t n) {
  T *d;
  CHECK(cudaMalloc(&d, n * sizeof(T)));
  CHECK(cudaMemset(d, 0, n * sizeof(T)));
  return d;
}
template <typename T> static u64 fnv(const T *d, size_t n) {
  std::vector<unsigned char> h(n * sizeof(T));
  CHECK(cudaMemcpy(h.data(), d, h.size(), cudaMemcpyDeviceToHost));
  u64 s = 0xcbf29ce484222325ULL;
  for (unsigned char c : h) s = (s ^ c) * 0x100000001b3ULL;
  return s;
}
template <typename T> static std::vector<T> fill(size_t n, std::function<T(size_t)> f) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; i++) v[i] = f(i);
  return v;
}

static int reps = 10;
static const char *only;

// The launch shapes a CUDA programmer writes: one thread per element, 256
// threads a block in one dimension, 32×8 in two (x the fast index).
static const dim3 B1(256), B2(32, 8);
static dim3 grid1(int n) { return dim3((n + 255) / 256); }
static dim3 grid2(int w, int h, int d = 1) { return dim3((w + 31) / 32, (h + 7) / 8, d); }

// run launches once for the checksum, then reps times for the median.
static void run(const char *name, std::function<void()> launch, std::function<u64()> sum) {
  if (only && strcmp(only, name) != 0) return;
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  u64 check = sum();
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int r = 0; r < reps; r++) {
    CHECK(cudaEventRecord(e0));
    launch();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float t;
    CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  printf("%s %.4f %016llx\n", name, ms[ms.size() / 2], check);
  fflush(stdout);
}

// start reads the arguments (repetitions, one kernel's name) and prints
// the device.
static void start(int argc, char **argv) {
  if (argc > 1) reps = atoi(argv[1]);
  if (argc > 2) only = argv[2];
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s\n", prop.name);
}
