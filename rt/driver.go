package rt

import "unsafe"

// driver is what a GPU backend provides: a thin layer over the CUDA or HIP
// driver API. Everything above it (devices, buffers, modules, launches) is
// shared by both backends, and so is most of what is below it: both
// drivers embed gpuDriver (gpu.go), which calls either API through one table.
// What differs between GPUs beyond the calls themselves, the driver
// reports as facts (attributes, imageKinds).
type driver interface {
	deviceName() string
	attributes() deviceAttributes
	// imageKinds lists the kinds of device code the driver loads, the one
	// it prefers first.
	imageKinds() []imageKind
	alloc(bytes uintptr) (uintptr, error)
	free(ptr uintptr) error
	copyToDevice(dst uintptr, src unsafe.Pointer, bytes uintptr) error
	copyToHost(dst unsafe.Pointer, src uintptr, bytes uintptr) error
	loadModule(image codeImage) (uintptr, error)
	unloadModule(mod uintptr) error
	function(mod uintptr, name string) (uintptr, error)
	// activeBlocks is how many blocks of block threads of the function fn
	// a multiprocessor runs at once, which its registers and shared
	// memory may limit below the device's maximum; 0 when the driver
	// cannot say.
	activeBlocks(fn uintptr, block int) int
	// synchronize waits for the legacy default stream.
	synchronize() error

	// Streams (0 is the legacy default stream) and events.
	newStream(priority int) (uintptr, error)
	destroyStream(s uintptr) error
	synchronizeStream(s uintptr) error
	queryStream(s uintptr) (bool, error)
	waitEvent(s, e uintptr) error
	newEvent(timing bool) (uintptr, error)
	destroyEvent(e uintptr) error
	recordEvent(e, s uintptr) error
	synchronizeEvent(e uintptr) error
	queryEvent(e uintptr) (bool, error)
	elapsed(start, end uintptr) (float32, error)
	priorityRange() (least, greatest int, err error)

	// Copies ordered on a stream, and page-locked host memory.
	copyToDeviceAsync(dst uintptr, src unsafe.Pointer, bytes, s uintptr) error
	copyToHostAsync(dst unsafe.Pointer, src, bytes, s uintptr) error
	copyOnDeviceAsync(dst, src, bytes, s uintptr) error
	memsetAsync(dst uintptr, value byte, bytes, s uintptr) error
	allocHost(bytes uintptr) (unsafe.Pointer, error)
	freeHost(p unsafe.Pointer) error
	// allocMapped allocates page-locked host memory that kernels read and
	// write over the bus, at the device address dev; freeHost frees it.
	allocMapped(bytes uintptr) (host unsafe.Pointer, dev uintptr, err error)
	// synchronizeAll waits for all work of the device's context.
	synchronizeAll() error
	close() error

	// driverVersion is the version of the vendor's driver, such as 12080
	// for CUDA 12.8: cached device code is kept per driver version.
	driverVersion() int
	// features reports which optional parts below the driver has; shared
	// code calls none it lacks.
	features() driverFeatures

	// Graphs: nodes are added to a graph, which is instantiated into an
	// executable graph and launched on a stream as one unit. setGraphNode
	// changes the parameters of a node of an executable graph for its later
	// launches; launchGraph first gives the kernel nodes in updates the
	// argument buffer args and their new function and grid.
	newGraph() (uintptr, error)
	destroyGraph(g uintptr) error
	addGraphNode(g uintptr, deps []uintptr, n *graphNode) (uintptr, error)
	instantiateGraph(g uintptr) (uintptr, error)
	destroyGraphExec(exec uintptr) error
	setGraphNode(exec, node uintptr, n *graphNode) error
	launchGraph(exec, stream uintptr, updates []nodeUpdate, args []byte) error

	// Stream-ordered memory from a pool of the device. allocAsync
	// allocates on stream s; with wait it also waits until the memory may
	// be used on any stream. freeAsync frees on stream s once s has waited
	// for each of streams, recording one of events on each.
	allocAsync(bytes, s uintptr, wait bool) (uintptr, error)
	freeAsync(ptr, s uintptr, streams, events []uintptr) error

	// linkPTX compiles PTX into the device's binary code (a cubin), which
	// loadModule loads as an imageCubin.
	linkPTX(ptx string) ([]byte, error)
}

// driverFeatures are the optional parts of a driver.
type driverFeatures struct {
	graphs   bool // graphs, with updates of kernel, copy and memset nodes
	memPools bool // stream-ordered allocation from a pool
	linker   bool // linkPTX
}

// launchSeq is what one call into the driver queues on a stream: a wait
// for an event (if wait is not 0), the launches of tasks[:n] in order, all
// with the same packed arguments, and the recording of an event (if
// record is not 0). A kernel's tasks then cost one call into C, not one
// each.
type launchSeq struct {
	tasks        [maxSeqTasks]taskLaunch
	n            int
	stream       uintptr
	wait, record uintptr
}

// maxSeqTasks bounds the tasks of one launchSeq; a kernel with more
// launches them in several.
const maxSeqTasks = 8

// taskLaunch is a task's function and grid, laid out as gpu_shim.h's
// qd_task_launch.
type taskLaunch struct {
	fn          uintptr
	grid, block uint32
}

// Where a launchSeq failed, besides the index of a task.
const (
	seqWaitFailed = -1
	// seqRecordFailed is n, one past the last task.
)

// launchSeqOn queues seq through the driver drv with the packed
// arguments args, and on failure says which part failed: the index of a
// task, seqWaitFailed, or n for the record. It calls each driver's method
// statically, not through the interface, so that seq and the arguments,
// which live on the caller's stack, are known not to escape: a launch
// allocates nothing.
func launchSeqOn(drv driver, seq *launchSeq, args []byte) (failed int, err error) {
	switch d := drv.(type) {
	case *cudaDriver:
		return d.launchSeq(seq, sliceData(args), uintptr(len(args)))
	case *hipDriver:
		return d.launchSeq(seq, sliceData(args), uintptr(len(args)))
	case *fakeDriver:
		return d.launchSeq(seq, sliceData(args), uintptr(len(args)))
	}
	return 0, ErrNoDevice
}

// forkOn and joinOn are the fork and join of a stream-parallel group, each
// one call into the driver; like launchSeqOn they are called statically.
func forkOn(drv driver, ev, from uintptr, streams []uintptr) error {
	switch d := drv.(type) {
	case *cudaDriver:
		return d.fork(ev, from, streams)
	case *hipDriver:
		return d.fork(ev, from, streams)
	case *fakeDriver:
		return d.fork(ev, from, streams)
	}
	return ErrNoDevice
}

func joinOn(drv driver, events, streams []uintptr, into uintptr) error {
	switch d := drv.(type) {
	case *cudaDriver:
		return d.join(events, streams, into)
	case *hipDriver:
		return d.join(events, streams, into)
	case *fakeDriver:
		return d.join(events, streams, into)
	}
	return ErrNoDevice
}

// The kinds of device code each driver loads, the one it prefers first.
var (
	cudaImageKinds = []imageKind{imageCubin, imagePTX}
	// hipImageKinds: a code object built for the device's target, else
	// the source, compiled for it.
	hipImageKinds = []imageKind{imageHSACO, imageHIP}
)

// deviceAttributes are the facts about a device that shared code needs.
type deviceAttributes struct {
	arch               string // the GPU's architecture, such as "sm_90"
	multiprocessors    int
	maxThreadsPerSM    int
	maxThreadsPerBlock int
	// warpSize is the number of threads that run in lockstep (a warp on
	// NVIDIA GPUs, a wave on AMD's); block sizes are multiples of it.
	warpSize int
	// streamQueues is how many streams the device runs at once, the
	// default size of the stream pool.
	streamQueues int
	// maxSharedPerBlock is the static shared memory a block may have, in
	// bytes; 0 where unknown.
	maxSharedPerBlock int
}
