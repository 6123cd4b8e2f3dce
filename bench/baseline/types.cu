// The kernels of bench/kernels/types.go in CUDA C: n-body over an array of
// structs and over separate arrays, and a 2-D image kernel on a 2-D grid.
// Same types, same arithmetic in the same order, same grid-stride loops.
// Build twice: with --fmad=false its results equal qd's bit for bit.
//   nvcc -O3 --fmad=false -o types types.cu
//   nvcc -O3 -o types-fmad types.cu
// It prints "name value" lines that bench/qdtypes reads.
#include <algorithm>
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

struct Vec3 { float x, y, z; };
struct Particle { Vec3 pos, vel; float mass; };

#define GRID_STRIDE(i, n)                                                        \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
       i += (long long)gridDim.x * blockDim.x)

__global__ void nbody_aos_vel(Particle *ps, long long n, float dt, float soft) {
  GRID_STRIDE(i, n) {
    Vec3 pi = ps[i].pos;
    float ax = 0, ay = 0, az = 0;
    for (long long j = 0; j < n; j++) {
      float dx = ps[j].pos.x - pi.x, dy = ps[j].pos.y - pi.y, dz = ps[j].pos.z - pi.z;
      float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + soft);
      float s = ps[j].mass * inv * inv * inv;
      ax = ax + dx * s; ay = ay + dy * s; az = az + dz * s;
    }
    ps[i].vel.x = ps[i].vel.x + ax * dt;
    ps[i].vel.y = ps[i].vel.y + ay * dt;
    ps[i].vel.z = ps[i].vel.z + az * dt;
  }
}

__global__ void nbody_aos_pos(Particle *ps, long long n, float dt) {
  GRID_STRIDE(i, n) {
    ps[i].pos.x = ps[i].pos.x + ps[i].vel.x * dt;
    ps[i].pos.y = ps[i].pos.y + ps[i].vel.y * dt;
    ps[i].pos.z = ps[i].pos.z + ps[i].vel.z * dt;
  }
}

__global__ void nbody_soa_vel(const float *x, const float *y, const float *z, float *vx, float *vy,
                              float *vz, const float *m, long long n, float dt, float soft) {
  GRID_STRIDE(i, n) {
    float xi = x[i], yi = y[i], zi = z[i];
    float ax = 0, ay = 0, az = 0;
    for (long long j = 0; j < n; j++) {
      float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
      float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + soft);
      float s = m[j] * inv * inv * inv;
      ax = ax + dx * s; ay = ay + dy * s; az = az + dz * s;
    }
    vx[i] = vx[i] + ax * dt; vy[i] = vy[i] + ay * dt; vz[i] = vz[i] + az * dt;
  }
}

__global__ void nbody_soa_pos(float *x, float *y, float *z, const float *vx, const float *vy,
                              const float *vz, long long n, float dt) {
  GRID_STRIDE(i, n) {
    x[i] = x[i] + vx[i] * dt; y[i] = y[i] + vy[i] * dt; z[i] = z[i] + vz[i] * dt;
  }
}

// A 2-D grid of 32×8 blocks, each thread striding in y and in x.
__global__ void shade2d(float *out, const float *in, long long w, long long h) {
  for (long long y = blockIdx.y * (long long)blockDim.y + threadIdx.y; y < h; y += (long long)gridDim.y * blockDim.y)
    for (long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x; x < w; x += (long long)gridDim.x * blockDim.x) {
      long long i = y * w + x;
      out[i] = in[i] * 0.5f + (float)(x * 3 + y);
    }
}

// The initial bodies, as bench/qdtypes makes them.
static void initBodies(std::vector<Particle> &ps) {
  for (size_t i = 0; i < ps.size(); i++) {
    float f = (float)(long long)i;
    ps[i].pos = {(float)((long long)(i * 7919) % 1000) / 100.0f, (float)((long long)(i * 104729) % 1000) / 100.0f, f / 1e4f};
    ps[i].vel = {0, 0, 0};
    ps[i].mass = 1.0f + (float)((long long)i % 7);
  }
}

// hash is FNV-1a over the bytes of the results, as bench/qdtypes computes it.
static unsigned long long hash(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  unsigned long long h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

static float elapsedMs(cudaEvent_t a, cudaEvent_t b) {
  float ms;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static int blocksFor(long long n) { return (int)std::min<long long>((n + 255) / 256, 1 << 20); }

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s\n", prop.name);
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));

  const long long n = 1 << 16;
  const int steps = 5;
  const float dt = 0.001f, soft = 0.01f;
  std::vector<Particle> host(n);
  initBodies(host);

  // Array of structs.
  Particle *ps;
  CHECK(cudaMalloc(&ps, n * sizeof(Particle)));
  CHECK(cudaMemcpy(ps, host.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));
  std::vector<double> ms;
  for (int s = 0; s <= steps; s++) { // a first step to warm up, as qdtypes does
    CHECK(cudaEventRecord(e0));
    nbody_aos_vel<<<blocksFor(n), 256>>>(ps, n, dt, soft);
    nbody_aos_pos<<<blocksFor(n), 256>>>(ps, n, dt);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    if (s > 0) ms.push_back(elapsedMs(e0, e1));
  }
  std::vector<Particle> out(n);
  CHECK(cudaMemcpy(out.data(), ps, n * sizeof(Particle), cudaMemcpyDeviceToHost));
  printf("nbody_aos_ms %.4f\n", median(ms));
  printf("nbody_aos_hash %llu\n", hash(out.data(), n * sizeof(Particle)));

  // Separate arrays; the positions are hashed in the layout of the array
  // of structs, so both versions give the same hash.
  std::vector<float> h[7];
  for (auto &v : h) v.resize(n);
  for (long long i = 0; i < n; i++) {
    h[0][i] = host[i].pos.x; h[1][i] = host[i].pos.y; h[2][i] = host[i].pos.z;
    h[3][i] = host[i].vel.x; h[4][i] = host[i].vel.y; h[5][i] = host[i].vel.z;
    h[6][i] = host[i].mass;
  }
  float *d[7];
  for (int k = 0; k < 7; k++) {
    CHECK(cudaMalloc(&d[k], n * sizeof(float)));
    CHECK(cudaMemcpy(d[k], h[k].data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  ms.clear();
  for (int s = 0; s <= steps; s++) {
    CHECK(cudaEventRecord(e0));
    nbody_soa_vel<<<blocksFor(n), 256>>>(d[0], d[1], d[2], d[3], d[4], d[5], d[6], n, dt, soft);
    nbody_soa_pos<<<blocksFor(n), 256>>>(d[0], d[1], d[2], d[3], d[4], d[5], n, dt);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    if (s > 0) ms.push_back(elapsedMs(e0, e1));
  }
  for (int k = 0; k < 7; k++) CHECK(cudaMemcpy(h[k].data(), d[k], n * sizeof(float), cudaMemcpyDeviceToHost));
  for (long long i = 0; i < n; i++) {
    out[i].pos = {h[0][i], h[1][i], h[2][i]};
    out[i].vel = {h[3][i], h[4][i], h[5][i]};
    out[i].mass = h[6][i];
  }
  printf("nbody_soa_ms %.4f\n", median(ms));
  printf("nbody_soa_hash %llu\n", hash(out.data(), n * sizeof(Particle)));

  // The 2-D kernel on three shapes of the same 2^24 pixels, give or take.
  const long long shapes[3][2] = {{4096, 4096}, {1000, 16777}, {3, 5592405}};
  const char *names[3] = {"square", "wide", "narrow"};
  long long most = 0;
  for (auto &s : shapes) most = std::max(most, s[0] * s[1]);
  float *in, *img;
  CHECK(cudaMalloc(&in, most * sizeof(float)));
  CHECK(cudaMalloc(&img, most * sizeof(float)));
  std::vector<float> pixels(most);
  for (long long i = 0; i < most; i++) pixels[i] = (float)(i % 1024);
  CHECK(cudaMemcpy(in, pixels.data(), most * sizeof(float), cudaMemcpyHostToDevice));
  for (int k = 0; k < 3; k++) {
    long long w = shapes[k][0], hh = shapes[k][1];
    dim3 block(32, 8);
    dim3 grid((unsigned)std::min<long long>((w + 31) / 32, 65535), (unsigned)std::min<long long>((hh + 7) / 8, 65535));
    ms.clear();
    for (int r = 0; r < 11; r++) {
      CHECK(cudaEventRecord(e0));
      shade2d<<<grid, block>>>(img, in, w, hh);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      if (r > 0) ms.push_back(elapsedMs(e0, e1));
    }
    CHECK(cudaMemcpy(pixels.data(), img, w * hh * sizeof(float), cudaMemcpyDeviceToHost));
    printf("shade_%s_ms %.4f\n", names[k], median(ms));
    printf("shade_%s_hash %llu\n", names[k], hash(pixels.data(), w * hh * sizeof(float)));
  }
  CHECK(cudaGetLastError());
  return 0;
}
