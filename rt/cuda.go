//go:build cgo

package rt

/*
#cgo LDFLAGS: -ldl
#cgo noescape qd_cu_launch
#cgo nocallback qd_cu_launch
#cgo noescape qd_cu_copy_to_device
#cgo nocallback qd_cu_copy_to_device
#cgo noescape qd_cu_copy_to_host
#cgo nocallback qd_cu_copy_to_host
#cgo noescape qd_cu_bench_launch
#cgo nocallback qd_cu_bench_noop
#cgo noescape qd_cu_bench_noop
#cgo noescape qd_cu_fork
#cgo nocallback qd_cu_fork
#cgo noescape qd_cu_join
#cgo nocallback qd_cu_join
#cgo nocallback qd_cu_event_record
#cgo nocallback qd_cu_stream_wait_event
#include "cuda_shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// The CUDA driver is loaded with dlopen when the first device opens: qd
// declares the few driver functions it calls itself, so building needs no
// CUDA headers or libraries, and a machine without a GPU runs the CPU
// backend from the same binary.

var (
	cudaOnce sync.Once
	cudaErr  error
)

func loadCUDA() error {
	cudaOnce.Do(func() {
		var msg *C.char
		if r := C.qd_cu_load(&msg); r != 0 {
			cudaErr = fmt.Errorf("%w: cannot load libcuda.so.1: %s", ErrNoDevice, C.GoString(msg))
			return
		}
		if r := C.qd_cu_init(); r != 0 {
			cudaErr = fmt.Errorf("%w: %w", ErrNoDevice, cuError("cuInit", r))
		}
	})
	return cudaErr
}

// cuError turns a CUresult into a *DriverError.
func cuError(call string, r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return &DriverError{Call: call, Code: int(r), Name: C.GoString(C.qd_cu_error_name(r))}
}

// cudaDriver is one CUDA device with its primary context.
type cudaDriver struct {
	dev     C.CUdevice
	ctx     C.CUcontext
	name    string
	attrs   deviceAttributes
	feat    driverFeatures
	memPool uintptr // the pool of stream-ordered allocations, if any
}

func openCUDA(index int) (driver, error) {
	if err := loadCUDA(); err != nil {
		return nil, err
	}
	var count C.int
	if r := C.qd_cu_device_count(&count); r != 0 {
		return nil, cuError("cuDeviceGetCount", r)
	}
	if index < 0 || index >= int(count) {
		return nil, fmt.Errorf("%w: device %d of %d CUDA devices", ErrNoDevice, index, int(count))
	}
	d := &cudaDriver{}
	var name [256]C.char
	if r := C.qd_cu_device_open(C.int(index), &d.dev, &d.ctx, &name[0], C.int(len(name))); r != 0 {
		return nil, cuError("cuDevicePrimaryCtxRetain", r)
	}
	d.name = C.GoString(&name[0])
	attr := func(a C.int) int {
		var v C.int
		C.qd_cu_attribute(d.dev, a, &v)
		return int(v)
	}
	d.attrs = deviceAttributes{
		arch:               fmt.Sprintf("sm_%d%d", attr(C.QD_ATTR_COMPUTE_CAPABILITY_MAJOR), attr(C.QD_ATTR_COMPUTE_CAPABILITY_MINOR)),
		multiprocessors:    attr(C.QD_ATTR_MULTIPROCESSOR_COUNT),
		maxThreadsPerSM:    attr(C.QD_ATTR_MAX_THREADS_PER_MULTIPROCESSOR),
		maxThreadsPerBlock: attr(C.QD_ATTR_MAX_THREADS_PER_BLOCK),
		warpSize:           attr(C.QD_ATTR_WARP_SIZE),
		streamQueues:       cudaMaxConnections(),
	}
	d.openFeatures(attr(C.QD_ATTR_MEMORY_POOLS_SUPPORTED) != 0)
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

func (d *cudaDriver) deviceName() string           { return d.name }
func (d *cudaDriver) attributes() deviceAttributes { return d.attrs }

// cudaImageKinds are the kinds of device code the CUDA driver loads.
var cudaImageKinds = []ImageKind{ImageCubin, ImagePTX}

func (d *cudaDriver) imageKinds() []ImageKind { return cudaImageKinds }

func (d *cudaDriver) alloc(bytes uintptr) (uintptr, error) {
	var p C.CUdeviceptr
	r := C.qd_cu_alloc(d.ctx, &p, C.size_t(bytes))
	return uintptr(p), cuError("cuMemAlloc", r)
}

func (d *cudaDriver) free(ptr uintptr) error {
	return cuError("cuMemFree", C.qd_cu_free(d.ctx, C.CUdeviceptr(ptr)))
}

func (d *cudaDriver) copyToDevice(dst uintptr, src unsafe.Pointer, bytes uintptr) error {
	return cuError("cuMemcpyHtoD", C.qd_cu_copy_to_device(d.ctx, C.CUdeviceptr(dst), src, C.size_t(bytes)))
}

func (d *cudaDriver) copyToHost(dst unsafe.Pointer, src uintptr, bytes uintptr) error {
	return cuError("cuMemcpyDtoH", C.qd_cu_copy_to_host(d.ctx, dst, C.CUdeviceptr(src), C.size_t(bytes)))
}

func (d *cudaDriver) loadModule(image Image) (uintptr, error) {
	if image.Kind == ImageCubin {
		bin := C.CBytes([]byte(image.Data))
		defer C.free(bin)
		var mod C.uintptr_t
		r := C.qd_cu_module_load_binary(d.ctx, &mod, bin)
		return uintptr(mod), cuError("cuModuleLoadData", r)
	}
	src := C.CString(image.Data)
	defer C.free(unsafe.Pointer(src))
	var mod C.uintptr_t
	var log [8192]C.char
	r := C.qd_cu_module_load(d.ctx, &mod, src, &log[0], C.int(len(log)))
	if r != 0 {
		err := cuError("cuModuleLoadDataEx", r).(*DriverError)
		err.Log = strings.TrimSpace(C.GoString(&log[0]))
		return 0, err
	}
	return uintptr(mod), nil
}

func (d *cudaDriver) unloadModule(mod uintptr) error {
	return cuError("cuModuleUnload", C.qd_cu_module_unload(d.ctx, C.uintptr_t(mod)))
}

func (d *cudaDriver) function(mod uintptr, name string) (uintptr, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var fn C.uintptr_t
	r := C.qd_cu_function(d.ctx, &fn, C.uintptr_t(mod), cname)
	if r != 0 {
		err := cuError("cuModuleGetFunction", r).(*DriverError)
		err.Log = "entry " + name
		return 0, err
	}
	return uintptr(fn), nil
}

func (d *cudaDriver) launch(fn uintptr, grid, block uint32, stream uintptr, args unsafe.Pointer, argSize uintptr) error {
	r := C.qd_cu_launch(d.ctx, C.uintptr_t(fn), C.uint(grid), C.uint(block),
		C.uintptr_t(stream), args, C.size_t(argSize))
	return cuError("cuLaunchKernel", r)
}

func (d *cudaDriver) synchronize() error {
	return cuError("cuStreamSynchronize", C.qd_cu_stream_synchronize(d.ctx, 0))
}

func (d *cudaDriver) synchronizeAll() error {
	return cuError("cuCtxSynchronize", C.qd_cu_ctx_synchronize(d.ctx))
}

func (d *cudaDriver) close() error {
	var err error
	if d.memPool != 0 {
		err = cuError("cuMemPoolDestroy", C.qd_cu_pool_destroy(d.ctx, C.uintptr_t(d.memPool)))
	}
	if e := cuError("cuDevicePrimaryCtxRelease", C.qd_cu_device_close(d.dev)); err == nil {
		err = e
	}
	return err
}

// notReady is CUDA_ERROR_NOT_READY, the answer of a query whose work is
// still running.
const notReady = 600

func (d *cudaDriver) newStream(priority int) (uintptr, error) {
	var s C.uintptr_t
	r := C.qd_cu_stream_create(d.ctx, &s, C.int(priority))
	return uintptr(s), cuError("cuStreamCreateWithPriority", r)
}

func (d *cudaDriver) destroyStream(s uintptr) error {
	return cuError("cuStreamDestroy", C.qd_cu_stream_destroy(d.ctx, C.uintptr_t(s)))
}

func (d *cudaDriver) synchronizeStream(s uintptr) error {
	return cuError("cuStreamSynchronize", C.qd_cu_stream_synchronize(d.ctx, C.uintptr_t(s)))
}

func (d *cudaDriver) queryStream(s uintptr) (bool, error) {
	r := C.qd_cu_stream_query(d.ctx, C.uintptr_t(s))
	if r == notReady {
		return false, nil
	}
	return r == 0, cuError("cuStreamQuery", r)
}

func (d *cudaDriver) waitEvent(s, e uintptr) error {
	return cuError("cuStreamWaitEvent", C.qd_cu_stream_wait_event(d.ctx, C.uintptr_t(s), C.uintptr_t(e)))
}

func (d *cudaDriver) newEvent(timing bool) (uintptr, error) {
	var e C.uintptr_t
	t := C.int(0)
	if timing {
		t = 1
	}
	r := C.qd_cu_event_create(d.ctx, &e, t)
	return uintptr(e), cuError("cuEventCreate", r)
}

func (d *cudaDriver) destroyEvent(e uintptr) error {
	return cuError("cuEventDestroy", C.qd_cu_event_destroy(d.ctx, C.uintptr_t(e)))
}

func (d *cudaDriver) recordEvent(e, s uintptr) error {
	return cuError("cuEventRecord", C.qd_cu_event_record(d.ctx, C.uintptr_t(e), C.uintptr_t(s)))
}

func (d *cudaDriver) synchronizeEvent(e uintptr) error {
	return cuError("cuEventSynchronize", C.qd_cu_event_synchronize(d.ctx, C.uintptr_t(e)))
}

func (d *cudaDriver) queryEvent(e uintptr) (bool, error) {
	r := C.qd_cu_event_query(d.ctx, C.uintptr_t(e))
	if r == notReady {
		return false, nil
	}
	return r == 0, cuError("cuEventQuery", r)
}

func (d *cudaDriver) elapsed(start, end uintptr) (float32, error) {
	var ms C.float
	r := C.qd_cu_event_elapsed(d.ctx, &ms, C.uintptr_t(start), C.uintptr_t(end))
	return float32(ms), cuError("cuEventElapsedTime", r)
}

func (d *cudaDriver) priorityRange() (least, greatest int, err error) {
	var l, g C.int
	r := C.qd_cu_priority_range(d.ctx, &l, &g)
	return int(l), int(g), cuError("cuCtxGetStreamPriorityRange", r)
}

func (d *cudaDriver) copyToDeviceAsync(dst uintptr, src unsafe.Pointer, bytes, s uintptr) error {
	return cuError("cuMemcpyHtoDAsync", C.qd_cu_copy_to_device_async(d.ctx, C.CUdeviceptr(dst), src, C.size_t(bytes), C.uintptr_t(s)))
}

func (d *cudaDriver) copyToHostAsync(dst unsafe.Pointer, src, bytes, s uintptr) error {
	return cuError("cuMemcpyDtoHAsync", C.qd_cu_copy_to_host_async(d.ctx, dst, C.CUdeviceptr(src), C.size_t(bytes), C.uintptr_t(s)))
}

func (d *cudaDriver) copyOnDeviceAsync(dst, src, bytes, s uintptr) error {
	return cuError("cuMemcpyDtoDAsync", C.qd_cu_copy_on_device_async(d.ctx, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes), C.uintptr_t(s)))
}

func (d *cudaDriver) memsetAsync(dst uintptr, value byte, bytes, s uintptr) error {
	return cuError("cuMemsetD8Async", C.qd_cu_memset_async(d.ctx, C.CUdeviceptr(dst), C.uchar(value), C.size_t(bytes), C.uintptr_t(s)))
}

func (d *cudaDriver) allocHost(bytes uintptr) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	r := C.qd_cu_alloc_host(d.ctx, &p, C.size_t(bytes))
	return p, cuError("cuMemAllocHost", r)
}

func (d *cudaDriver) freeHost(p unsafe.Pointer) error {
	return cuError("cuMemFreeHost", C.qd_cu_free_host(d.ctx, p))
}

func (d *cudaDriver) allocMapped(bytes uintptr) (unsafe.Pointer, uintptr, error) {
	var p unsafe.Pointer
	var dev C.CUdeviceptr
	r := C.qd_cu_alloc_mapped(d.ctx, &p, &dev, C.size_t(bytes))
	return p, uintptr(dev), cuError("cuMemHostAlloc", r)
}

func (d *cudaDriver) fork(ev, from uintptr, streams []uintptr) error {
	r := C.qd_cu_fork(d.ctx, C.uintptr_t(ev), C.uintptr_t(from), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(streams))), C.int(len(streams)))
	return cuError("fork (cuEventRecord, cuStreamWaitEvent)", r)
}

func (d *cudaDriver) join(events, streams []uintptr, into uintptr) error {
	r := C.qd_cu_join(d.ctx, (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(events))), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(streams))), C.int(len(streams)), C.uintptr_t(into))
	return cuError("join (cuEventRecord, cuStreamWaitEvent)", r)
}

// The bench functions run n driver calls in a loop in C: the benchmarks
// compare them with the same calls made one by one from Go.

func (d *cudaDriver) benchRecordWait(ev, s1, s2 uintptr, n int) error {
	return cuError("record and wait loop", C.qd_cu_bench_record_wait(d.ctx, C.uintptr_t(ev), C.uintptr_t(s1), C.uintptr_t(s2), C.int(n)))
}

func (d *cudaDriver) benchStreamCreateDestroy(n int) error {
	return cuError("stream loop", C.qd_cu_bench_stream_create_destroy(d.ctx, C.int(n)))
}

func (d *cudaDriver) benchLaunch(fn, stream uintptr, args []byte, n int) error {
	return cuError("launch loop", C.qd_cu_bench_launch(d.ctx, C.uintptr_t(fn), C.uintptr_t(stream), unsafe.Pointer(unsafe.SliceData(args)), C.size_t(len(args)), C.int(n)))
}

func benchNoop() { C.qd_cu_bench_noop() }

func (d *cudaDriver) benchUse(n int) { C.qd_cu_bench_use(d.ctx, C.int(n)) }

func (d *cudaDriver) benchRecord(ev, s uintptr, n int) {
	C.qd_cu_bench_record(d.ctx, C.uintptr_t(ev), C.uintptr_t(s), C.int(n))
}
