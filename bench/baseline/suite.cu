// The kernels of bench/suite written in CUDA C: the same algorithms, the
// same types (Go's int is long long here), the same grid-stride loops and
// launch shape as qd's generated code, the same inputs. Built twice,
//   nvcc -O3 -arch=native -o suite bench/baseline/suite.cu
//   nvcc -O3 -arch=native --fmad=false -o suite-nofma bench/baseline/suite.cu
// it prints one line per kernel, "name median-ms checksum", that
// bench/qdsuite reads. The checksum is FNV-1a over the output of the first
// launch on fresh inputs; the time is the median of the launches after it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

typedef long long i64;
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

#define GRID_STRIDE(p, n)                                                        \
  for (i64 p = blockIdx.x * (i64)blockDim.x + threadIdx.x; p < (n);              \
       p += (i64)gridDim.x * blockDim.x)

__global__ void Stencil2D(float *out, const float *in, i64 n, i64 w, i64 h) {
  GRID_STRIDE(p, n) {
    i64 x = p % w, y = p / w;
    if (x > 0 && x < w - 1 && y > 0 && y < h - 1)
      out[p] = 0.5f * in[p] + 0.125f * (in[p - 1] + in[p + 1] + in[p - w] + in[p + w]);
    else
      out[p] = in[p];
  }
}

__global__ void Stencil3D(float *out, const float *in, i64 n, i64 w, i64 h, i64 d) {
  GRID_STRIDE(p, n) {
    i64 x = p % w, y = (p / w) % h, z = p / (w * h);
    if (x > 0 && x < w - 1 && y > 0 && y < h - 1 && z > 0 && z < d - 1) {
      i64 plane = w * h;
      out[p] = in[p - 1] + in[p + 1] + in[p - w] + in[p + w] + in[p - plane] + in[p + plane] - 6 * in[p];
    } else {
      out[p] = 0;
    }
  }
}

__global__ void Matmul(float *c, const float *a, const float *b, i64 n) {
  GRID_STRIDE(p, n * n) {
    i64 i = p / n, j = p % n;
    float sum = 0;
    for (i64 k = 0; k < n; k++) sum += a[i * n + k] * b[k * n + j];
    c[p] = sum;
  }
}

__global__ void Blur(u8 *out, const u8 *in, i64 n, i64 w, i64 h) {
  GRID_STRIDE(p, n) {
    i64 x = p % w, y = p / w;
    i64 sum = 0;
    for (i64 dy = -1; dy <= 1; dy++) {
      i64 yy = min(max(y + dy, 0LL), h - 1);
      for (i64 dx = -1; dx <= 1; dx++) {
        i64 xx = min(max(x + dx, 0LL), w - 1);
        sum += in[yy * w + xx];
      }
    }
    out[p] = (u8)(sum / 9);
  }
}

__global__ void DigitSum(i64 *out, const i64 *in, i64 n, i64 base) {
  GRID_STRIDE(i, n) {
    i64 x = in[i], s = 0;
    while (x > 0) {
      s += x % base;
      x /= base;
    }
    out[i] = s;
  }
}

__global__ void Options(float *out, const float *spot, i64 n, float strike) {
  GRID_STRIDE(i, n) {
    float s = spot[i], payoff = 0;
    for (i64 k = 0; k < 8; k++) {
      float price = s * (1 + (float)(k - 4) / 16);
      payoff += fmaxf(price - strike, 0);
    }
    out[i] = payoff / 8 * 0.95f / 3;
  }
}

__global__ void NBody(float *ax, float *ay, float *az, const float *px, const float *py,
                      const float *pz, i64 n, i64 m) {
  GRID_STRIDE(i, n) {
    float xi = px[i], yi = py[i], zi = pz[i], fx = 0, fy = 0, fz = 0;
    for (i64 j = 0; j < m; j++) {
      float dx = px[j] - xi, dy = py[j] - yi, dz = pz[j] - zi;
      float d2 = dx * dx + dy * dy + dz * dz + 0.01f;
      float inv = 1 / sqrtf(d2);
      float inv3 = inv * inv * inv;
      fx += dx * inv3;
      fy += dy * inv3;
      fz += dz * inv3;
    }
    ax[i] = fx, ay[i] = fy, az[i] = fz;
  }
}

__global__ void Mandelbrot64(int *counts, i64 n, i64 w, i64 h, int maxIter) {
  GRID_STRIDE(p, n) {
    double cx = -2.2 + 3.2 * (double)(p % w) / (double)w;
    double cy = -1.2 + 2.4 * (double)(p / w) / (double)h;
    double x = 0, y = 0;
    int k = 0;
    for (; k < maxIter; k++) {
      double x2 = x * x, y2 = y * y;
      if (x2 + y2 > 4) break;
      y = 2 * x * y + cy;
      x = x2 - y2 + cx;
    }
    counts[p] = k;
  }
}

__global__ void Mandelbrot32(int *counts, i64 n, i64 w, i64 h, int maxIter) {
  GRID_STRIDE(p, n) {
    float cx = -2.2f + 3.2f * (float)(p % w) / (float)w;
    float cy = -1.2f + 2.4f * (float)(p / w) / (float)h;
    float x = 0, y = 0;
    int k = 0;
    for (; k < maxIter; k++) {
      float x2 = x * x, y2 = y * y;
      if (x2 + y2 > 4) break;
      y = 2 * x * y + cy;
      x = x2 - y2 + cx;
    }
    counts[p] = k;
  }
}

__global__ void Xorshift(u32 *out, const u32 *seeds, i64 n, i64 rounds) {
  GRID_STRIDE(i, n) {
    u32 x = seeds[i] | 1;
    for (i64 r = 0; r < rounds; r++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
    }
    out[i] = x;
  }
}

__global__ void MatVec(float *y, const float *a, const float *x, i64 m, i64 n) {
  GRID_STRIDE(i, m) {
    float sum = 0;
    const float *row = a + i * n;
    for (i64 j = 0; j < n; j++) sum += row[j] * x[j];
    y[i] = sum;
  }
}

__global__ void Daxpy(double a, const double *x, double *y, i64 n) {
  GRID_STRIDE(i, n) { y[i] = a * x[i] + y[i]; }
}

__global__ void Hash(u64 *out, const u64 *keys, i64 n, i64 rounds) {
  GRID_STRIDE(i, n) {
    u64 h = keys[i];
    for (i64 r = 0; r < rounds; r++) {
      h += 0x9e3779b97f4a7c15ULL;
      h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ULL;
      h = (h ^ h >> 27) * 0x94d049bb133111ebULL;
      h ^= h >> 31;
    }
    out[i] = h;
  }
}

__global__ void Transpose(double *out, const double *in, i64 n, i64 w, i64 h) {
  GRID_STRIDE(p, n) {
    i64 r = p / h, c = p % h;
    out[p] = in[c * w + r];
  }
}

// ---- host side: inputs, launch shape, timing; bench/qdsuite mirrors it ----

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

static int sms, threadsPerSM, reps = 10;
static const char *only;

// grid is qd's launch shape: 256 threads a block, as many blocks as the
// iterations need, at most four waves of the device.
static dim3 grid(i64 count) {
  i64 full = (i64)sms * (std::max(threadsPerSM, 256) / 256) * 4;
  return dim3((unsigned)std::min((count + 255) / 256, full));
}

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

template <typename T> static std::vector<T> fill(size_t n, std::function<T(size_t)> f) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; i++) v[i] = f(i);
  return v;
}

int main(int argc, char **argv) {
  if (argc > 1) reps = atoi(argv[1]);
  if (argc > 2) only = argv[2];
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  threadsPerSM = prop.maxThreadsPerMultiProcessor;
  printf("device %s\n", prop.name);
  const dim3 B(256);
  {
    const i64 w = 4096, h = 4096, n = w * h;
    float *in = upload(fill<float>(n, [](size_t i) { return unit32(1, i); })), *out = zeros<float>(n);
    run("Stencil2D", [=] { Stencil2D<<<grid(n), B>>>(out, in, n, w, h); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const i64 w = 256, h = 256, d = 256, n = w * h * d;
    float *in = upload(fill<float>(n, [](size_t i) { return unit32(2, i); })), *out = zeros<float>(n);
    run("Stencil3D", [=] { Stencil3D<<<grid(n), B>>>(out, in, n, w, h, d); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const i64 n = 1024;
    float *a = upload(fill<float>(n * n, [](size_t i) { return unit32(3, i); }));
    float *b = upload(fill<float>(n * n, [](size_t i) { return unit32(4, i); }));
    float *c = zeros<float>(n * n);
    run("Matmul", [=] { Matmul<<<grid(n * n), B>>>(c, a, b, n); }, [=] { return fnv(c, n * n); });
    cudaFree(a), cudaFree(b), cudaFree(c);
  }
  {
    const i64 w = 4096, h = 4096, n = w * h;
    u8 *in = upload(fill<u8>(n, [](size_t i) { return (u8)rnd(5, i); })), *out = zeros<u8>(n);
    run("Blur", [=] { Blur<<<grid(n), B>>>(out, in, n, w, h); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const i64 n = 1 << 24;
    i64 *in = upload(fill<i64>(n, [](size_t i) { return (i64)(rnd(6, i) >> 24); })), *out = zeros<i64>(n);
    run("DigitSum", [=] { DigitSum<<<grid(n), B>>>(out, in, n, 10); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const i64 n = 1 << 24;
    float *spot = upload(fill<float>(n, [](size_t i) { return 50.0f + 100.0f * unit32(7, i); }));
    float *out = zeros<float>(n);
    run("Options", [=] { Options<<<grid(n), B>>>(out, spot, n, 100.0f); }, [=] { return fnv(out, n); });
    cudaFree(spot), cudaFree(out);
  }
  {
    const i64 n = 16384;
    float *px = upload(fill<float>(n, [](size_t i) { return unit32(8, i); }));
    float *py = upload(fill<float>(n, [](size_t i) { return unit32(9, i); }));
    float *pz = upload(fill<float>(n, [](size_t i) { return unit32(10, i); }));
    float *ax = zeros<float>(n), *ay = zeros<float>(n), *az = zeros<float>(n);
    run("NBody", [=] { NBody<<<grid(n), B>>>(ax, ay, az, px, py, pz, n, n); },
        [=] { return fnv(ax, n) ^ fnv(ay, n) * 3 ^ fnv(az, n) * 5; });
    cudaFree(px), cudaFree(py), cudaFree(pz), cudaFree(ax), cudaFree(ay), cudaFree(az);
  }
  {
    const i64 w = 2048, h = 2048, n = w * h;
    int *counts = zeros<int>(n);
    run("Mandelbrot64", [=] { Mandelbrot64<<<grid(n), B>>>(counts, n, w, h, 256); }, [=] { return fnv(counts, n); });
    run("Mandelbrot32", [=] { Mandelbrot32<<<grid(n), B>>>(counts, n, w, h, 256); }, [=] { return fnv(counts, n); });
    cudaFree(counts);
  }
  {
    const i64 n = 1 << 24;
    u32 *seeds = upload(fill<u32>(n, [](size_t i) { return (u32)rnd(11, i); })), *out = zeros<u32>(n);
    run("Xorshift", [=] { Xorshift<<<grid(n), B>>>(out, seeds, n, 256); }, [=] { return fnv(out, n); });
    cudaFree(seeds), cudaFree(out);
  }
  {
    const i64 m = 16384, n = 4096;
    float *a = upload(fill<float>(m * n, [](size_t i) { return unit32(12, i); }));
    float *x = upload(fill<float>(n, [](size_t i) { return unit32(13, i); }));
    float *y = zeros<float>(m);
    run("MatVec", [=] { MatVec<<<grid(m), B>>>(y, a, x, m, n); }, [=] { return fnv(y, m); });
    cudaFree(a), cudaFree(x), cudaFree(y);
  }
  {
    const i64 n = 1 << 25;
    double *x = upload(fill<double>(n, [](size_t i) { return unit64(14, i); }));
    double *y = upload(fill<double>(n, [](size_t i) { return unit64(15, i); }));
    run("Daxpy", [=] { Daxpy<<<grid(n), B>>>(2.5, x, y, n); }, [=] { return fnv(y, n); });
    cudaFree(x), cudaFree(y);
  }
  {
    const i64 n = 1 << 24;
    u64 *keys = upload(fill<u64>(n, [](size_t i) { return rnd(16, i); })), *out = zeros<u64>(n);
    run("Hash", [=] { Hash<<<grid(n), B>>>(out, keys, n, 16); }, [=] { return fnv(out, n); });
    cudaFree(keys), cudaFree(out);
  }
  {
    const i64 w = 4096, h = 4096, n = w * h;
    double *in = upload(fill<double>(n, [](size_t i) { return unit64(17, i); })), *out = zeros<double>(n);
    run("Transpose", [=] { Transpose<<<grid(n), B>>>(out, in, n, w, h); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  return 0;
}
