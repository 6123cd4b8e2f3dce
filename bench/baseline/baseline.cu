// The benchmark kernels of bench/kernels written in CUDA C, measured the
// same way as qdbench measures the generated ones. Build with
//   nvcc -O3 -o baseline baseline.cu
// It prints "name value" lines that qdbench reads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
              cudaGetErrorString(err_));                                         \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

__global__ void empty(int *a, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n && i < 0) a[0] = 1;
}

__global__ void saxpy(float a, const float *x, float *y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void spin(long long *out, long long n, long long iters) {
  long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (t >= n) return;
  long long x = t;
  for (long long j = 0; j < iters; j++) x = (1664525 * x + 1013904223) % 2147483647;
  out[t] = x;
}

// The inputs of the math benchmarks, as bench/kernels.Fill computes them:
// rounded operations, so that nvcc does not contract them into an FMA.
__global__ void fill(double *x, long long n, double lo, double hi) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  double u = (double)((unsigned long long)i * 0x9E3779B97F4A7C15ULL >> 11) / 9007199254740992.0; // 2^53
  x[i] = __dadd_rn(lo, __dmul_rn(__dsub_rn(hi, lo), u));
}

// CUDA's double-precision functions, compiled without fast math.
__global__ void math_exp(const double *x, const double *, double *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = exp(x[i]);
}
__global__ void math_log(const double *x, const double *, double *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = log(x[i]);
}
__global__ void math_pow(const double *x, const double *y, double *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = pow(x[i], y[i]);
}
__global__ void math_atan2(const double *y, const double *x, double *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = atan2(y[i], x[i]);
}
__global__ void math_sin(const double *x, const double *, double *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = sin(x[i]);
}

// histogram counts bytes into per-block bins in shared memory, then adds
// them to the global bins: the privatized histogram CUDA programmers write.
__global__ void histogram(const unsigned char *data, long long n, unsigned int *bins) {
  __shared__ unsigned int local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&bins[i], local[i]);
}

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// mathBenchmarks times each math function over 2^26 elements, with the
// inputs of bench/qdbench, in billions of elements per second.
static void mathBenchmarks() {
  typedef void (*mathKernel)(const double *, const double *, double *, long long);
  struct {
    const char *name;
    mathKernel kernel;
    double ranges[2][2];
    int args;
  } benches[] = {
      {"exp", math_exp, {{-50, 50}}, 1},
      {"log", math_log, {{1e-3, 1e3}}, 1},
      {"pow", math_pow, {{0.1, 10}, {-10, 10}}, 2},
      {"atan2", math_atan2, {{-100, 100}, {-100, 100}}, 2},
      {"sin", math_sin, {{-100, 100}}, 1},
  };
  const long long n = 1LL << 26;
  int blocks = (int)((n + 255) / 256);
  double *args[2], *out;
  for (int i = 0; i < 2; i++) CHECK(cudaMalloc(&args[i], n * sizeof(double)));
  CHECK(cudaMalloc(&out, n * sizeof(double)));
  for (auto &b : benches) {
    for (int i = 0; i < b.args; i++) fill<<<blocks, 256>>>(args[i], n, b.ranges[i][0], b.ranges[i][1]);
    for (int r = 0; r < 3; r++) b.kernel<<<blocks, 256>>>(args[0], args[1], out, n);
    CHECK(cudaDeviceSynchronize());
    std::vector<double> secs;
    for (int r = 0; r < 20; r++) {
      double t0 = now();
      b.kernel<<<blocks, 256>>>(args[0], args[1], out, n);
      CHECK(cudaDeviceSynchronize());
      secs.push_back(now() - t0);
    }
    CHECK(cudaGetLastError());
    printf("math_%s_gps %.3f\n", b.name, n / median(secs) / 1e9);
  }
  for (int i = 0; i < 2; i++) CHECK(cudaFree(args[i]));
  CHECK(cudaFree(out));
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s\n", prop.name);
  int *a;
  CHECK(cudaMalloc(&a, sizeof(int)));

  // Host time per launch: batches of 256 launches and a synchronize.
  const int batch = 256;
  for (int i = 0; i < 1000; i++) empty<<<1, 256>>>(a, 1);
  CHECK(cudaDeviceSynchronize());
  std::vector<double> per;
  for (int r = 0; r < 200; r++) {
    double t0 = now();
    for (int i = 0; i < batch; i++) empty<<<1, 256>>>(a, 1);
    CHECK(cudaDeviceSynchronize());
    per.push_back((now() - t0) / batch * 1e6);
  }
  CHECK(cudaGetLastError());
  printf("launch_us %.3f\n", median(per));

  // saxpy on 2^28 floats: 12 bytes moved per element.
  const long long n = 1LL << 28;
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  CHECK(cudaMemset(y, 0, n * sizeof(float)));
  int blocks = (int)((n + 255) / 256);
  for (int i = 0; i < 3; i++) saxpy<<<blocks, 256>>>(2.0f, x, y, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<double> secs;
  for (int r = 0; r < 20; r++) {
    double t0 = now();
    saxpy<<<blocks, 256>>>(2.0f, x, y, n);
    CHECK(cudaDeviceSynchronize());
    secs.push_back(now() - t0);
  }
  printf("saxpy_gbps %.1f\n", 12.0 * n / median(secs) / 1e9);

  // The LCG spin loop on one thread.
  long long *out;
  CHECK(cudaMalloc(&out, sizeof(long long)));
  spin<<<1, 256>>>(out, 1, 1000);
  CHECK(cudaDeviceSynchronize());
  secs.clear();
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    spin<<<1, 256>>>(out, 1, 1000000);
    CHECK(cudaDeviceSynchronize());
    secs.push_back(now() - t0);
  }
  long long result;
  CHECK(cudaMemcpy(&result, out, sizeof(result), cudaMemcpyDeviceToHost));
  printf("spin_ms %.3f\n", median(secs) * 1e3);
  printf("spin_result %lld\n", result);

  // Launches on a stream, in batches of 256.
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  for (int i = 0; i < 1000; i++) empty<<<1, 256, 0, s1>>>(a, 1);
  CHECK(cudaStreamSynchronize(s1));
  per.clear();
  for (int r = 0; r < 200; r++) {
    double t0 = now();
    for (int i = 0; i < batch; i++) empty<<<1, 256, 0, s1>>>(a, 1);
    CHECK(cudaStreamSynchronize(s1));
    per.push_back((now() - t0) / batch * 1e6);
  }
  printf("launch_stream_us %.3f\n", median(per));

  // Stream create + destroy, and event record + stream wait.
  per.clear();
  for (int r = 0; r < 20; r++) {
    double t0 = now();
    for (int i = 0; i < 100; i++) {
      cudaStream_t s;
      CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      CHECK(cudaStreamDestroy(s));
    }
    per.push_back((now() - t0) / 100 * 1e6);
  }
  printf("stream_create_close_us %.3f\n", median(per));
  cudaEvent_t ev;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  per.clear();
  for (int r = 0; r < 20; r++) {
    double t0 = now();
    for (int i = 0; i < 256; i++) {
      CHECK(cudaEventRecord(ev, s1));
      CHECK(cudaStreamWaitEvent(s2, ev, 0));
    }
    per.push_back((now() - t0) / 256 * 1e6);
    CHECK(cudaDeviceSynchronize());
  }
  printf("event_record_wait_us %.3f\n", median(per));

  // 16 one-block spin kernels: on one stream, then on 16 streams.
  const int k = 16;
  const long long spinIters = 10000;
  long long *outs;
  CHECK(cudaMalloc(&outs, k * 256 * sizeof(long long)));
  cudaStream_t ss[k];
  for (int i = 0; i < k; i++) CHECK(cudaStreamCreateWithFlags(&ss[i], cudaStreamNonBlocking));
  double serial = 0, parallel = 0;
  for (int mode = 0; mode < 2; mode++) {
    secs.clear();
    for (int r = 0; r < 6; r++) {
      double t0 = now();
      for (int i = 0; i < k; i++) spin<<<1, 256, 0, mode ? ss[i] : s1>>>(outs + i * 256, 256, spinIters);
      CHECK(cudaDeviceSynchronize());
      if (r > 0) secs.push_back(now() - t0);
    }
    (mode ? parallel : serial) = median(secs);
  }
  printf("spin16_serial_ms %.3f\n", serial * 1e3);
  printf("spin16_speedup %.3f\n", serial / parallel);

  // Hand-written fork/join over pooled streams and events, as
  // qd.StreamParallel does it: blocks fork from the default stream and join
  // back into it.
  cudaEvent_t evs[k + 1];
  for (int i = 0; i <= k; i++) CHECK(cudaEventCreateWithFlags(&evs[i], cudaEventDisableTiming));
  auto forkJoin = [&](int blocks, long long iters, bool parallel) {
    if (!parallel) {
      for (int i = 0; i < blocks; i++) spin<<<1, 256>>>(outs + i * 256, 1, iters);
      return;
    }
    CHECK(cudaEventRecord(evs[0], 0));
    for (int i = 0; i < blocks; i++) CHECK(cudaStreamWaitEvent(ss[i], evs[0], 0));
    for (int i = 0; i < blocks; i++) spin<<<1, 256, 0, ss[i]>>>(outs + i * 256, 1, iters);
    for (int i = 0; i < blocks; i++) {
      CHECK(cudaEventRecord(evs[i + 1], ss[i]));
      CHECK(cudaStreamWaitEvent(0, evs[i + 1], 0));
    }
  };
  const long long blockIters = 200000;
  for (int blocks : {2, 8}) {
    double t[2];
    for (int mode = 0; mode < 2; mode++) {
      secs.clear();
      for (int r = 0; r < 4; r++) {
        double t0 = now();
        forkJoin(blocks, blockIters, mode == 1);
        CHECK(cudaStreamSynchronize(0));
        if (r > 0) secs.push_back(now() - t0);
      }
      t[mode] = median(secs);
    }
    printf("blocks%d_speedup %.3f\n", blocks, t[0] / t[1]);
  }
  // Host cost: one fork/join of four tiny kernels against four plain
  // launches on one stream.
  for (int mode = 0; mode < 2; mode++) {
    per.clear();
    for (int r = 0; r < 50; r++) {
      double t0 = now();
      for (int i = 0; i < 64; i++) {
        if (mode == 0) {
          for (int b = 0; b < 4; b++) empty<<<1, 256>>>(a, 1);
        } else {
          CHECK(cudaEventRecord(evs[0], 0));
          for (int b = 0; b < 4; b++) CHECK(cudaStreamWaitEvent(ss[b], evs[0], 0));
          for (int b = 0; b < 4; b++) empty<<<1, 256, 0, ss[b]>>>(a, 1);
          for (int b = 0; b < 4; b++) {
            CHECK(cudaEventRecord(evs[b + 1], ss[b]));
            CHECK(cudaStreamWaitEvent(0, evs[b + 1], 0));
          }
        }
      }
      CHECK(cudaDeviceSynchronize());
      per.push_back((now() - t0) / 64 * 1e6);
    }
    printf(mode == 0 ? "four_plain_us %.3f\n" : "four_blocks_us %.3f\n", median(per));
  }

  // A 256-bin histogram of 2^28 bytes, the same bytes as qdbench's.
  const long long hn = 1LL << 28;
  std::vector<unsigned char> hostData(hn);
  std::vector<unsigned int> want(256);
  for (long long i = 0; i < hn; i++) {
    hostData[i] = (unsigned char)(((unsigned int)i * 2654435761u) >> 24);
    want[hostData[i]]++;
  }
  unsigned char *data;
  unsigned int *bins;
  CHECK(cudaMalloc(&data, hn));
  CHECK(cudaMalloc(&bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(data, hostData.data(), hn, cudaMemcpyHostToDevice));
  int histBlocks = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / 256);
  secs.clear();
  for (int r = 0; r < 11; r++) {
    CHECK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
    CHECK(cudaDeviceSynchronize());
    double t0 = now();
    histogram<<<histBlocks, 256>>>(data, hn, bins);
    CHECK(cudaDeviceSynchronize());
    if (r > 0) secs.push_back(now() - t0);
  }
  std::vector<unsigned int> got(256);
  CHECK(cudaMemcpy(got.data(), bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  if (got != want) {
    fprintf(stderr, "histogram: wrong counts\n");
    return 1;
  }
  printf("hist_gbps %.1f\n", hn / median(secs) / 1e9);
  CHECK(cudaGetLastError());
  mathBenchmarks();
  return 0;
}
