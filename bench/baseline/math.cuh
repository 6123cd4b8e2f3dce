// The math benchmarks of bench/baseline/baseline.cu, which includes this
// file after its helpers (CHECK, now, median).

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
__global__ void math_cos(const double *x, const double *, double *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = cos(x[i]);
}
__global__ void math_tan(const double *x, const double *, double *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = tan(x[i]);
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
      {"cos", math_cos, {{-100, 100}}, 1},
      {"tan", math_tan, {{-100, 100}}, 1},
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
