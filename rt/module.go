package rt

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
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
}

// TaskSpec describes one launch of a kernel: an entry point that runs on
// one thread (serial) or on a grid whose threads share a loop (parallel).
type TaskSpec struct {
	Entry    string
	Parallel bool
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
	drv := m.dev.drv
	if drv == nil {
		return opError("launch "+k.Name, fmt.Errorf("the CPU backend runs kernels as Go functions"))
	}
	stream, err := cfg.stream.use(m.dev)
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	for i, t := range k.Tasks {
		grid, block := uint32(1), uint32(1)
		if t.Parallel {
			var ok bool
			if grid, block, ok = m.dev.gridFor(counts[i], cfg); !ok {
				continue
			}
		}
		if err := launchOn(drv, m.entries[kernel][i], grid, block, stream, sliceData(args), uintptr(len(args))); err != nil {
			return opError("launch "+k.Name+" (task "+t.Entry+")", err)
		}
	}
	return nil
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
// launch checks them: a closed stream is an error here too. Generated
// stubs call it.
func RunCPU(d *Device, kernel string, opts []LaunchOption, run func()) (err error) {
	cfg, err := launchConfig(opts)
	if err == nil {
		_, err = cfg.stream.use(d)
	}
	if err != nil {
		return opError("launch "+kernel, err)
	}
	defer func() {
		if v := recover(); v != nil {
			if re, ok := v.(runtime.Error); ok {
				v = re.Error()
			}
			err = opError("run "+kernel+" on the CPU", &KernelPanic{Value: v})
		}
	}()
	run()
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
