// The loop nests of bench/suite/nests.go written in CUDA C as a CUDA
// programmer writes them: each (row, column) of the Go nest is a thread of
// a 2-D grid (x the column), indices are 32-bit ints, pointers
// __restrict__; the same algorithms, element types and inputs. Built with
//   nvcc -O3 -arch=native --fmad=false -o nests bench/baseline/nests.cu
// it prints one line per kernel that bench/qdsuite reads (harness.cuh).
#include "harness.cuh"

#define COLUMN (int)(blockIdx.x * blockDim.x + threadIdx.x)
#define ROW (int)(blockIdx.y * blockDim.y + threadIdx.y)

__global__ void Conv2D(float *__restrict__ b, const float *__restrict__ a, int w, int h) {
  int x = COLUMN, y = ROW;
  if (y < 1 || y >= h - 1 || x < 1 || x >= w - 1) return;
  b[y * w + x] = 0.2f * a[(y - 1) * w + x - 1] + 0.5f * a[(y - 1) * w + x] - 0.8f * a[(y - 1) * w + x + 1] -
                 0.3f * a[y * w + x - 1] + 0.6f * a[y * w + x] - 0.9f * a[y * w + x + 1] +
                 0.4f * a[(y + 1) * w + x - 1] + 0.7f * a[(y + 1) * w + x] + 0.1f * a[(y + 1) * w + x + 1];
}

__global__ void Conv3D(float *__restrict__ b, const float *__restrict__ a, int w, int h, int d) {
  int x = COLUMN, y = ROW, z = blockIdx.z;
  if (z < 1 || z >= d - 1 || y < 1 || y >= h - 1 || x < 1 || x >= w - 1) return;
  b[(z * h + y) * w + x] = 2 * a[((z - 1) * h + y - 1) * w + x - 1] + 4 * a[((z + 1) * h + y - 1) * w + x - 1] +
                           5 * a[((z - 1) * h + y - 1) * w + x] + 7 * a[((z + 1) * h + y - 1) * w + x] -
                           8 * a[((z - 1) * h + y - 1) * w + x + 1] + 10 * a[((z + 1) * h + y - 1) * w + x + 1] -
                           3 * a[(z * h + y - 1) * w + x] + 6 * a[(z * h + y) * w + x] - 9 * a[(z * h + y + 1) * w + x] +
                           2 * a[((z - 1) * h + y) * w + x + 1] + 4 * a[((z + 1) * h + y + 1) * w + x + 1];
}

__global__ void Stencil5(float *__restrict__ out, const float *__restrict__ in, int w, int h) {
  int x = COLUMN, y = ROW;
  if (y < 1 || y >= h - 1 || x < 1 || x >= w - 1) return;
  float c = in[y * w + x];
  out[y * w + x] = c + 0.2f * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x] - 4 * c);
}

__global__ void Stencil9(float *__restrict__ out, const float *__restrict__ in, int w, int h) {
  int x = COLUMN, y = ROW;
  if (y < 1 || y >= h - 1 || x < 1 || x >= w - 1) return;
  float corners = in[(y - 1) * w + x - 1] + in[(y - 1) * w + x + 1] + in[(y + 1) * w + x - 1] + in[(y + 1) * w + x + 1];
  float edges = in[(y - 1) * w + x] + in[y * w + x - 1] + in[y * w + x + 1] + in[(y + 1) * w + x];
  out[y * w + x] = (corners + 2 * edges + 4 * in[y * w + x]) / 16;
}

__global__ void JacobiStep(float *__restrict__ b, const float *__restrict__ a, int n) {
  int j = COLUMN, i = ROW;
  if (i < 1 || i >= n - 1 || j < 1 || j >= n - 1) return;
  b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] + a[(i + 1) * n + j] + a[(i - 1) * n + j]);
}

__global__ void JacobiCopy(float *__restrict__ a, const float *__restrict__ b, int n) {
  int j = COLUMN, i = ROW;
  if (i < 1 || i >= n - 1 || j < 1 || j >= n - 1) return;
  a[i * n + j] = b[i * n + j];
}

__global__ void FDTDEy(float *__restrict__ ey, const float *__restrict__ hz, int nx, int ny, float source) {
  int j = COLUMN, i = ROW;
  if (i >= nx || j >= ny) return;
  if (i == 0)
    ey[j] = source;
  else
    ey[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
}

__global__ void FDTDEx(float *__restrict__ ex, const float *__restrict__ hz, int nx, int ny) {
  int j = COLUMN, i = ROW;
  if (i >= nx || j < 1 || j >= ny) return;
  ex[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
}

__global__ void FDTDHz(float *__restrict__ hz, const float *__restrict__ ex, const float *__restrict__ ey, int nx, int ny) {
  int j = COLUMN, i = ROW;
  if (i >= nx - 1 || j >= ny - 1) return;
  hz[i * ny + j] -= 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}

__global__ void MatmulAcc(float *__restrict__ c, const float *__restrict__ a, const float *__restrict__ b, int n) {
  int j = COLUMN, i = ROW;
  if (i >= n || j >= n) return;
  for (int k = 0; k < n; k++) c[i * n + j] += a[i * n + k] * b[k * n + j];
}

__global__ void Gemm(float *__restrict__ c, const float *__restrict__ a, const float *__restrict__ b, int n, float alpha,
                     float beta) {
  int j = COLUMN, i = ROW;
  if (i >= n || j >= n) return;
  c[i * n + j] *= beta;
  for (int k = 0; k < n; k++) c[i * n + j] += alpha * a[i * n + k] * b[k * n + j];
}

__global__ void TriMul(float *__restrict__ c, const float *__restrict__ l, const float *__restrict__ b, int n) {
  int j = COLUMN, i = ROW;
  if (i >= n || j >= n) return;
  float sum = 0;
  for (int k = 0; k <= i; k++) sum += l[i * n + k] * b[k * n + j];
  c[i * n + j] = sum;
}

__global__ void SymvLower(float *__restrict__ y, const float *__restrict__ a, const float *__restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0;
  for (int j = 0; j < n; j++) sum += a[max(i, j) * n + min(i, j)] * x[j];
  y[i] = sum;
}

__global__ void SyrkLower(float *__restrict__ c, const float *__restrict__ a, int n, int m, float alpha, float beta) {
  int j = COLUMN, i = ROW;
  if (i >= n || j > i) return;
  c[i * n + j] *= beta;
  for (int k = 0; k < m; k++) c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
}

__device__ float colNorm(const float *__restrict__ a, int k, int rows, int cols) {
  float sum = 0;
  for (int i = 0; i < rows; i++) sum += a[i * cols + k] * a[i * cols + k];
  return sqrtf(sum);
}

__global__ void ColNorm(float *__restrict__ r, const float *__restrict__ a, int k, int rows, int cols) {
  r[k * cols + k] = colNorm(a, k, rows, cols);
}

__global__ void ColNorms(float *__restrict__ norms, const float *__restrict__ a, int rows, int cols) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < cols) norms[k] = colNorm(a, k, rows, cols);
}

int main(int argc, char **argv) {
  start(argc, argv);
  {
    const int w = 4096, h = 4096, n = w * h;
    float *a = upload(fill<float>(n, [](size_t i) { return unit32(21, i); })), *b = zeros<float>(n);
    run("Conv2D", [=] { Conv2D<<<grid2(w, h), B2>>>(b, a, w, h); }, [=] { return fnv(b, n); });
    run("Stencil5", [=] { Stencil5<<<grid2(w, h), B2>>>(b, a, w, h); }, [=] { return fnv(b, n); });
    run("Stencil9", [=] { Stencil9<<<grid2(w, h), B2>>>(b, a, w, h); }, [=] { return fnv(b, n); });
    cudaFree(a), cudaFree(b);
  }
  {
    const int w = 256, h = 256, d = 256, n = w * h * d;
    float *a = upload(fill<float>(n, [](size_t i) { return unit32(22, i); })), *b = zeros<float>(n);
    run("Conv3D", [=] { Conv3D<<<grid2(w, h, d), B2>>>(b, a, w, h, d); }, [=] { return fnv(b, n); });
    cudaFree(a), cudaFree(b);
  }
  {
    const int n = 4096;
    float *a = upload(fill<float>(n * n, [](size_t i) { return unit32(23, i); })), *b = zeros<float>(n * n);
    run("Jacobi2D", [=] {
      JacobiStep<<<grid2(n, n), B2>>>(b, a, n);
      JacobiCopy<<<grid2(n, n), B2>>>(a, b, n);
    }, [=] { return fnv(a, n * n) ^ fnv(b, n * n) * 3; });
    cudaFree(a), cudaFree(b);
  }
  {
    const int nx = 4096, ny = 4096, n = nx * ny;
    float *ex = upload(fill<float>(n, [](size_t i) { return unit32(24, i); }));
    float *ey = upload(fill<float>(n, [](size_t i) { return unit32(25, i); }));
    float *hz = upload(fill<float>(n, [](size_t i) { return unit32(26, i); }));
    run("FDTD2D", [=] {
      FDTDEy<<<grid2(ny, nx), B2>>>(ey, hz, nx, ny, 0.25f);
      FDTDEx<<<grid2(ny, nx), B2>>>(ex, hz, nx, ny);
      FDTDHz<<<grid2(ny, nx), B2>>>(hz, ex, ey, nx, ny);
    }, [=] { return fnv(ex, n) ^ fnv(ey, n) * 3 ^ fnv(hz, n) * 5; });
    cudaFree(ex), cudaFree(ey), cudaFree(hz);
  }
  {
    const int n = 1024;
    float *a = upload(fill<float>(n * n, [](size_t i) { return unit32(27, i); }));
    float *b = upload(fill<float>(n * n, [](size_t i) { return unit32(28, i); }));
    // Each product sums into its own copy of the same c.
    auto c0 = fill<float>(n * n, [](size_t i) { return unit32(29, i); });
    float *c1 = upload(c0), *c2 = upload(c0), *c3 = zeros<float>(n * n), *c4 = upload(c0);
    run("MatmulAcc", [=] { MatmulAcc<<<grid2(n, n), B2>>>(c1, a, b, n); }, [=] { return fnv(c1, n * n); });
    run("Gemm", [=] { Gemm<<<grid2(n, n), B2>>>(c2, a, b, n, 1.5f, 0.5f); }, [=] { return fnv(c2, n * n); });
    run("TriMul", [=] { TriMul<<<grid2(n, n), B2>>>(c3, a, b, n); }, [=] { return fnv(c3, n * n); });
    run("SyrkLower", [=] { SyrkLower<<<grid2(n, n), B2>>>(c4, a, n, n, 1.5f, 0.5f); }, [=] { return fnv(c4, n * n); });
    cudaFree(a), cudaFree(b), cudaFree(c1), cudaFree(c2), cudaFree(c3), cudaFree(c4);
  }
  {
    const int n = 8192;
    float *a = upload(fill<float>((size_t)n * n, [](size_t i) { return unit32(30, i); }));
    float *x = upload(fill<float>(n, [](size_t i) { return unit32(31, i); })), *y = zeros<float>(n);
    run("SymvLower", [=] { SymvLower<<<grid1(n), B1>>>(y, a, x, n); }, [=] { return fnv(y, n); });
    cudaFree(a), cudaFree(x), cudaFree(y);
  }
  {
    const int rows = 4096, cols = 4096;
    float *a = upload(fill<float>(rows * cols, [](size_t i) { return unit32(32, i); }));
    float *r = zeros<float>(rows * cols), *norms = zeros<float>(cols);
    run("ColNorm", [=] { ColNorm<<<1, 1>>>(r, a, 7, rows, cols); }, [=] { return fnv(r, rows * cols); });
    run("ColNorms", [=] { ColNorms<<<grid1(cols), B1>>>(norms, a, rows, cols); }, [=] { return fnv(norms, cols); });
    cudaFree(a), cudaFree(r), cudaFree(norms);
  }
  return 0;
}
