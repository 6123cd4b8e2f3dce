//go:build cgo

package rt

/*
// noescape: the C functions keep no pointer they are given, so out
// parameters and buffers stay on the Go stack; nocallback: none calls Go.
#cgo LDFLAGS: -ldl
#cgo noescape qd_launch_seq
#cgo nocallback qd_launch_seq
#cgo noescape qd_copy_to_device
#cgo nocallback qd_copy_to_device
#cgo noescape qd_copy_to_host
#cgo nocallback qd_copy_to_host
#cgo noescape qd_bench_launch
#cgo noescape qd_bench_launch_params
#cgo nocallback qd_bench_noop
#cgo noescape qd_bench_noop
#cgo noescape qd_fork
#cgo nocallback qd_fork
#cgo noescape qd_join
#cgo nocallback qd_join
#cgo nocallback qd_event_record
#cgo nocallback qd_stream_wait_event
#cgo noescape qd_stream_create
#cgo nocallback qd_stream_create
#cgo nocallback qd_stream_destroy
#cgo nocallback qd_stream_synchronize
#cgo noescape qd_event_create
#cgo nocallback qd_event_create
#cgo noescape qd_alloc
#cgo nocallback qd_alloc
#cgo nocallback qd_free
#cgo noescape qd_copy_to_device_async
#cgo nocallback qd_copy_to_device_async
#cgo noescape qd_copy_to_host_async
#cgo nocallback qd_copy_to_host_async
#cgo noescape qd_event_elapsed
#cgo nocallback qd_event_elapsed
#include "gpu_shim.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// gpuDriver is what the CUDA and HIP drivers share: one device of one driver
// API, called through the table of that API's functions (gpu_shim.h). The
// two drivers embed it and add what differs: how a device is opened and
// described, and the device code it loads.
type gpuDriver struct {
	api     *C.struct_qd_api
	dev     C.int
	ctx     C.uintptr_t // CUDA: the primary context; HIP: the device index
	name    string
	attrs   deviceAttributes
	feat    driverFeatures
	memPool uintptr // the pool of stream-ordered allocations, if any
}

// openAPI loads a driver API from the first of the libraries that opens.
func openAPI(hip bool, libraries []string) (*C.struct_qd_api, error) {
	var msgs []string
	for _, lib := range libraries {
		clib := C.CString(lib)
		var msg *C.char
		api := C.qd_open_api(boolInt(hip), clib, &msg)
		C.free(unsafe.Pointer(clib))
		if api != nil {
			return api, nil
		}
		msgs = append(msgs, C.GoString(msg))
	}
	return nil, fmt.Errorf("cannot load %s", strings.Join(msgs, "; "))
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// check turns the result of a call into a *DriverError naming the call as
// the API's library does, e.g. cuLaunchKernel or hipModuleLaunchKernel.
func (g *gpuDriver) check(call C.int, r C.qd_result) error {
	if r == 0 {
		return nil
	}
	return g.driverError(C.GoString(C.qd_call_name(g.api, call)), r)
}

func (g *gpuDriver) driverError(call string, r C.qd_result) *DriverError {
	return &DriverError{Call: call, Code: int(r), Name: C.GoString(C.qd_error_name(g.api, r))}
}

// callNames names calls for an operation made of several.
func (g *gpuDriver) callNames(calls ...C.int) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = C.GoString(C.qd_call_name(g.api, c))
	}
	return strings.Join(names, ", ")
}

// open initializes the API and opens its device of the given index.
func (g *gpuDriver) open(index int, backend Backend) error {
	if r := C.qd_init(g.api); r != 0 {
		return fmt.Errorf("%w: %w", ErrNoDevice, g.check(C.QD_CALL_Init, r))
	}
	var count C.int
	if r := C.qd_device_count(g.api, &count); r != 0 {
		return fmt.Errorf("%w: %w", ErrNoDevice, g.check(C.QD_CALL_DeviceGetCount, r))
	}
	if index < 0 || index >= int(count) {
		return fmt.Errorf("%w: device %d of %d %s devices", ErrNoDevice, index, int(count), backend)
	}
	var name [256]C.char
	if r := C.qd_device_open(g.api, C.int(index), &g.dev, &g.ctx, &name[0], C.int(len(name))); r != 0 {
		return g.driverError("open device", r)
	}
	g.name = C.GoString(&name[0])
	return nil
}

// attribute reads a device attribute by the API's number for it.
func (g *gpuDriver) attribute(attr int) int {
	var v C.int
	C.qd_attribute(g.api, g.dev, C.int(attr), &v)
	return int(v)
}

// driverVersion is the version of the driver (CUDA) or runtime (HIP):
// cached device code is kept per version.
func (g *gpuDriver) driverVersion() int {
	var v C.int
	C.qd_driver_version(g.api, &v)
	return int(v)
}

func (g *gpuDriver) deviceName() string           { return g.name }
func (g *gpuDriver) attributes() deviceAttributes { return g.attrs }

func (g *gpuDriver) alloc(bytes uintptr) (uintptr, error) {
	var p C.uintptr_t
	r := C.qd_alloc(g.api, g.ctx, &p, C.size_t(bytes))
	return uintptr(p), g.check(C.QD_CALL_MemAlloc, r)
}

func (g *gpuDriver) free(ptr uintptr) error {
	return g.check(C.QD_CALL_MemFree, C.qd_free(g.api, g.ctx, C.uintptr_t(ptr)))
}

func (g *gpuDriver) copyToDevice(dst uintptr, src unsafe.Pointer, bytes uintptr) error {
	return g.check(C.QD_CALL_MemcpyHtoD, C.qd_copy_to_device(g.api, g.ctx, C.uintptr_t(dst), (*C.uchar)(src), C.size_t(bytes)))
}

func (g *gpuDriver) copyToHost(dst unsafe.Pointer, src uintptr, bytes uintptr) error {
	return g.check(C.QD_CALL_MemcpyDtoH, C.qd_copy_to_host(g.api, g.ctx, (*C.uchar)(dst), C.uintptr_t(src), C.size_t(bytes)))
}

// loadCode loads a module from PTX, which the driver compiles; its
// compiler's error log comes with the error.
func (g *gpuDriver) loadCode(code []byte) (uintptr, error) {
	image := C.CBytes(append(code[:len(code):len(code)], 0)) // PTX must end in NUL
	defer C.free(image)
	var mod C.uintptr_t
	var log [8192]C.char
	r := C.qd_module_load(g.api, g.ctx, &mod, image, &log[0], C.int(len(log)))
	if r != 0 {
		err := g.driverError(C.GoString(C.qd_call_name(g.api, C.QD_CALL_ModuleLoadDataEx)), r)
		err.Log = strings.TrimSpace(C.GoString(&log[0]))
		return 0, err
	}
	return uintptr(mod), nil
}

func (g *gpuDriver) unloadModule(mod uintptr) error {
	return g.check(C.QD_CALL_ModuleUnload, C.qd_module_unload(g.api, g.ctx, C.uintptr_t(mod)))
}

// symbol is the name a module's code gives an entry: the entry's own,
// except in the test build that compiles HIP source with NVRTC (nvrtc.go).
var symbol = func(entry string) string { return entry }

func (g *gpuDriver) activeBlocks(fn uintptr, block int) int {
	return int(C.qd_active_blocks(g.api, g.ctx, C.uintptr_t(fn), C.int(block)))
}

func (g *gpuDriver) function(mod uintptr, name string) (uintptr, error) {
	cname := C.CString(symbol(name))
	defer C.free(unsafe.Pointer(cname))
	var fn C.uintptr_t
	r := C.qd_function(g.api, g.ctx, &fn, C.uintptr_t(mod), cname)
	if r != 0 {
		err := g.driverError(C.GoString(C.qd_call_name(g.api, C.QD_CALL_ModuleGetFunction)), r)
		err.Log = "entry " + name
		return 0, err
	}
	return uintptr(fn), nil
}

func (g *gpuDriver) launchSeq(seq *launchSeq, args unsafe.Pointer, argSize uintptr) (int, error) {
	var failed C.int
	r := C.qd_launch_seq(g.api, g.ctx, (*C.qd_task_launch)(unsafe.Pointer(&seq.tasks[0])), C.int(seq.n), C.uintptr_t(seq.stream),
		(*C.uchar)(args), C.size_t(argSize), C.uintptr_t(seq.wait), C.uintptr_t(seq.record), &failed)
	if r == 0 {
		return 0, nil
	}
	call := C.int(C.QD_CALL_LaunchKernel)
	switch {
	case int(failed) == seqWaitFailed && seq.wait == 0:
		// Making the context current failed.
		if g.api.hip != 0 {
			call = C.QD_CALL_SetDevice
		} else {
			call = C.QD_CALL_CtxSetCurrent
		}
	case int(failed) == seqWaitFailed:
		call = C.QD_CALL_StreamWaitEvent
	case int(failed) == seq.n:
		call = C.QD_CALL_EventRecord
	}
	return int(failed), g.check(call, r)
}

func (g *gpuDriver) synchronize() error {
	return g.check(C.QD_CALL_StreamSynchronize, C.qd_stream_synchronize(g.api, g.ctx, 0))
}

func (g *gpuDriver) synchronizeAll() error {
	return g.check(C.QD_CALL_Synchronize, C.qd_synchronize(g.api, g.ctx))
}

func (g *gpuDriver) close() error {
	var err error
	if g.memPool != 0 {
		err = g.check(C.QD_CALL_MemPoolDestroy, C.qd_pool_destroy(g.api, g.ctx, C.uintptr_t(g.memPool)))
	}
	if e := g.check(C.QD_CALL_DevicePrimaryCtxRelease, C.qd_device_close(g.api, g.dev)); err == nil {
		err = e
	}
	return err
}

// loadBinary loads binary code (a cubin, an AMD code object) as it is.
// The driver reads the code during the call only: it needs no copy in C
// memory.
func (g *gpuDriver) loadBinary(code string) (uintptr, error) {
	var mod C.uintptr_t
	r := C.qd_module_load_binary(g.api, g.ctx, &mod, unsafe.Pointer(unsafe.StringData(code)))
	return uintptr(mod), g.check(C.QD_CALL_ModuleLoadData, r)
}

// notReady is CUDA_ERROR_NOT_READY and hipErrorNotReady, the answer of a
// query whose work is still running.
const notReady = 600

func (g *gpuDriver) newStream(priority int) (uintptr, error) {
	var s C.uintptr_t
	r := C.qd_stream_create(g.api, g.ctx, &s, C.int(priority))
	return uintptr(s), g.check(g.streamCreateCall(priority), r)
}

// streamCreateCall is the call qd_new_stream makes for a stream of the
// given priority.
func (g *gpuDriver) streamCreateCall(priority int) C.int {
	if priority == 0 && g.api.fn[C.QD_CALL_StreamCreate] != nil {
		return C.QD_CALL_StreamCreate
	}
	return C.QD_CALL_StreamCreateWithPriority
}

func (g *gpuDriver) destroyStream(s uintptr) error {
	return g.check(C.QD_CALL_StreamDestroy, C.qd_stream_destroy(g.api, g.ctx, C.uintptr_t(s)))
}

func (g *gpuDriver) synchronizeStream(s uintptr) error {
	return g.check(C.QD_CALL_StreamSynchronize, C.qd_stream_synchronize(g.api, g.ctx, C.uintptr_t(s)))
}

func (g *gpuDriver) queryStream(s uintptr) (bool, error) {
	r := C.qd_stream_query(g.api, g.ctx, C.uintptr_t(s))
	if r == notReady {
		return false, nil
	}
	return r == 0, g.check(C.QD_CALL_StreamQuery, r)
}

func (g *gpuDriver) waitEvent(s, e uintptr) error {
	return g.check(C.QD_CALL_StreamWaitEvent, C.qd_stream_wait_event(g.api, g.ctx, C.uintptr_t(s), C.uintptr_t(e)))
}

func (g *gpuDriver) newEvent(timing bool) (uintptr, error) {
	var e C.uintptr_t
	r := C.qd_event_create(g.api, g.ctx, &e, boolInt(timing))
	return uintptr(e), g.check(C.QD_CALL_EventCreate, r)
}

func (g *gpuDriver) destroyEvent(e uintptr) error {
	return g.check(C.QD_CALL_EventDestroy, C.qd_event_destroy(g.api, g.ctx, C.uintptr_t(e)))
}

func (g *gpuDriver) recordEvent(e, s uintptr) error {
	return g.check(C.QD_CALL_EventRecord, C.qd_event_record(g.api, g.ctx, C.uintptr_t(e), C.uintptr_t(s)))
}

func (g *gpuDriver) synchronizeEvent(e uintptr) error {
	return g.check(C.QD_CALL_EventSynchronize, C.qd_event_synchronize(g.api, g.ctx, C.uintptr_t(e)))
}

func (g *gpuDriver) queryEvent(e uintptr) (bool, error) {
	r := C.qd_event_query(g.api, g.ctx, C.uintptr_t(e))
	if r == notReady {
		return false, nil
	}
	return r == 0, g.check(C.QD_CALL_EventQuery, r)
}

func (g *gpuDriver) elapsed(start, end uintptr) (float32, error) {
	var ms C.float
	r := C.qd_event_elapsed(g.api, g.ctx, &ms, C.uintptr_t(start), C.uintptr_t(end))
	return float32(ms), g.check(C.QD_CALL_EventElapsedTime, r)
}

func (g *gpuDriver) priorityRange() (least, greatest int, err error) {
	var l, gr C.int
	r := C.qd_priority_range(g.api, g.ctx, &l, &gr)
	return int(l), int(gr), g.check(C.QD_CALL_StreamPriorityRange, r)
}

func (g *gpuDriver) copyToDeviceAsync(dst uintptr, src unsafe.Pointer, bytes, s uintptr) error {
	return g.check(C.QD_CALL_MemcpyHtoDAsync, C.qd_copy_to_device_async(g.api, g.ctx, C.uintptr_t(dst), (*C.uchar)(src), C.size_t(bytes), C.uintptr_t(s)))
}

func (g *gpuDriver) copyToHostAsync(dst unsafe.Pointer, src, bytes, s uintptr) error {
	return g.check(C.QD_CALL_MemcpyDtoHAsync, C.qd_copy_to_host_async(g.api, g.ctx, (*C.uchar)(dst), C.uintptr_t(src), C.size_t(bytes), C.uintptr_t(s)))
}

func (g *gpuDriver) copyOnDeviceAsync(dst, src, bytes, s uintptr) error {
	return g.check(C.QD_CALL_MemcpyDtoDAsync, C.qd_copy_on_device_async(g.api, g.ctx, C.uintptr_t(dst), C.uintptr_t(src), C.size_t(bytes), C.uintptr_t(s)))
}

func (g *gpuDriver) memsetAsync(dst uintptr, value byte, bytes, s uintptr) error {
	return g.check(C.QD_CALL_MemsetD8Async, C.qd_memset_async(g.api, g.ctx, C.uintptr_t(dst), C.uchar(value), C.size_t(bytes), C.uintptr_t(s)))
}

func (g *gpuDriver) allocHost(bytes uintptr) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	r := C.qd_alloc_host(g.api, g.ctx, &p, C.size_t(bytes))
	call := C.int(C.QD_CALL_MemAllocHost)
	if g.api.hip != 0 {
		call = C.QD_CALL_MemHostAlloc
	}
	return p, g.check(call, r)
}

func (g *gpuDriver) allocMapped(bytes uintptr) (unsafe.Pointer, uintptr, error) {
	var p unsafe.Pointer
	var dev C.uintptr_t
	r := C.qd_alloc_mapped(g.api, g.ctx, &p, &dev, C.size_t(bytes))
	if r == 0 {
		return p, uintptr(dev), nil
	}
	return nil, 0, g.driverError(g.callNames(C.QD_CALL_MemHostAlloc, C.QD_CALL_MemHostGetDevicePointer), r)
}

func (g *gpuDriver) freeHost(p unsafe.Pointer) error {
	return g.check(C.QD_CALL_MemFreeHost, C.qd_free_host(g.api, g.ctx, p))
}

// fork and join queue a stream-parallel group's fork and join, each in one
// call into C. The fork's event is recorded on the launching stream after
// everything queued there before, uploads of the launch's data included,
// and every pool stream waits for it before its first kernel.
func (g *gpuDriver) fork(ev, from uintptr, streams []uintptr) error {
	r := C.qd_fork(g.api, g.ctx, C.uintptr_t(ev), C.uintptr_t(from), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(streams))), C.int(len(streams)))
	if r == 0 {
		return nil
	}
	return g.driverError("fork ("+g.callNames(C.QD_CALL_EventRecord, C.QD_CALL_StreamWaitEvent)+")", r)
}

func (g *gpuDriver) join(events, streams []uintptr, into uintptr) error {
	r := C.qd_join(g.api, g.ctx, (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(events))), (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(streams))), C.int(len(streams)), C.uintptr_t(into))
	if r == 0 {
		return nil
	}
	return g.driverError("join ("+g.callNames(C.QD_CALL_EventRecord, C.QD_CALL_StreamWaitEvent)+")", r)
}

// The bench functions run n driver calls in a loop in C: the benchmarks
// compare them with the same calls made one by one from Go.

func (g *gpuDriver) benchRecordWait(ev, s1, s2 uintptr, n int) error {
	return g.check(C.QD_CALL_EventRecord, C.qd_bench_record_wait(g.api, g.ctx, C.uintptr_t(ev), C.uintptr_t(s1), C.uintptr_t(s2), C.int(n)))
}

func (g *gpuDriver) benchStreamCreateDestroy(n int) error {
	return g.check(g.streamCreateCall(0), C.qd_bench_stream_create_destroy(g.api, g.ctx, C.int(n)))
}

func (g *gpuDriver) benchLaunch(fn, stream uintptr, args []byte, n int) error {
	return g.check(C.QD_CALL_LaunchKernel, C.qd_bench_launch(g.api, g.ctx, C.uintptr_t(fn), C.uintptr_t(stream), unsafe.Pointer(unsafe.SliceData(args)), C.size_t(len(args)), C.int(n)))
}

func (g *gpuDriver) benchLaunchParams(fn, stream uintptr, arg0 *uint64, n int) error {
	return g.check(C.QD_CALL_LaunchKernel, C.qd_bench_launch_params(g.api, g.ctx, C.uintptr_t(fn), C.uintptr_t(stream), unsafe.Pointer(arg0), C.int(n)))
}

// benchAllocFree allocates and frees from qd's pool, or with defaultPool
// from the device's default pool.
func (g *gpuDriver) benchAllocFree(s uintptr, size uintptr, n int, defaultPool bool) error {
	pool := g.memPool
	if defaultPool {
		pool = 0
	}
	r := C.qd_bench_alloc_free(g.api, g.ctx, C.uintptr_t(pool), C.uintptr_t(s), C.size_t(size), C.int(n))
	if r == 0 {
		return nil
	}
	return g.driverError("alloc and free loop", r)
}

func benchNoop() { C.qd_bench_noop() }

func (g *gpuDriver) benchUse(n int) { C.qd_bench_use(g.api, g.ctx, C.int(n)) }

func (g *gpuDriver) benchRecord(ev, s uintptr, n int) {
	C.qd_bench_record(g.api, g.ctx, C.uintptr_t(ev), C.uintptr_t(s), C.int(n))
}

// makeCurrent makes the device's context current on the calling thread.
func (g *gpuDriver) makeCurrent() error {
	call := C.int(C.QD_CALL_CtxSetCurrent)
	if g.api.hip != 0 {
		call = C.QD_CALL_SetDevice
	}
	return g.check(call, C.qd_use(g.api, g.ctx))
}
