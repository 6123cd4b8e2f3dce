// Package rt is the runtime of qd: it opens a device, moves data between
// the host and device buffers, loads the modules qdgen generates and
// launches their kernels.
//
// A program calls rt and the stubs qdgen writes for a package of kernels:
// its Load(dev) and one method per kernel, which take *Buffer[T] for slice
// parameters and LaunchOptions last. What those stubs call of the runtime
// is package rtimpl, for generated code only.
//
// The backends share one API. CUDA is used when the NVIDIA driver library
// (libcuda.so.1) can be loaded at run time, HIP when AMD's HIP runtime
// (libamdhip64.so, from ROCm) can; nothing of either is needed to build.
// The CPU backend runs each kernel as the Go function it was written as, so
// every program also runs, serially, on a machine without a GPU; there every
// stream and event operation succeeds and does nothing. A GPU backend is a
// driver (driver.go): the calls of one vendor's driver API, the facts of
// its devices, and the kinds of device code it loads; everything above it
// is shared.
//
// Beyond launches, streams and events, the runtime replays kernels with
// qd.StreamParallel blocks as cached graphs (kgraph.go), records work on
// several streams into graphs that replay as one unit (Device.Record),
// frees memory stream-ordered after the streams that used it (memory.go),
// keeps the driver's compiled PTX in a module cache (modcache.go), and
// traces what ran on which stream (Device.StartTrace).
//
// The environment variable QD_BACKEND (cpu, cuda, hip, gpu or auto; gpu
// requires a GPU of any backend) and QD_DEVICE (a device index) choose the
// device Open returns; QD_CPU_DEVICES sets how many pretend devices the
// CPU backend has (devices.go); QD_TRACE names a file
// that a trace of the device's work is written to when it closes, with
// those of the process's other devices ("{rank}" in it is RANK);
// QD_CACHE_DIR and QD_CACHE=off set and disable the module cache;
// QD_GRAPHS=off and QD_MEMPOOL=off turn off kernel graphs and
// stream-ordered memory.
package rt

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Backend is a kind of device.
type Backend int

const (
	// Auto picks CUDA when an NVIDIA GPU is usable, else HIP when an AMD
	// GPU is, else the CPU; the device's String says which, and why not a
	// GPU.
	Auto Backend = iota
	CPU
	CUDA
	HIP
	// GPU requires a GPU: the first usable GPU backend, as Auto picks it,
	// or an error wrapping ErrNoDevice instead of the CPU.
	GPU
)

func (b Backend) String() string {
	switch b {
	case CPU:
		return "cpu"
	case CUDA:
		return "cuda"
	case HIP:
		return "hip"
	case GPU:
		return "gpu"
	}
	return "auto"
}

// ParseBackend reads a backend name as QD_BACKEND accepts it.
func ParseBackend(s string) (Backend, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "cpu":
		return CPU, nil
	case "cuda":
		return CUDA, nil
	case "hip":
		return HIP, nil
	case "gpu":
		return GPU, nil
	}
	return Auto, fmt.Errorf("qd: unknown backend %q (want cpu, cuda, hip, gpu or auto)", s)
}

// Device is an open GPU, or the CPU. A Device is safe for use by many
// goroutines at once.
type Device struct {
	backend Backend
	index   int
	drv     driver // nil for the CPU
	attrs   deviceAttributes
	name    string
	// defaultGrid caps the grids of launches with the default block size
	// (fullGrid).
	defaultGrid int64
	// noGPU is why Open chose the CPU for Auto, if it did.
	noGPU error

	closed atomic.Bool
	// inUse is held for reading by each launch and copy while it runs,
	// and for writing by Close while it marks the device closed: Close
	// waits for the launches and copies under way, and none starts after.
	inUse sync.RWMutex

	mu      sync.Mutex // guards modules, live and closing
	modules map[*moduleSpec]*Module
	live    []liveEntry // what Close frees (live.go)

	// Counts of live driver objects, for leak checks.
	streams, events, buffers, hostBuffers atomic.Int64

	pool streamPool // streams and events of stream-parallel launches
	mem  memory     // stream-ordered allocation, where the driver has it

	streamIDs atomic.Int64 // numbers streams for traces
	recording atomic.Int32 // recordings under way (Device.Record)

	tracer    atomic.Pointer[tracer] // the running trace, or nil
	tracePath string                 // QD_TRACE: where Close writes the trace

	faults faults // the fault records of the modules loaded
}

// Option configures Open.
type Option struct {
	backend     Backend
	index       int
	setBackend  bool
	setIndex    bool
	poolStreams int
}

// WithBackend makes Open use the given backend, ignoring QD_BACKEND.
func WithBackend(b Backend) Option { return Option{backend: b, setBackend: true} }

// WithDevice makes Open use the GPU of the given index, ignoring QD_DEVICE.
func WithDevice(index int) Option { return Option{index: index, setIndex: true} }

// Open opens a device: the one the options or QD_BACKEND and QD_DEVICE ask
// for, else the first GPU, else the CPU. Asking for a GPU backend that
// cannot be used is an error wrapping ErrNoDevice.
func Open(opts ...Option) (*Device, error) {
	backend, err := ParseBackend(os.Getenv("QD_BACKEND"))
	if err != nil {
		return nil, err
	}
	index := 0
	if s := os.Getenv("QD_DEVICE"); s != "" {
		if index, err = strconv.Atoi(s); err != nil {
			return nil, fmt.Errorf("qd: QD_DEVICE=%q is not a device index", s)
		}
	}
	pool := 0
	for _, o := range opts {
		if o.setBackend {
			backend = o.backend
		}
		if o.setIndex {
			index = o.index
		}
		if o.poolStreams > 0 {
			pool = o.poolStreams
		}
	}
	var d *Device
	switch backend {
	case CPU:
		if d, err = openCPUDevice(index); err != nil {
			return nil, err
		}
	case CUDA, HIP:
		if d, err = openGPU(backend, index); err != nil {
			return nil, err
		}
	default:
		if d, err = openAnyGPU(index); err != nil {
			if backend == GPU {
				return nil, err
			}
			d = openCPU()
			d.noGPU = err
		}
	}
	if err := d.setup(pool); err != nil {
		return nil, err
	}
	return d, nil
}

// OpenAsync starts Open in the background and returns a function that
// waits for it and returns its results. Opening a GPU initializes the
// driver and creates the device's context, which costs 200–300 ms in every
// process; a program that starts it first and reads its input meanwhile
// hides that:
//
//	opened := rt.OpenAsync()
//	input := readInput()
//	dev, err := opened()
func OpenAsync(opts ...Option) func() (*Device, error) {
	var d *Device
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		d, err = Open(opts...)
	}()
	return func() (*Device, error) {
		<-done
		return d, err
	}
}

// setup prepares a new device's stream pool (of pool streams, or the
// device's default when 0) and memory, and starts a trace if QD_TRACE asks
// for one.
func (d *Device) setup(pool int) error {
	if pool == 0 {
		pool = min(max(d.attrs.streamQueues, 1), maxPoolStreams)
	}
	d.pool.dev, d.pool.size = d, pool
	if err := d.mem.open(d); err != nil {
		d.Close()
		return opError("open "+d.backend.String()+" device", err)
	}
	if d.drv != nil {
		// The first page of fault records, so that loading a module
		// allocates none; failing here, Load tries again.
		d.faults.reserve(d.drv)
	}
	d.startTraceFromEnv()
	return nil
}

// cpuAttributes are the CPU backend's device facts. It checks launch
// options as a typical GPU would, so that a program that runs on the CPU
// runs on a GPU too.
var cpuAttributes = deviceAttributes{
	arch:               "cpu",
	maxThreadsPerBlock: 1024,
	warpSize:           32,
	streamQueues:       8,
}

func openCPU() *Device {
	d := &Device{backend: CPU, name: "cpu", attrs: cpuAttributes, modules: make(map[*moduleSpec]*Module)}
	d.defaultGrid = d.fullGrid(defaultBlockSize)
	return d
}

func openGPU(b Backend, index int) (*Device, error) {
	var drv driver
	var err error
	switch b {
	case CUDA:
		drv, err = openCUDA(index)
	case HIP:
		drv, err = openHIP(index)
	}
	if err != nil {
		return nil, opError("open "+b.String()+" device", err)
	}
	return newGPUDevice(b, index, drv), nil
}

// openAnyGPU opens the first usable GPU: CUDA's, else HIP's.
func openAnyGPU(index int) (*Device, error) {
	d, errCUDA := openGPU(CUDA, index)
	if errCUDA == nil {
		return d, nil
	}
	d, errHIP := openGPU(HIP, index)
	if errHIP == nil {
		return d, nil
	}
	return nil, fmt.Errorf("%w; %w", errCUDA, errHIP)
}

// newGPUDevice is a device of an opened driver.
func newGPUDevice(b Backend, index int, drv driver) *Device {
	d := &Device{
		backend: b,
		index:   index,
		drv:     drv,
		attrs:   drv.attributes(),
		name:    drv.deviceName(),
		modules: make(map[*moduleSpec]*Module),
	}
	d.defaultGrid = d.fullGrid(defaultBlockSize)
	return d
}

// Backend returns the device's backend: CPU, CUDA or HIP.
func (d *Device) Backend() Backend { return d.backend }

// IsCPU reports whether kernels on d run as Go functions on the host.
func (d *Device) IsCPU() bool { return d.backend == CPU }

// Name returns the device's name, such as "NVIDIA H100 80GB HBM3" or "cpu".
func (d *Device) Name() string { return d.name }

// String describes the device, and for the CPU chosen in place of a GPU,
// why no GPU was used: "cpu (no GPU: ...)".
func (d *Device) String() string {
	if d.backend == CPU && d.noGPU != nil {
		return fmt.Sprintf("cpu (no GPU: %v)", d.noGPU)
	}
	if d.backend == CPU && d.index > 0 {
		return fmt.Sprintf("cpu device %d", d.index)
	}
	if d.backend == CPU {
		return "cpu"
	}
	return fmt.Sprintf("%s device %d (%s, %s, %d SMs)", d.backend, d.index, d.name, d.attrs.arch, d.attrs.multiprocessors)
}

// enter starts a launch or copy, or returns ErrClosed; leave ends it.
func (d *Device) enter() error {
	d.inUse.RLock()
	if d.closed.Load() {
		d.inUse.RUnlock()
		return ErrClosed
	}
	return nil
}

func (d *Device) leave() { d.inUse.RUnlock() }

// check returns ErrClosed once the device is closed.
func (d *Device) check() error {
	if d.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Synchronize waits until all work launched on the device's default stream
// is done and returns the first error of that work, or a kernel's Fault.
// Like qd.sync() in Quadrants it does not wait for other streams:
// SynchronizeAll does. While a graph is being recorded on the device
// (Device.Record) it is an error.
func (d *Device) Synchronize() error {
	if err := d.checkNotRecording(); err != nil || d.drv == nil {
		return opError("synchronize", err)
	}
	return d.observe(opError("synchronize", d.drv.synchronize()))
}

// SynchronizeAll waits until all work on the device, on every stream, is
// done. While a graph is being recorded on the device it is an error.
func (d *Device) SynchronizeAll() error {
	if err := d.checkNotRecording(); err != nil || d.drv == nil {
		return opError("synchronize all", err)
	}
	return d.observe(opError("synchronize all", d.drv.synchronizeAll()))
}

// checkNotRecording is check, and an error while a recording is under way:
// a synchronization there could not wait for the recorded work, which has
// not run.
func (d *Device) checkNotRecording() error {
	if err := d.check(); err != nil {
		return err
	}
	if d.recording.Load() > 0 {
		return ErrRecording
	}
	return nil
}

// Close waits for all the device's work, then frees everything it still
// holds (buffers, host buffers, streams, events, modules) and releases the
// device. It may be called while other goroutines launch kernels or copy:
// it waits for the launches and copies under way, and those that start
// later, and any other use of what it freed, return an error wrapping
// ErrClosed. Closing twice is harmless.
func (d *Device) Close() error {
	if !d.closed.Load() {
		d.writeEnvTrace()
	}
	d.inUse.Lock()
	d.mu.Lock()
	closed := d.closed.Swap(true)
	mods, live := d.modules, d.live
	d.modules, d.live = nil, nil
	d.mu.Unlock()
	d.inUse.Unlock()
	if closed {
		return nil
	}
	var err error
	if d.drv != nil {
		err = d.drv.synchronizeAll()
	}
	for _, l := range live {
		if e := l.r.release(); err == nil {
			err = e
		}
	}
	if d.drv == nil {
		return opError("close device", err)
	}
	if t := d.tracer.Swap(nil); t != nil {
		if e := t.release(); err == nil {
			err = e
		}
	}
	if e := d.pool.release(); err == nil {
		err = e
	}
	if e := d.mem.release(); err == nil {
		err = e
	}
	for _, m := range mods {
		if e := m.releaseGraphs(); err == nil {
			err = e
		}
		if e := m.release(); err == nil {
			err = e
		}
	}
	if e := d.faults.release(d.drv); err == nil {
		err = e
	}
	if e := d.drv.close(); err == nil {
		err = e
	}
	return opError("close device", err)
}

// LiveObjects counts the driver objects a device holds.
type LiveObjects struct {
	Streams, Events, Buffers, HostBuffers int
}

// Live counts the streams, events, buffers and host buffers the device
// holds now, its internal stream pool included: after any amount of work
// that closed what it opened, the counts are back where they started.
func (d *Device) Live() LiveObjects {
	return LiveObjects{
		Streams:     int(d.streams.Load()),
		Events:      int(d.events.Load()),
		Buffers:     int(d.buffers.Load()),
		HostBuffers: int(d.hostBuffers.Load()),
	}
}

func (d *Device) newDriverStream(priority int) (uintptr, error) {
	h, err := d.drv.newStream(priority)
	if err == nil {
		d.streams.Add(1)
	}
	return h, err
}

func (d *Device) destroyDriverStream(h uintptr) error {
	d.streams.Add(-1)
	return d.drv.destroyStream(h)
}

func (d *Device) newDriverEvent(timing bool) (uintptr, error) {
	h, err := d.drv.newEvent(timing)
	if err == nil {
		d.events.Add(1)
	}
	return h, err
}

func (d *Device) destroyDriverEvent(h uintptr) error {
	d.events.Add(-1)
	return d.drv.destroyEvent(h)
}
