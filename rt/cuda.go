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
// declares the few driver functions it calls itself, so building needs no
// CUDA headers or libraries, and a machine without a GPU runs the CPU
// backend from the same binary.

var (
	cudaOnce sync.Once
	cudaAPI  *C.struct_qd_api
	cudaErr  error
)

// cudaDriver is one CUDA device with its primary context.
type cudaDriver struct{ gpuDriver }

// CUDA's numbers for the device attributes qd reads.
const (
	cuMaxThreadsPerBlock     = 1
	cuWarpSize               = 10
	cuMultiprocessorCount    = 16
	cuMaxThreadsPerMultiproc = 39
	cuComputeCapabilityMajor = 75
	cuComputeCapabilityMinor = 76
)

func openCUDA(index int) (driver, error) {
	cudaOnce.Do(func() {
		cudaAPI, cudaErr = openAPI(false, []string{"libcuda.so.1"})
		if cudaErr != nil {
			cudaErr = fmt.Errorf("%w: %w", ErrNoDevice, cudaErr)
		}
	})
	if cudaErr != nil {
		return nil, cudaErr
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
	}
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

func (d *cudaDriver) imageKinds() []ImageKind { return cudaImageKinds }

// loadSource, when set, compiles source images for the CUDA driver: only
// test builds set it (nvrtc.go).
var loadSource func(d *cudaDriver, img Image) (uintptr, error)

func (d *cudaDriver) loadModule(img Image) (uintptr, error) {
	if img.Kind != ImagePTX && loadSource != nil {
		return loadSource(d, img)
	}
	return d.loadCode([]byte(img.Data))
}
