package rt

import (
	"fmt"
	"strings"
	"sync"

	"github.com/qdgo/qd/ir"
)

// ModuleSpec describes the kernels of one Go package as qdgen generated
// them: device code, and the tasks each kernel launches.
type ModuleSpec struct {
	Package string // the Go package's import path
	// Images holds the device code in each form qdgen emitted; Load uses
	// the one the device's driver prefers.
	Images  []Image
	Kernels []KernelSpec
}

// An Image is a module's device code in one form.
type Image struct {
	Kind ImageKind
	Data string
}

// ImageKind is a form of device code. Each driver loads some kinds, in its
// order of preference. Generated code names a kind by its constant, which
// is Image followed by the kind's String.
type ImageKind uint8

const (
	// ImagePTX is PTX assembly text, which the CUDA driver compiles for
	// the GPU at hand when the module is loaded.
	ImagePTX ImageKind = iota + 1
	// ImageIR is the kernels' IR as text (ir.FormatKernels), which the CPU
	// backend interprets in its race mode (RunIterationsConcurrently).
	ImageIR
)

var imageKindNames = [...]string{ImagePTX: "PTX", ImageIR: "IR"}

func (k ImageKind) String() string {
	if int(k) < len(imageKindNames) && imageKindNames[k] != "" {
		return imageKindNames[k]
	}
	return fmt.Sprintf("ImageKind(%d)", int(k))
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

	// The kernels of the IR image, parsed when the CPU's race mode first
	// needs them.
	irOnce    sync.Once
	irKernels []*ir.Kernel
	irErr     error
}

// Load loads the module of spec on d from the image its driver prefers,
// compiling the device code the first time; later calls return the same
// Module. A module without an image the driver loads is an error wrapping
// ErrNoImage.
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
		img, err := chooseImage(spec.Images, d.backend, d.drv.imageKinds())
		if err != nil {
			return nil, opError(op, err)
		}
		h, err := d.drv.loadModule(img)
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

// chooseImage returns the first image of the kinds a driver accepts, in
// the driver's order of preference.
func chooseImage(images []Image, b Backend, accepts []ImageKind) (Image, error) {
	for _, kind := range accepts {
		for _, img := range images {
			if img.Kind == kind {
				return img, nil
			}
		}
	}
	have := make([]ImageKind, len(images))
	for i, img := range images {
		have[i] = img.Kind
	}
	return Image{}, fmt.Errorf("%w: the module has %s, the %s driver loads %s", ErrNoImage, kindList(have), b, kindList(accepts))
}

func kindList(kinds []ImageKind) string {
	if len(kinds) == 0 {
		return "none"
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}
