package rt

import "unsafe"

// driver is what a GPU backend provides: a thin layer over the CUDA or HIP
// driver API. Everything above it (devices, buffers, modules, launches) is
// shared by both backends.
type driver interface {
	backend() Backend
	deviceName() string
	attributes() deviceAttributes
	alloc(bytes uintptr) (uintptr, error)
	free(ptr uintptr) error
	copyToDevice(dst uintptr, src unsafe.Pointer, bytes uintptr) error
	copyToHost(dst unsafe.Pointer, src uintptr, bytes uintptr) error
	copyOnDevice(dst, src uintptr, bytes uintptr) error
	memset(dst uintptr, value byte, bytes uintptr) error
	loadModule(image string) (uintptr, error)
	unloadModule(mod uintptr) error
	function(mod uintptr, name string) (uintptr, error)
	// synchronize waits for the legacy default stream.
	synchronize() error
	// synchronizeAll waits for all work of the device's context.
	synchronizeAll() error
	close() error
}

// launchOn launches fn through the driver drv. It calls each driver's
// launch method statically, not through the interface, so that the packed
// arguments, which live on the caller's stack, are known not to escape: a
// launch allocates nothing.
func launchOn(drv driver, fn uintptr, grid, block uint32, stream uintptr, args unsafe.Pointer, argSize uintptr) error {
	switch d := drv.(type) {
	case *cudaDriver:
		return d.launch(fn, grid, block, stream, args, argSize)
	}
	return ErrNoDevice
}

type deviceAttributes struct {
	multiprocessors            int
	maxThreadsPerSM            int
	maxThreadsPerBlock         int
	computeMajor, computeMinor int
}
