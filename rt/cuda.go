//go:build cgo

package rt

// #include "gpu_shim.h"
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

// The CUDA driver is loaded with dlopen when the first device opens: qd
// declares the few driver functions it calls itself (gpu_shim.h), so
// building needs no CUDA headers or libraries, and a machine without a GPU
// runs the CPU backend from the same binary.

var (
	cudaOnce sync.Once
	cudaAPI  *C.struct_qd_api
	cudaErr  error
)

// cudaDriver is one CUDA device with its primary context.
type cudaDriver struct{ gpuDriver }

// CUDA's numbers for the device attributes qd reads.
const (
	cuMaxThreadsPerBlock      = 1
	cuWarpSize                = 10
	cuMultiprocessorCount     = 16
	cuMaxThreadsPerMultiproc  = 39
	cuMaxSharedMemoryPerBlock = 8
	cuComputeCapabilityMajor  = 75
	cuComputeCapabilityMinor  = 76
	cuMemoryPoolsSupported    = 115
)

// loadCUDA loads the CUDA driver library once.
func loadCUDA() (*C.struct_qd_api, error) {
	cudaOnce.Do(func() {
		cudaAPI, cudaErr = openAPI(false, []string{"libcuda.so.1"})
		if cudaErr != nil {
			cudaErr = fmt.Errorf("%w: %w", ErrNoDevice, cudaErr)
		}
	})
	return cudaAPI, cudaErr
}

func openCUDA(index int) (driver, error) {
	if _, err := loadCUDA(); err != nil {
		return nil, err
	}
	d := &cudaDriver{gpuDriver{api: cudaAPI}}
	if err := d.open(index, CUDA); err != nil {
		return nil, err
	}
	d.attrs = deviceAttributes{
		arch:               fmt.Sprintf("sm_%d%d", d.attribute(cuComputeCapabilityMajor), d.attribute(cuComputeCapabilityMinor)),
		multiprocessors:    d.attribute(cuMultiprocessorCount),
		maxThreadsPerSM:    d.attribute(cuMaxThreadsPerMultiproc),
		maxThreadsPerBlock: d.attribute(cuMaxThreadsPerBlock),
		warpSize:           d.attribute(cuWarpSize),
		streamQueues:       cudaMaxConnections(),
		maxSharedPerBlock:  d.attribute(cuMaxSharedMemoryPerBlock),
	}
	d.openFeatures(d.attribute(cuMemoryPoolsSupported) != 0)
	return d, nil
}

// cudaMaxConnections is the number of hardware queues CUDA feeds streams
// through at once: CUDA_DEVICE_MAX_CONNECTIONS, 8 unless set. More streams
// than queues would share queues and gain nothing.
func cudaMaxConnections() int {
	if n, err := strconv.Atoi(os.Getenv("CUDA_DEVICE_MAX_CONNECTIONS")); err == nil && n > 0 {
		return n
	}
	return 8
}

func (d *cudaDriver) imageKinds() []imageKind { return cudaImageKinds }

func (d *cudaDriver) loadModule(img codeImage) (uintptr, error) {
	if img.Kind == imageCubin {
		return d.loadBinary(img.Data)
	}
	return d.loadCode([]byte(img.Data))
}
