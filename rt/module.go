package rt

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"

	"github.com/qdgo/qd/internal/blocks"
)

// ModuleSpec describes the kernels of one Go package as qdgen generated
// them: device code, and the tasks each kernel launches.
type ModuleSpec struct {
	Package string // the Go package's import path
	PTX     string
	Kernels []KernelSpec
}

// KernelSpec describes one kernel.
type KernelSpec struct {
	Name  string
	Tasks []TaskSpec
	// Groups holds the number of qd.StreamParallel blocks in each group of
	// the kernel, in order, for running them concurrently on the CPU.
	Groups []int
}

// TaskSpec describes one launch of a kernel: an entry point that runs on
// one thread (serial) or on a grid whose threads share a loop (parallel).
// Tasks of a qd.StreamParallel block have the block's number (1, 2, ...)
// and its group's; consecutive tasks of one group run forked from the
// launching stream, each block on a stream of its own, and join it again.
type TaskSpec struct {
	Entry    string
	Parallel bool
	Block    int
	Group    int
}

// Module is a ModuleSpec loaded on a device. It is safe for use by many
// goroutines at once.
type Module struct {
	dev     *Device
	spec    *ModuleSpec
	handle  uintptr
	entries [][]uintptr // per kernel, per task: the driver's function
}

// Load loads the module of spec on d, compiling its device code the first
// time; later calls return the same Module.
func (d *Device) Load(spec *ModuleSpec) (*Module, error) {
	op := "load module " + spec.Package
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() {
		return nil, opError(op, ErrClosed)
	}
	if m := d.modules[spec]; m != nil {
		return m, nil
	}
	m := &Module{dev: d, spec: spec}
	if d.drv != nil {
		h, err := d.drv.loadModule(spec.PTX)
		if err != nil {
			return nil, opError(op, err)
		}
		m.handle = h
		for _, k := range spec.Kernels {
			fns := make([]uintptr, len(k.Tasks))
			for i, t := range k.Tasks {
				if fns[i], err = d.drv.function(h, t.Entry); err != nil {
					d.drv.unloadModule(h)
					return nil, opError(op, err)
				}
			}
			m.entries = append(m.entries, fns)
		}
	}
	d.modules[spec] = m
	return m, nil
}

// Device returns the device the module is loaded on.
func (m *Module) Device() *Device { return m.dev }

// UnknownCount marks a parallel task whose iteration count the host cannot
// compute; it is launched on a full grid.
const UnknownCount = math.MinInt64

// Launch runs kernel number kernel of the module: each task in order on the
// stream the options name (the default stream without one), with the
// packed arguments args. counts holds each
// parallel task's iteration count, or UnknownCount; tasks with no
// iterations are not launched. Generated stubs call it.
func (m *Module) Launch(kernel int, counts []int64, args []byte, opts []LaunchOption) error {
	k := &m.spec.Kernels[kernel]
	cfg, err := launchConfig(opts)
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	if err := m.dev.check(); err != nil {
		return opError("launch "+k.Name, err)
	}
	if m.dev.drv == nil {
		return opError("launch "+k.Name, fmt.Errorf("the CPU backend runs kernels as Go functions"))
	}
	stream, err := cfg.stream.use(m.dev)
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	for i := 0; i < len(k.Tasks); {
		if k.Tasks[i].Group == 0 {
			if err := m.launchTask(kernel, i, stream, counts, args, cfg); err != nil {
				return err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(k.Tasks) && k.Tasks[j].Group == k.Tasks[i].Group {
			j++
		}
		if err := m.launchGroup(kernel, i, j, stream, counts, args, cfg); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// launchTask launches task i of a kernel on a stream.
func (m *Module) launchTask(kernel, i int, stream uintptr, counts []int64, args []byte, cfg launchSettings) error {
	t := &m.spec.Kernels[kernel].Tasks[i]
	grid, block := uint32(1), uint32(1)
	if t.Parallel {
		var ok bool
		if grid, block, ok = m.dev.gridFor(counts[i], cfg); !ok {
			return nil
		}
	}
	if err := launchOn(m.dev.drv, m.entries[kernel][i], grid, block, stream, sliceData(args), uintptr(len(args))); err != nil {
		return opError("launch "+m.spec.Kernels[kernel].Name+" (task "+t.Entry+")", err)
	}
	return nil
}

// launchGroup launches tasks [i, j), one stream-parallel group: the pool's
// streams wait for the launching stream (fork), each block's tasks run in
// order on its stream, and the launching stream waits for every block
// stream (join). Everything is queued; the host never waits.
func (m *Module) launchGroup(kernel, i, j int, stream uintptr, counts []int64, args []byte, cfg launchSettings) error {
	k := &m.spec.Kernels[kernel]
	blocks := 0
	for t := i; t < j; t++ {
		if t == i || k.Tasks[t].Block != k.Tasks[t-1].Block {
			blocks++
		}
	}
	var streams [maxPoolStreams]uintptr
	var events [maxPoolStreams + 1]uintptr
	n, err := m.dev.pool.get(blocks, &streams, &events)
	if err != nil {
		return opError("launch "+k.Name+": stream pool", err)
	}
	defer m.dev.pool.put(events[:n+1])
	drv := m.dev.drv
	if err := forkOn(drv, events[0], stream, streams[:n]); err != nil {
		return opError("launch "+k.Name, err)
	}
	block := -1
	for t := i; t < j; t++ {
		if t == i || k.Tasks[t].Block != k.Tasks[t-1].Block {
			block++
		}
		if err := m.launchTask(kernel, t, streams[block%n], counts, args, cfg); err != nil {
			return err
		}
	}
	return opError("launch "+k.Name, joinOn(drv, events[1:n+1], streams[:n], stream))
}

// gridFor sizes the grid of a parallel task with count iterations. Each
// thread strides over the iterations, so the grid need not cover them all:
// it is capped at a few waves of the whole device.
func (d *Device) gridFor(count int64, cfg launchSettings) (grid, block uint32, ok bool) {
	block = uint32(cfg.blockSize)
	if block == 0 {
		block = defaultBlockSize
	}
	full := int64(max(d.attrs.multiprocessors, 1)) * int64(max(d.attrs.maxThreadsPerSM, int(block))/int(block)) * wavesPerLaunch
	if cfg.gridSize > 0 {
		full = int64(cfg.gridSize)
	}
	if count == UnknownCount {
		return uint32(full), block, true
	}
	if count <= 0 {
		return 0, 0, false
	}
	blocks := (count + int64(block) - 1) / int64(block)
	return uint32(min(blocks, full)), block, true
}

const (
	defaultBlockSize = 256
	wavesPerLaunch   = 4
)

// RunCPU runs a kernel's Go function on the CPU backend, turning a panic
// into an error as a GPU fault would be. The options are checked as a GPU
// launch checks them: a closed stream is an error here too. The kernel's
// qd.StreamParallel blocks run serially, in program order, unless
// RunBlocksConcurrently is on. Generated stubs call it.
func (m *Module) RunCPU(kernel int, opts []LaunchOption, run func()) (err error) {
	k := &m.spec.Kernels[kernel]
	cfg, err := launchConfig(opts)
	if err == nil {
		_, err = cfg.stream.use(m.dev)
	}
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	defer func() {
		if v := recover(); v != nil {
			if re, ok := v.(runtime.Error); ok {
				v = re.Error()
			}
			err = opError("run "+k.Name+" on the CPU", &KernelPanic{Value: v})
		}
	}()
	if len(k.Groups) > 0 && blocks.Concurrent() {
		blocks.Run(k.Groups, run)
		return nil
	}
	run()
	return nil
}

// RunBlocksConcurrently makes the CPU backend run the blocks of each
// qd.StreamParallel group concurrently, as goroutines started in random
// order, instead of serially: under go test -race, blocks that depend on
// each other are then reported. The environment variable
// QD_CPU_BLOCKS=concurrent turns it on too. While it is on, kernels with
// blocks run one at a time.
func RunBlocksConcurrently(on bool) { blocks.SetConcurrent(on) }

// CheckDisjoint returns an error if two buffer arguments, which blocks of
// one qd.StreamParallel group would write and read at the same time,
// overlap in memory. Generated stubs call it before a launch.
func CheckDisjoint(kernel, name1 string, b1 ArgBuffer, name2 string, b2 ArgBuffer) error {
	s1, e1 := b1.argSpan()
	s2, e2 := b2.argSpan()
	if s1 < e2 && s2 < e1 {
		return opError("launch "+kernel, fmt.Errorf("buffers %s and %s overlap, and the kernel's concurrent qd.StreamParallel blocks write one while reading or writing the other", name1, name2))
	}
	return nil
}

// CheckBuffers verifies that every buffer argument of a launch can be used
// on d. Generated stubs call it.
func CheckBuffers(d *Device, kernel string, bufs ...ArgBuffer) error {
	for _, b := range bufs {
		if err := b.argUsable(); err != nil {
			return opError("launch "+kernel, err)
		}
		if b.argDevice() != d {
			return opError("launch "+kernel, ErrWrongDevice)
		}
	}
	if err := d.check(); err != nil {
		return opError("launch "+kernel, err)
	}
	return nil
}

// The Put functions write one argument into a packed argument buffer at
// its offset, little-endian as the GPU reads it. Generated stubs call them.

func PutBool(args []byte, off int, v bool) {
	args[off] = 0
	if v {
		args[off] = 1
	}
}
func PutUint8(args []byte, off int, v uint8)   { args[off] = v }
func PutUint16(args []byte, off int, v uint16) { binary.LittleEndian.PutUint16(args[off:], v) }
func PutUint32(args []byte, off int, v uint32) { binary.LittleEndian.PutUint32(args[off:], v) }
func PutUint64(args []byte, off int, v uint64) { binary.LittleEndian.PutUint64(args[off:], v) }
func PutFloat32(args []byte, off int, v float32) {
	binary.LittleEndian.PutUint32(args[off:], math.Float32bits(v))
}
func PutFloat64(args []byte, off int, v float64) {
	binary.LittleEndian.PutUint64(args[off:], math.Float64bits(v))
}

// PutBuffer writes a buffer argument: its device address, then its length.
func PutBuffer(args []byte, off int, b ArgBuffer) {
	binary.LittleEndian.PutUint64(args[off:], uint64(b.argPointer()))
	binary.LittleEndian.PutUint64(args[off+8:], uint64(b.argLen()))
}
