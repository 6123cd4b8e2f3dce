// Copies between GPU 0 and GPU 1 with cudaMemcpyPeerAsync, in GB/s: the
// baseline of qd's peer copies.
#include <cstdio>
#include <cuda_runtime.h>

int main() {
	const size_t bytes = size_t(1) << 30;
	const int reps = 10;
	void *src, *dst;
	cudaSetDevice(0);
	cudaMalloc(&src, bytes);
	cudaDeviceEnablePeerAccess(1, 0);
	cudaSetDevice(1);
	cudaMalloc(&dst, bytes);
	cudaDeviceEnablePeerAccess(0, 0);
	cudaStream_t s;
	cudaStreamCreate(&s);
	cudaEvent_t a, b;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	cudaMemcpyPeerAsync(dst, 1, src, 0, bytes, s);
	cudaEventRecord(a, s);
	for (int i = 0; i < reps; i++) cudaMemcpyPeerAsync(dst, 1, src, 0, bytes, s);
	cudaEventRecord(b, s);
	cudaEventSynchronize(b);
	float ms;
	cudaEventElapsedTime(&ms, a, b);
	cudaError_t err = cudaGetLastError();
	if (err != cudaSuccess) {
		fprintf(stderr, "peer: %s\n", cudaGetErrorString(err));
		return 1;
	}
	printf("cudaMemcpyPeerAsync 1024 MiB: %.1f GB/s\n", reps * bytes / (ms / 1e3) / 1e9);
	return 0;
}
