// The benchmark kernels of bench/kernels written in CUDA C, measured the
// same way as qdbench measures the generated ones: host time with a
// synchronization, and events for the sum. Build with
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

// sum: each thread adds its grid-stride share of x, warps add their
// threads' partial sums with shuffles, blocks their warps' through shared
// memory, and each block adds its sum to the result atomically.
__global__ void sum(const float *x, float *out, long long n) {
  float s = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    s += x[i];
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffff, s, d);
  __shared__ float warps[32];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warps[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < blockDim.x / 32 ? warps[lane] : 0;
    for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffff, s, d);
    if (lane == 0) atomicAdd(out, s);
  }
}

__global__ void scale(float *x, float a, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void add(const float *x, const float *y, float *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + y[i];
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

#include "math.cuh"

// hostPer times run, which queues one iteration of work, over 50 batches of
// 64: the host's time per iteration (queueing alone) and the time per
// iteration including the wait for the GPU, as qdbench's hostPer does.
template <typename F>
static void hostPer(F run, double *host, double *total) {
  for (int i = 0; i < 64; i++) run();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> hosts, totals;
  for (int r = 0; r < 50; r++) {
    double t0 = now();
    for (int i = 0; i < 64; i++) run();
    double queued = now() - t0;
    CHECK(cudaDeviceSynchronize());
    hosts.push_back(queued / 64 * 1e6);
    totals.push_back((now() - t0) / 64 * 1e6);
  }
  *host = median(hosts);
  if (total) *total = median(totals);
}

// graphOf captures the work that issue queues, forking from and joining
// into a stream of its own, as a graph, and instantiates it.
template <typename F>
static cudaGraphExec_t graphOf(F issue) {
  cudaStream_t origin;
  CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
  issue(origin);
  CHECK(cudaStreamEndCapture(origin, &graph));
  CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(origin));
  return exec;
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

  // The same fork/join of four tiny kernels: eager, replayed as a graph,
  // and replayed with every kernel node's arguments changed.
  int *bufs;
  CHECK(cudaMalloc(&bufs, 8 * sizeof(int)));
  auto fourTiny = [&](cudaStream_t from, int *base) {
    CHECK(cudaEventRecord(evs[0], from));
    for (int b = 0; b < 4; b++) CHECK(cudaStreamWaitEvent(ss[b], evs[0], 0));
    for (int b = 0; b < 4; b++) empty<<<1, 256, 0, ss[b]>>>(base + b, 1);
    for (int b = 0; b < 4; b++) {
      CHECK(cudaEventRecord(evs[b + 1], ss[b]));
      CHECK(cudaStreamWaitEvent(from, evs[b + 1], 0));
    }
  };
  double host;
  hostPer([&] { fourTiny(0, bufs); }, &host, nullptr);
  printf("four_blocks_eager_us %.3f\n", host);
  cudaGraphExec_t fourExec = graphOf([&](cudaStream_t origin) { fourTiny(origin, bufs); });
  hostPer([&] { CHECK(cudaGraphLaunch(fourExec, 0)); }, &host, nullptr);
  printf("four_blocks_graph_us %.3f\n", host);
  {
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(ss[8], cudaStreamCaptureModeThreadLocal));
    fourTiny(ss[8], bufs);
    CHECK(cudaStreamEndCapture(ss[8], &g));
    size_t count = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count), kernels;
    CHECK(cudaGraphGetNodes(g, nodes.data(), &count));
    for (auto n : nodes) {
      cudaGraphNodeType type;
      CHECK(cudaGraphNodeGetType(n, &type));
      if (type == cudaGraphNodeTypeKernel) kernels.push_back(n);
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiateWithFlags(&exec, g, 0));
    long long one = 1;
    int iter = 0;
    hostPer([&] {
      iter++;
      for (size_t k = 0; k < kernels.size(); k++) {
        int *p = bufs + 4 * (iter % 2) + k;
        void *args[] = {&p, &one};
        cudaKernelNodeParams params = {};
        params.func = (void *)empty;
        params.gridDim = dim3(1);
        params.blockDim = dim3(256);
        params.kernelParams = args;
        CHECK(cudaGraphExecKernelNodeSetParams(exec, kernels[k], &params));
      }
      CHECK(cudaGraphLaunch(exec, 0));
    }, &host, nullptr);
    printf("four_blocks_graph_update_us %.3f\n", host);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
  }

  // Eight spin blocks, eager and as a graph: the GPU's time per launch.
  auto eightSpins = [&](cudaStream_t from) {
    CHECK(cudaEventRecord(evs[0], from));
    for (int b = 0; b < 8; b++) CHECK(cudaStreamWaitEvent(ss[b], evs[0], 0));
    for (int b = 0; b < 8; b++) spin<<<1, 256, 0, ss[b]>>>(outs + b * 256, 1, 20000);
    for (int b = 0; b < 8; b++) {
      CHECK(cudaEventRecord(evs[b + 1], ss[b]));
      CHECK(cudaStreamWaitEvent(from, evs[b + 1], 0));
    }
  };
  double total;
  hostPer([&] { eightSpins(0); }, &host, &total);
  printf("eight_blocks_eager_gpu_us %.3f\n", total);
  cudaGraphExec_t eightExec = graphOf(eightSpins);
  hostPer([&] { CHECK(cudaGraphLaunch(eightExec, 0)); }, &host, &total);
  printf("eight_blocks_graph_gpu_us %.3f\n", total);

  // The recorded pipeline of qdbench over three streams: two chunks
  // copied in from page-locked memory and scaled, added once both are done,
  // the sum copied out; issued call by call, then replayed as a graph.
  const long long pn = 4096;
  float *in1, *in2, *pout, *x1, *x2, *py;
  CHECK(cudaMallocHost(&in1, pn * sizeof(float)));
  CHECK(cudaMallocHost(&in2, pn * sizeof(float)));
  CHECK(cudaMallocHost(&pout, pn * sizeof(float)));
  CHECK(cudaMalloc(&x1, pn * sizeof(float)));
  CHECK(cudaMalloc(&x2, pn * sizeof(float)));
  CHECK(cudaMalloc(&py, pn * sizeof(float)));
  for (long long i = 0; i < pn; i++) in1[i] = (float)i, in2[i] = (float)(2 * i);
  cudaStream_t p1 = ss[0], p2 = ss[1], p3 = ss[2];
  cudaEvent_t start = evs[0], e1 = evs[1], e2 = evs[2];
  // evs[0] was last recorded inside a stream capture, where waiting on it
  // from outside is invalid: record it once on a plain stream first.
  CHECK(cudaEventRecord(start, p3));
  auto pipeline = [&](bool ordered) {
    if (ordered) {
      CHECK(cudaStreamWaitEvent(p1, start, 0));
      CHECK(cudaStreamWaitEvent(p2, start, 0));
    }
    CHECK(cudaMemcpyAsync(x1, in1, pn * sizeof(float), cudaMemcpyHostToDevice, p1));
    scale<<<(pn + 255) / 256, 256, 0, p1>>>(x1, 2, pn);
    CHECK(cudaEventRecord(e1, p1));
    CHECK(cudaMemcpyAsync(x2, in2, pn * sizeof(float), cudaMemcpyHostToDevice, p2));
    scale<<<(pn + 255) / 256, 256, 0, p2>>>(x2, 3, pn);
    CHECK(cudaEventRecord(e2, p2));
    CHECK(cudaStreamWaitEvent(p3, e1, 0));
    CHECK(cudaStreamWaitEvent(p3, e2, 0));
    add<<<(pn + 255) / 256, 256, 0, p3>>>(x1, x2, py, pn);
    CHECK(cudaMemcpyAsync(pout, py, pn * sizeof(float), cudaMemcpyDeviceToHost, p3));
    if (ordered) CHECK(cudaEventRecord(start, p3));
  };
  hostPer([&] { pipeline(true); }, &host, &total);
  printf("pipeline_eager_us %.3f\n", host);
  printf("pipeline_eager_total_us %.3f\n", total);
  cudaGraphExec_t pipeExec = graphOf([&](cudaStream_t origin) {
    CHECK(cudaEventRecord(evs[3], origin));
    CHECK(cudaStreamWaitEvent(p1, evs[3], 0));
    CHECK(cudaStreamWaitEvent(p2, evs[3], 0));
    pipeline(false);
    CHECK(cudaEventRecord(evs[4], p3));
    CHECK(cudaStreamWaitEvent(origin, evs[4], 0));
  });
  hostPer([&] { CHECK(cudaGraphLaunch(pipeExec, ss[3])); }, &host, &total);
  printf("pipeline_graph_us %.3f\n", host);
  printf("pipeline_graph_total_us %.3f\n", total);
  for (long long i = 0; i < pn; i++) {
    if (pout[i] != 2 * in1[i] + 3 * in2[i]) {
      fprintf(stderr, "pipeline: out[%lld] = %f\n", i, pout[i]);
      return 1;
    }
  }

  // Allocating and freeing 1 MiB: cudaMalloc and cudaFree, and the
  // stream-ordered cudaMallocAsync and cudaFreeAsync.
  for (int async = 0; async < 2; async++) {
    per.clear();
    for (int r = 0; r < 20; r++) {
      double t0 = now();
      for (int i = 0; i < 256; i++) {
        void *p;
        if (async) {
          CHECK(cudaMallocAsync(&p, 1 << 20, ss[0]));
          CHECK(cudaFreeAsync(p, ss[0]));
        } else {
          CHECK(cudaMalloc(&p, 1 << 20));
          CHECK(cudaFree(p));
        }
      }
      per.push_back((now() - t0) / 256 * 1e6);
      CHECK(cudaDeviceSynchronize());
    }
    printf(async ? "alloc_free_async_us %.3f\n" : "alloc_free_us %.3f\n", median(per));
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

  // sum of 2^28 ones, 4 bytes per element, on a grid of a few waves of
  // the device as qd's; GPU time from events.
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int waves = sms * (2048 / 256) * 4;
  {
    std::vector<float> ones(n, 1.0f);
    float *xs, *total;
    CHECK(cudaMalloc(&xs, n * sizeof(float)));
    CHECK(cudaMalloc(&total, sizeof(float)));
    CHECK(cudaMemcpy(xs, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    secs.clear();
    for (int r = 0; r < 21; r++) {
      CHECK(cudaEventRecord(t0, 0));
      CHECK(cudaMemsetAsync(total, 0, sizeof(float), 0));
      sum<<<waves, 256>>>(xs, total, n);
      CHECK(cudaEventRecord(t1, 0));
      CHECK(cudaEventSynchronize(t1));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, t0, t1));
      if (r > 0) secs.push_back(ms / 1e3);
    }
    float got;
    CHECK(cudaMemcpy(&got, total, sizeof(float), cudaMemcpyDeviceToHost));
    if (got != (float)n) {
      fprintf(stderr, "sum of %lld ones: %g\n", n, got);
      exit(1);
    }
    printf("sum_gbps %.1f\n", 4.0 * n / median(secs) / 1e9);
  }
  CHECK(cudaGetLastError());
  mathBenchmarks();
  return 0;
}
