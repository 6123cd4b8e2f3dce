// The block-level examples (example/sgemm, transpose, scan, stencil,
// histogram) written in CUDA C with the same algorithms and tilings, and
// the library baselines beside them: cuBLAS SGEMM, a device-to-device copy
// and CUB's DeviceScan::InclusiveSum. Each prints "name median-ms
// checksum" (harness.cuh); bench/blocks reads them. The sizes are those
// bench/blocks runs the examples with.
//
//	nvcc -O3 -arch=native --fmad=false -o blocks blocks.cu -lcublas
//	./blocks [reps [name]]
#include <cub/cub.cuh>
#include <cublas_v2.h>

#include "../baseline/harness.cuh"

#define CUBLAS(call)                                                           \
  do {                                                                         \
    cublasStatus_t st_ = (call);                                               \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                        \
      fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #call,     \
              (int)st_);                                                       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static const int sgemmN = 4096;        // sgemm: n×n times n×n
static const int transposeN = 8192;    // transpose: n×n
static const int scanN = 1 << 28;      // scan: n int32
static const int stencilN = 8192;      // stencil: n×n
static const int histN = 1 << 28;      // histogram: n bytes
static const int histBlocks = 1024;    // histogram: blocks of 256 threads

// ---- SGEMM: 128×128 tiles of c per block, 8-deep slabs of a and b in
// shared memory, two of each: while the threads sum from one slab, each
// holds its share of the next in registers and stores it into the other
// after the sums, one barrier per slab. 16×16 threads, 8×8 sums per
// thread at rows 4ty…4ty+3 and 64+4ty…, columns likewise with tx: runs of
// four that nvcc reads with one 16-byte shared load.
#define TILE 128
#define DEPTH 8
#define PER 8
#define RUN 4
#define SIDE (TILE / PER)
#define THREADS (SIDE * SIDE)

__global__ void __launch_bounds__(THREADS)
    sgemm_tiled(const float *__restrict__ a, const float *__restrict__ b,
                float *__restrict__ c, int m, int n, int k) {
  __shared__ float as[2][DEPTH][TILE + 4];
  __shared__ float bs[2][DEPTH][TILE];
  float acc[PER][PER];
#pragma unroll
  for (int i = 0; i < PER; i++)
#pragma unroll
    for (int j = 0; j < PER; j++) acc[i][j] = 0;
  int tx = threadIdx.x, ty = threadIdx.y, t = ty * SIDE + tx;
  int by = blockIdx.y, bx = blockIdx.x;
  int ar = t / 2, ac = t % 2 * RUN, br = t / 32, bc = t % 32 * RUN;
#pragma unroll
  for (int q = 0; q < RUN; q++) {
    as[0][ac + q][ar] = a[(by * TILE + ar) * k + ac + q];
    bs[0][br][bc + q] = b[br * n + bx * TILE + bc + q];
  }
  __syncthreads();
  int slabs = k / DEPTH;
  for (int s = 0; s < slabs; s++) {
    // The last slab loads itself again, into the slab no thread reads.
    int cur = s % 2, nxt = min(s + 1, slabs - 1);
    float na[RUN], nb[RUN];
#pragma unroll
    for (int q = 0; q < RUN; q++) {
      na[q] = a[(by * TILE + ar) * k + nxt * DEPTH + ac + q];
      nb[q] = b[(nxt * DEPTH + br) * n + bx * TILE + bc + q];
    }
#pragma unroll
    for (int kk = 0; kk < DEPTH; kk++) {
      float ra[PER], rb[PER];
#pragma unroll
      for (int i = 0; i < RUN; i++) {
        ra[i] = as[cur][kk][ty * RUN + i];
        ra[RUN + i] = as[cur][kk][TILE / 2 + ty * RUN + i];
        rb[i] = bs[cur][kk][tx * RUN + i];
        rb[RUN + i] = bs[cur][kk][TILE / 2 + tx * RUN + i];
      }
#pragma unroll
      for (int i = 0; i < PER; i++)
#pragma unroll
        for (int j = 0; j < PER; j++) acc[i][j] += ra[i] * rb[j];
    }
#pragma unroll
    for (int q = 0; q < RUN; q++) {
      as[1 - cur][ac + q][ar] = na[q];
      bs[1 - cur][br][bc + q] = nb[q];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < PER; i++)
#pragma unroll
    for (int j = 0; j < PER; j++) {
      int row = i / RUN * (TILE / 2) + ty * RUN + i % RUN, col = j / RUN * (TILE / 2) + tx * RUN + j % RUN;
      c[(by * TILE + row) * n + bx * TILE + col] = acc[i][j];
    }
}

static void sgemm() {
  int n = sgemmN;
  size_t nn = (size_t)n * n;
  float *a = upload(fill<float>(nn, [](size_t i) { return 2 * unit32(1, i) - 1; }));
  float *b = upload(fill<float>(nn, [](size_t i) { return 2 * unit32(2, i) - 1; }));
  float *c = zeros<float>(nn);
  run("sgemm_tiled", [&] { sgemm_tiled<<<dim3(n / TILE, n / TILE), dim3(SIDE, SIDE)>>>(a, b, c, n, n, n); },
      [&] { return fnv(c, nn); });

  // cuBLAS is column-major: c (row-major) = a·b is cᵀ = bᵀ·aᵀ there.
  cublasHandle_t h;
  CUBLAS(cublasCreate(&h));
  const float one = 1, zero = 0;
  auto gemm = [&] { CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n)); };
  CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); // fp32, no TF32 tensor cores
  run("sgemm_cublas", gemm, [&] { return fnv(c, nn); });
  CUBLAS(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  run("sgemm_cublas_pedantic", gemm, [&] { return fnv(c, nn); });
  CUBLAS(cublasDestroy(h));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
}

// ---- Transpose: 64×64 tiles through a 64×65 shared tile, 32×8 threads,
// each moving 16 elements.
__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out,
                                int height, int width) {
  __shared__ float tile[64][65];
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int j = 0; j < 64; j += 8)
#pragma unroll
    for (int i = 0; i < 64; i += 32) {
      int y = by * 64 + ty + j, x = bx * 64 + tx + i;
      if (y < height && x < width) tile[ty + j][tx + i] = in[y * width + x];
    }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 64; j += 8)
#pragma unroll
    for (int i = 0; i < 64; i += 32) {
      int y = bx * 64 + ty + j, x = by * 64 + tx + i;
      if (y < width && x < height) out[y * height + x] = tile[tx + i][ty + j];
    }
}

static void transpose() {
  int n = transposeN;
  size_t nn = (size_t)n * n;
  float *in = upload(fill<float>(nn, [](size_t i) { return unit32(3, i); }));
  float *out = zeros<float>(nn);
  run("transpose_tiled",
      [&] { transpose_tiled<<<dim3((n + 63) / 64, (n + 63) / 64), dim3(32, 8)>>>(in, out, n, n); },
      [&] { return fnv(out, nn); });
  run("copy_d2d", [&] { CHECK(cudaMemcpy(out, in, nn * sizeof(float), cudaMemcpyDeviceToDevice)); },
      [&] { return fnv(out, nn); });
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

// ---- Scan: reduce-then-scan over tiles of 256 threads × 16 elements.
// Unsigned, so that sums wrap as Go's int32 sums do; the bits are int32's.
#define ST 256
#define SI 16
#define STILE (ST * SI)

__global__ void tile_sums(const u32 *__restrict__ x, u32 *__restrict__ sums, int n) {
  typedef cub::BlockReduce<u32, ST> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  int b = blockIdx.x, t = threadIdx.x;
  u32 s = 0;
#pragma unroll
  for (int i = 0; i < SI; i++) {
    int j = b * STILE + i * ST + t;
    if (j < n) s += x[j];
  }
  s = Reduce(tmp).Sum(s);
  if (t == 0) sums[b] = s;
}

// at spreads each thread's run of SI elements by one, against bank conflicts.
__device__ __forceinline__ int at(int j) { return j + j / SI; }

__global__ void scan_tiles(const u32 *__restrict__ x, u32 *__restrict__ y,
                           const u32 *__restrict__ scanned, int n) {
  typedef cub::BlockScan<u32, ST> Scan;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ u32 v[STILE + STILE / SI];
  __shared__ u32 part[ST];
  int b = blockIdx.x, t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < SI; i++) {
    int j = i * ST + t;
    v[at(j)] = b * STILE + j < n ? x[b * STILE + j] : 0;
  }
  __syncthreads();
  u32 s = 0;
#pragma unroll
  for (int i = 0; i < SI; i++) {
    s += v[at(t * SI + i)];
    v[at(t * SI + i)] = s;
  }
  u32 before;
  Scan(tmp).ExclusiveSum(s, before);
  part[t] = before;
  __syncthreads();
  u32 offset = b > 0 ? scanned[b - 1] : 0;
#pragma unroll
  for (int i = 0; i < SI; i++) {
    int j = i * ST + t;
    if (b * STILE + j < n) y[b * STILE + j] = v[at(j)] + part[j / SI] + offset;
  }
}

// prefix_sum is example/scan's prefixSum: the tiles' sums, their prefix
// sum one level down, then every tile scanned.
static void prefix_sum(const u32 *x, u32 *y, int n, u32 **sums, u32 **scanned) {
  int tiles = (n + STILE - 1) / STILE;
  if (tiles > 1) {
    tile_sums<<<tiles, ST>>>(x, sums[0], n);
    prefix_sum(sums[0], scanned[0], tiles, sums + 1, scanned + 1);
  }
  scan_tiles<<<tiles, ST>>>(x, y, scanned[0], n);
}

static void scan() {
  int n = scanN;
  std::vector<u32> hx = fill<u32>(n, [](size_t i) { return (u32)rnd(4, i); });
  u32 *x = upload(hx);
  u32 *y = zeros<u32>(n);
  u32 *sums[8], *scanned[8];
  for (int m = n, l = 0; l < 8; l++) {
    m = (m + STILE - 1) / STILE;
    sums[l] = zeros<u32>(m > 0 ? m : 1);
    scanned[l] = zeros<u32>(m > 0 ? m : 1);
  }
  auto check = [&] {
    std::vector<u32> hy(n);
    CHECK(cudaMemcpy(hy.data(), y, n * sizeof(u32), cudaMemcpyDeviceToHost));
    u32 s = 0;
    for (int i = 0; i < n; i++) {
      s += hx[i];
      if (hy[i] != s) {
        fprintf(stderr, "scan: y[%d] = %u, want %u\n", i, hy[i], s);
        exit(1);
      }
    }
    return fnv(y, n);
  };
  run("scan_tiles", [&] { prefix_sum(x, y, n, sums, scanned); }, check);

  size_t bytes = 0;
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, x, y, n));
  void *temp;
  CHECK(cudaMalloc(&temp, bytes));
  run("scan_cub", [&] { CHECK(cub::DeviceScan::InclusiveSum(temp, bytes, x, y, n)); }, check);
  CHECK(cudaFree(temp));
  for (int l = 0; l < 8; l++) {
    CHECK(cudaFree(sums[l]));
    CHECK(cudaFree(scanned[l]));
  }
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
}

// ---- Stencil: 5 points, 32×32 tiles and their halo in shared memory,
// 32×8 threads; and the flat version, one thread per point.
__device__ __forceinline__ float point(float c, float n, float s, float w, float e) {
  return 0.5f * c + 0.125f * (n + s + w + e);
}

__global__ void stencil_halo(const float *__restrict__ in, float *__restrict__ out, int nx, int ny) {
  const int wide = 34;
  __shared__ float tile[wide][wide];
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  for (int e = ty * 32 + tx; e < wide * wide; e += 256) {
    int r = e / wide, c = e % wide;
    int y = by * 32 - 1 + r, x = bx * 32 - 1 + c;
    if (y >= 0 && y < ny && x >= 0 && x < nx) tile[r][c] = in[y * nx + x];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 32; j += 8) {
    int y = by * 32 + ty + j, x = bx * 32 + tx;
    if (y >= 1 && y < ny - 1 && x >= 1 && x < nx - 1) {
      int r = ty + j + 1, c = tx + 1;
      out[y * nx + x] = point(tile[r][c], tile[r - 1][c], tile[r + 1][c], tile[r][c - 1], tile[r][c + 1]);
    }
  }
}

__global__ void stencil_flat(const float *__restrict__ in, float *__restrict__ out, int nx, int ny) {
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
  if (y >= 1 && y < ny - 1 && x >= 1 && x < nx - 1) {
    int i = y * nx + x;
    out[i] = point(in[i], in[i - nx], in[i + nx], in[i - 1], in[i + 1]);
  }
}

static void stencil() {
  int n = stencilN;
  size_t nn = (size_t)n * n;
  float *in = upload(fill<float>(nn, [](size_t i) { return unit32(5, i); }));
  float *out = zeros<float>(nn);
  run("stencil_halo", [&] { stencil_halo<<<dim3((n + 31) / 32, (n + 31) / 32), dim3(32, 8)>>>(in, out, n, n); },
      [&] { return fnv(out, nn); });
  run("stencil_flat", [&] { stencil_flat<<<grid2(n, n), B2>>>(in, out, n, n); }, [&] { return fnv(out, nn); });
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

// ---- Histogram: 256 bins per block in shared memory, merged with one
// atomic add per bin.
__global__ void histogram(const u8 *__restrict__ data, u32 *__restrict__ hist, int n, int blocks) {
  __shared__ u32 local[256];
  int b = blockIdx.x, t = threadIdx.x;
  local[t] = 0;
  __syncthreads();
  for (int i = b * 256 + t; i < n; i += blocks * 256) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  if (local[t] != 0) atomicAdd(&hist[t], local[t]);
}

static void hist() {
  int n = histN;
  u8 *data = upload(fill<u8>(n, [](size_t i) { return (u8)rnd(6, i); }));
  u32 *h = zeros<u32>(256);
  run("histogram", [&] { histogram<<<histBlocks, 256>>>(data, h, n, histBlocks); },
      [&] {
        std::vector<u32> hh(256);
        CHECK(cudaMemcpy(hh.data(), h, sizeof(u32) * 256, cudaMemcpyDeviceToHost));
        u64 total = 0;
        for (u32 v : hh) total += v;
        if (total != (u64)n) {
          fprintf(stderr, "histogram: %llu counts, want %d\n", total, n);
          exit(1);
        }
        return fnv(h, 256);
      });
  CHECK(cudaFree(data));
  CHECK(cudaFree(h));
}

// wants reports whether the kernel named on the command line, if any,
// starts with prefix: the other sections skip their inputs too.
static bool wants(const char *prefix) { return !only || strncmp(only, prefix, strlen(prefix)) == 0; }

int main(int argc, char **argv) {
  start(argc, argv);
  if (wants("sgemm")) sgemm();
  if (wants("transpose") || wants("copy")) transpose();
  if (wants("scan")) scan();
  if (wants("stencil")) stencil();
  if (wants("histogram")) hist();
  return 0;
}
