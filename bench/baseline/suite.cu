// The kernels of bench/suite written in CUDA C as a CUDA programmer writes
// them: 32-bit int indices, one thread per element, 2-D blocks for images
// and matrices, __restrict__ pointers; the same algorithms, element types
// and inputs as the Go functions. Built with
//   nvcc -O3 -arch=native --fmad=false -o suite bench/baseline/suite.cu
// (and without --fmad=false, for reference) it prints one line per kernel
// that bench/qdsuite reads (harness.cuh).
#include "harness.cuh"

// flat is the index of this thread in a one-dimensional launch.
__device__ __forceinline__ int flat() { return blockIdx.x * blockDim.x + threadIdx.x; }

__global__ void Stencil2D(float *__restrict__ out, const float *__restrict__ in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int p = y * w + x;
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1)
    out[p] = 0.5f * in[p] + 0.125f * (in[p - 1] + in[p + 1] + in[p - w] + in[p + w]);
  else
    out[p] = in[p];
}

__global__ void Stencil3D(float *__restrict__ out, const float *__restrict__ in, int w, int h, int d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x >= w || y >= h || z >= d) return;
  int plane = w * h, p = z * plane + y * w + x;
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1 && z > 0 && z < d - 1)
    out[p] = in[p - 1] + in[p + 1] + in[p - w] + in[p + w] + in[p - plane] + in[p + plane] - 6 * in[p];
  else
    out[p] = 0;
}

__global__ void Matmul(float *__restrict__ c, const float *__restrict__ a, const float *__restrict__ b, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float sum = 0;
  for (int k = 0; k < n; k++) sum += a[i * n + k] * b[k * n + j];
  c[i * n + j] = sum;
}

__global__ void Blur(u8 *__restrict__ out, const u8 *__restrict__ in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int sum = 0;
  for (int dy = -1; dy <= 1; dy++) {
    int yy = min(max(y + dy, 0), h - 1);
    for (int dx = -1; dx <= 1; dx++) {
      int xx = min(max(x + dx, 0), w - 1);
      sum += in[yy * w + xx];
    }
  }
  out[y * w + x] = (u8)(sum / 9);
}

// DigitSum's values are Go ints, 64 bits; only its index is an int.
__global__ void DigitSum(i64 *__restrict__ out, const i64 *__restrict__ in, int n, i64 base) {
  int i = flat();
  if (i >= n) return;
  i64 x = in[i], s = 0;
  while (x > 0) {
    s += x % base;
    x /= base;
  }
  out[i] = s;
}

__global__ void Options(float *__restrict__ out, const float *__restrict__ spot, int n, float strike) {
  int i = flat();
  if (i >= n) return;
  float s = spot[i], payoff = 0;
  for (int k = 0; k < 8; k++) {
    float price = s * (1 + (float)(k - 4) / 16);
    payoff += fmaxf(price - strike, 0);
  }
  out[i] = payoff / 8 * 0.95f / 3;
}

__global__ void NBody(float *__restrict__ ax, float *__restrict__ ay, float *__restrict__ az,
                      const float *__restrict__ px, const float *__restrict__ py,
                      const float *__restrict__ pz, int n) {
  int i = flat();
  if (i >= n) return;
  float xi = px[i], yi = py[i], zi = pz[i], fx = 0, fy = 0, fz = 0;
  for (int j = 0; j < n; j++) {
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

__global__ void Mandelbrot64(int *__restrict__ counts, int w, int h, int maxIter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  double cx = -2.2 + 3.2 * (double)px / (double)w;
  double cy = -1.2 + 2.4 * (double)py / (double)h;
  double x = 0, y = 0;
  int k = 0;
  for (; k < maxIter; k++) {
    double x2 = x * x, y2 = y * y;
    if (x2 + y2 > 4) break;
    y = 2 * x * y + cy;
    x = x2 - y2 + cx;
  }
  counts[py * w + px] = k;
}

__global__ void Mandelbrot32(int *__restrict__ counts, int w, int h, int maxIter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cx = -2.2f + 3.2f * (float)px / (float)w;
  float cy = -1.2f + 2.4f * (float)py / (float)h;
  float x = 0, y = 0;
  int k = 0;
  for (; k < maxIter; k++) {
    float x2 = x * x, y2 = y * y;
    if (x2 + y2 > 4) break;
    y = 2 * x * y + cy;
    x = x2 - y2 + cx;
  }
  counts[py * w + px] = k;
}

__global__ void Xorshift(u32 *__restrict__ out, const u32 *__restrict__ seeds, int n, int rounds) {
  int i = flat();
  if (i >= n) return;
  u32 x = seeds[i] | 1;
  for (int r = 0; r < rounds; r++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
  }
  out[i] = x;
}

__global__ void MatVec(float *__restrict__ y, const float *__restrict__ a, const float *__restrict__ x, int m, int n) {
  int i = flat();
  if (i >= m) return;
  float sum = 0;
  const float *row = a + i * n;
  for (int j = 0; j < n; j++) sum += row[j] * x[j];
  y[i] = sum;
}

__global__ void Daxpy(double a, const double *__restrict__ x, double *__restrict__ y, int n) {
  int i = flat();
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void Hash(u64 *__restrict__ out, const u64 *__restrict__ keys, int n, int rounds) {
  int i = flat();
  if (i >= n) return;
  u64 h = keys[i];
  for (int r = 0; r < rounds; r++) {
    h += 0x9e3779b97f4a7c15ULL;
    h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ h >> 27) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
  }
  out[i] = h;
}

// Transpose: out is w rows of h; thread (c, r) writes out[r][c] = in[c][r].
__global__ void Transpose(double *__restrict__ out, const double *__restrict__ in, int w, int h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= h || r >= w) return;
  out[r * h + c] = in[c * w + r];
}

int main(int argc, char **argv) {
  start(argc, argv);
  {
    const int w = 4096, h = 4096, n = w * h;
    float *in = upload(fill<float>(n, [](size_t i) { return unit32(1, i); })), *out = zeros<float>(n);
    run("Stencil2D", [=] { Stencil2D<<<grid2(w, h), B2>>>(out, in, w, h); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const int w = 256, h = 256, d = 256, n = w * h * d;
    float *in = upload(fill<float>(n, [](size_t i) { return unit32(2, i); })), *out = zeros<float>(n);
    run("Stencil3D", [=] { Stencil3D<<<grid2(w, h, d), B2>>>(out, in, w, h, d); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const int n = 1024;
    float *a = upload(fill<float>(n * n, [](size_t i) { return unit32(3, i); }));
    float *b = upload(fill<float>(n * n, [](size_t i) { return unit32(4, i); }));
    float *c = zeros<float>(n * n);
    run("Matmul", [=] { Matmul<<<grid2(n, n), B2>>>(c, a, b, n); }, [=] { return fnv(c, n * n); });
    cudaFree(a), cudaFree(b), cudaFree(c);
  }
  {
    const int w = 4096, h = 4096, n = w * h;
    u8 *in = upload(fill<u8>(n, [](size_t i) { return (u8)rnd(5, i); })), *out = zeros<u8>(n);
    run("Blur", [=] { Blur<<<grid2(w, h), B2>>>(out, in, w, h); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const int n = 1 << 24;
    i64 *in = upload(fill<i64>(n, [](size_t i) { return (i64)(rnd(6, i) >> 24); })), *out = zeros<i64>(n);
    run("DigitSum", [=] { DigitSum<<<grid1(n), B1>>>(out, in, n, 10); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  {
    const int n = 1 << 24;
    float *spot = upload(fill<float>(n, [](size_t i) { return 50.0f + 100.0f * unit32(7, i); }));
    float *out = zeros<float>(n);
    run("Options", [=] { Options<<<grid1(n), B1>>>(out, spot, n, 100.0f); }, [=] { return fnv(out, n); });
    cudaFree(spot), cudaFree(out);
  }
  {
    const int n = 16384;
    float *px = upload(fill<float>(n, [](size_t i) { return unit32(8, i); }));
    float *py = upload(fill<float>(n, [](size_t i) { return unit32(9, i); }));
    float *pz = upload(fill<float>(n, [](size_t i) { return unit32(10, i); }));
    float *ax = zeros<float>(n), *ay = zeros<float>(n), *az = zeros<float>(n);
    run("NBody", [=] { NBody<<<grid1(n), B1>>>(ax, ay, az, px, py, pz, n); },
        [=] { return fnv(ax, n) ^ fnv(ay, n) * 3 ^ fnv(az, n) * 5; });
    cudaFree(px), cudaFree(py), cudaFree(pz), cudaFree(ax), cudaFree(ay), cudaFree(az);
  }
  {
    const int w = 2048, h = 2048, n = w * h;
    int *counts = zeros<int>(n);
    run("Mandelbrot64", [=] { Mandelbrot64<<<grid2(w, h), B2>>>(counts, w, h, 256); }, [=] { return fnv(counts, n); });
    run("Mandelbrot32", [=] { Mandelbrot32<<<grid2(w, h), B2>>>(counts, w, h, 256); }, [=] { return fnv(counts, n); });
    cudaFree(counts);
  }
  {
    const int n = 1 << 24;
    u32 *seeds = upload(fill<u32>(n, [](size_t i) { return (u32)rnd(11, i); })), *out = zeros<u32>(n);
    run("Xorshift", [=] { Xorshift<<<grid1(n), B1>>>(out, seeds, n, 256); }, [=] { return fnv(out, n); });
    cudaFree(seeds), cudaFree(out);
  }
  {
    const int m = 16384, n = 4096;
    float *a = upload(fill<float>((size_t)m * n, [](size_t i) { return unit32(12, i); }));
    float *x = upload(fill<float>(n, [](size_t i) { return unit32(13, i); }));
    float *y = zeros<float>(m);
    run("MatVec", [=] { MatVec<<<grid1(m), B1>>>(y, a, x, m, n); }, [=] { return fnv(y, m); });
    cudaFree(a), cudaFree(x), cudaFree(y);
  }
  {
    const int n = 1 << 25;
    double *x = upload(fill<double>(n, [](size_t i) { return unit64(14, i); }));
    double *y = upload(fill<double>(n, [](size_t i) { return unit64(15, i); }));
    run("Daxpy", [=] { Daxpy<<<grid1(n), B1>>>(2.5, x, y, n); }, [=] { return fnv(y, n); });
    cudaFree(x), cudaFree(y);
  }
  {
    const int n = 1 << 24;
    u64 *keys = upload(fill<u64>(n, [](size_t i) { return rnd(16, i); })), *out = zeros<u64>(n);
    run("Hash", [=] { Hash<<<grid1(n), B1>>>(out, keys, n, 16); }, [=] { return fnv(out, n); });
    cudaFree(keys), cudaFree(out);
  }
  {
    const int w = 4096, h = 4096, n = w * h;
    double *in = upload(fill<double>(n, [](size_t i) { return unit64(17, i); })), *out = zeros<double>(n);
    run("Transpose", [=] { Transpose<<<grid2(h, w), B2>>>(out, in, w, h); }, [=] { return fnv(out, n); });
    cudaFree(in), cudaFree(out);
  }
  return 0;
}
