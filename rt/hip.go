//go:build cgo

package rt

/*
#include "gpu_shim.h"

// qd_hip_arch copies the device's gcnArchName, such as
// "gfx942:sramecc+:xnack-", out of its hipDeviceProp_t, whose layout
// changed in ROCm 6 (hipGetDevicePropertiesR0600): the name's offset in
// each layout is known, and the caller checks what it finds.
static qd_result qd_hip_arch(const struct qd_api *api, int dev, char *out, int len) {
	static const struct {
		const char *symbol;
		size_t offset;
	} layouts[] = {{"hipGetDevicePropertiesR0600", 1160}, {"hipGetDeviceProperties", 396}};
	for (int i = 0; i < 2; i++) {
		qd_result (*get)(void *, int) = (qd_result (*)(void *, int))dlsym(api->lib, layouts[i].symbol);
		if (!get) continue;
		static _Thread_local union {
			char bytes[8192]; // more than either layout needs
			long double align;
		} props;
		memset(&props, 0, sizeof props);
		qd_result r = get(&props, dev);
		if (r) return r;
		strncpy(out, props.bytes + layouts[i].offset, len - 1);
		out[len - 1] = 0;
		return 0;
	}
	return -1;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

// The HIP driver calls libamdhip64, ROCm's HIP runtime, through the table
// the CUDA driver uses (gpu_shim.h), and compiles HIP source with hiprtc
// for the exact target of the GPU at hand, caching the code objects.

var (
	hipOnce sync.Once
	hipAPI  *C.struct_qd_api
	hipErr  error

	hiprtcOnce sync.Once
	hiprtc     *rtc
	hiprtcErr  error
)

// hipLibraries are the names libamdhip64 goes by, newest first; QD_HIP_LIB
// names another.
func hipLibraries() []string {
	libs := []string{"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"}
	if p := os.Getenv("QD_HIP_LIB"); p != "" {
		libs = []string{p}
	}
	return libs
}

// hiprtcLibraries are the names of hiprtc, then the HIP runtime itself,
// which exports hiprtc's functions too in ROCm 5.
func hiprtcLibraries() []string {
	return append([]string{"libhiprtc.so", "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5", "/opt/rocm/lib/libhiprtc.so"}, hipLibraries()...)
}

// hipDriver is one HIP device.
type hipDriver struct {
	gpuDriver
	// runtime is the HIP runtime's version, which code objects cached
	// on disk are keyed by beside the target.
	runtime int
}

// HIP's numbers for the device attributes qd reads (hipDeviceAttribute_t,
// the same in ROCm 5 and 6).
const (
	hipMaxThreadsPerBlock     = 56
	hipMaxThreadsPerMultiproc = 57
	hipMultiprocessorCount    = 63
	hipWarpSize               = 87
	hipMaxSharedPerBlock      = 74
)

// loadHIP loads the HIP runtime library once.
func loadHIP() (*C.struct_qd_api, error) {
	hipOnce.Do(func() {
		hipAPI, hipErr = openAPI(true, hipLibraries())
		if hipErr != nil {
			hipErr = fmt.Errorf("%w: %w", ErrNoDevice, hipErr)
		}
	})
	return hipAPI, hipErr
}

func openHIP(index int) (driver, error) {
	if _, err := loadHIP(); err != nil {
		return nil, err
	}
	d := &hipDriver{gpuDriver: gpuDriver{api: hipAPI}}
	if err := d.open(index, HIP); err != nil {
		return nil, err
	}
	target, err := d.target()
	if err != nil {
		return nil, err
	}
	d.attrs = deviceAttributes{
		arch:               target,
		multiprocessors:    d.attribute(hipMultiprocessorCount),
		maxThreadsPerSM:    d.attribute(hipMaxThreadsPerMultiproc),
		maxThreadsPerBlock: d.attribute(hipMaxThreadsPerBlock),
		warpSize:           d.attribute(hipWarpSize),
		streamQueues:       hipHardwareQueues(),
		maxSharedPerBlock:  d.attribute(hipMaxSharedPerBlock),
	}
	d.runtime = d.driverVersion()
	return d, nil
}

// target is the device's exact target, with the features code objects
// must match (a bare gfx942 code object does not load on an MI300X that
// reports gfx942:sramecc+:xnack-). QD_HIP_ARCH overrides it.
func (d *hipDriver) target() (string, error) {
	if t := os.Getenv("QD_HIP_ARCH"); t != "" {
		return t, nil
	}
	var name [256]C.char
	if r := C.qd_hip_arch(d.api, d.dev, &name[0], C.int(len(name))); r != 0 {
		return "", fmt.Errorf("reading the device's architecture: %w", d.driverError("hipGetDeviceProperties", r))
	}
	t := C.GoString(&name[0])
	if !targetPattern.MatchString(t) {
		return "", fmt.Errorf("the device's architecture %q is not an AMD GPU target; set QD_HIP_ARCH", t)
	}
	return t, nil
}

// hipHardwareQueues is how many streams HIP runs at once: its hardware
// queues, GPU_MAX_HW_QUEUES or 4. More streams share queues.
func hipHardwareQueues() int {
	if n, err := strconv.Atoi(os.Getenv("GPU_MAX_HW_QUEUES")); err == nil && n > 0 {
		return n
	}
	return 4
}

func (d *hipDriver) imageKinds() []imageKind { return hipImageKinds }

// loadModule loads a code object; Device.loadImage compiles source with
// compileSource first.
func (d *hipDriver) loadModule(img codeImage) (uintptr, error) {
	if img.Kind != imageHSACO {
		return 0, fmt.Errorf("%w: the HIP driver loads %s only compiled", ErrNoImage, img.Kind)
	}
	return d.loadBinary(img.Data)
}

// hiprtcOptions are the options of every compilation, beside the target.
var hiprtcOptions = []string{"-O3", "-ffp-contract=off"}

func (d *hipDriver) options() []string {
	return append([]string{"--gpu-architecture=" + d.attrs.arch}, hiprtcOptions...)
}

// compiler opens hiprtc once.
func compiler() (*rtc, error) {
	hiprtcOnce.Do(func() { hiprtc, hiprtcErr = openRTC(false, hiprtcLibraries()) })
	return hiprtc, hiprtcErr
}

func (d *hipDriver) compileSource(source string) ([]byte, error) {
	c, err := compiler()
	if err != nil {
		return nil, err
	}
	return c.compile(source, "qd.hip", d.options())
}

func (d *hipDriver) sourceKey(sum string) string {
	version := fmt.Sprintf("hip%d", d.runtime)
	if c, err := compiler(); err == nil {
		version += "-hiprtc" + c.version
	}
	return codeKey("hiprtc", sum, d.attrs.arch, version, d.options())
}

func (d *hipDriver) binaryKind() imageKind { return imageHSACO }
