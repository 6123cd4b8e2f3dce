package rt

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
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
	// Target is the GPU a compiled image is for, such as
	// "gfx942:sramecc+:xnack-"; empty for source and PTX, which the
	// driver compiles for the GPU at hand.
	Target string
	Data   string
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
	// ImageHIP is HIP C++ source, which the HIP driver compiles with
	// hiprtc for the GPU at hand when the module is first loaded, and
	// caches on disk.
	ImageHIP
	// ImageHSACO is an AMD GPU code object built for the GPU its Target
	// names, which the HIP driver loads as it is.
	ImageHSACO
)

var imageKindNames = [...]string{ImagePTX: "PTX", ImageIR: "IR", ImageHIP: "HIP", ImageHSACO: "HSACO"}

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
	kind    ImageKind // the kind of image it was loaded from; 0 on the CPU
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
// Module. An image compiled for one GPU (Image.Target) is used only on a
// GPU it fits, and when the driver refuses one image the next it accepts
// is tried. A module without an image the driver loads is an error
// wrapping ErrNoImage.
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
		images, err := chooseImages(spec.Images, d.backend, d.drv.imageKinds(), d.attrs.arch)
		if err != nil {
			return nil, opError(op, err)
		}
		var errs []error
		for _, img := range images {
			h, err := d.drv.loadModule(img)
			if err == nil {
				m.handle, m.kind = h, img.Kind
				break
			}
			errs = append(errs, err)
		}
		if m.handle == 0 {
			return nil, opError(op, errors.Join(errs...))
		}
		for _, k := range spec.Kernels {
			fns := make([]uintptr, len(k.Tasks))
			for i, t := range k.Tasks {
				if fns[i], err = d.drv.function(m.handle, t.Entry); err != nil {
					d.drv.unloadModule(m.handle)
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

// ImageKind returns the kind of device code the module was loaded from,
// such as ImagePTX; 0 on the CPU.
func (m *Module) ImageKind() ImageKind { return m.kind }

// chooseImages returns the images a driver accepts, in the driver's order
// of preference by kind; images compiled for one GPU only if they fit the
// device's target.
func chooseImages(images []Image, b Backend, accepts []ImageKind, target string) ([]Image, error) {
	var usable []Image
	for _, kind := range accepts {
		for _, img := range images {
			if img.Kind == kind && fitsTarget(img.Target, target) {
				usable = append(usable, img)
			}
		}
	}
	if len(usable) > 0 {
		return usable, nil
	}
	have := make([]string, len(images))
	for i, img := range images {
		have[i] = img.Kind.String()
		if img.Target != "" {
			have[i] += " for " + img.Target
		}
	}
	if len(have) == 0 {
		have = []string{"none"}
	}
	return nil, fmt.Errorf("%w: the module has %s, the %s driver loads %s for %s", ErrNoImage, strings.Join(have, ", "), b, kindList(accepts), target)
}

// targetPattern matches an AMD GPU target with its features, such as
// "gfx942:sramecc+:xnack-".
var targetPattern = regexp.MustCompile(`^gfx[0-9a-f]+(:[a-z0-9]+[+-])*$`)

// fitsTarget reports whether code built for target runs on a device of
// the target device: the same processor, and every feature the code was
// built with ("xnack-", "sramecc+") set the same on the device. A feature
// the code leaves out may have either setting, as the AMD GPU loader
// rules have it. Code for no target fits every device.
func fitsTarget(target, device string) bool {
	if target == "" {
		return true
	}
	code, dev := strings.Split(target, ":"), strings.Split(device, ":")
	if code[0] != dev[0] {
		return false
	}
	for _, feature := range code[1:] {
		if !slices.Contains(dev[1:], feature) {
			return false
		}
	}
	return true
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
