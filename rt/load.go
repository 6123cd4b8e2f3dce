package rt

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
