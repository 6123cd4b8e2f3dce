//go:build cgo

package rt

// #include "gpu_shim.h"
import "C"

import "fmt"

// gpuDeviceCount counts the devices of a GPU backend without opening any.
func gpuDeviceCount(b Backend) (int, error) {
	var api *C.struct_qd_api
	var err error
	switch b {
	case CUDA:
		api, err = loadCUDA()
	case HIP:
		api, err = loadHIP()
	default:
		return 0, fmt.Errorf("%w: backend %s has no GPUs to count", ErrNoDevice, b)
	}
	if err != nil {
		return 0, err
	}
	g := gpuDriver{api: api}
	if r := C.qd_init(api); r != 0 {
		return 0, fmt.Errorf("%w: %w", ErrNoDevice, g.check(C.QD_CALL_Init, r))
	}
	var n C.int
	if r := C.qd_device_count(api, &n); r != 0 {
		return 0, fmt.Errorf("%w: %w", ErrNoDevice, g.check(C.QD_CALL_DeviceGetCount, r))
	}
	return int(n), nil
}
