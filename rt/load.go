package rt

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qdgo/qd/ir"
)

// Module is a package's kernels loaded on a device, for the code qdgen
// generates, which reaches it as rtimpl.Module; a program calls that
// code's Load and launch methods instead. It is safe for use by many
// goroutines at once.
//
// It is the one type of that interface in rt, because the launch stubs
// call its methods directly: a call through an interface or a function
// value would move the stub's packed arguments, and the closure that runs
// the Go function on the CPU, to the heap on every launch.
type Module struct {
	dev    *Device
	spec   *moduleSpec
	kind   imageKind // the kind of image it was loaded from; 0 on the CPU
	handle uintptr
	// entries holds, per kernel and task, the driver's function, looked
	// up at the kernel's first launch (see kernelReady); resolved[k] is
	// set once entries[k] is.
	entries [][]uintptr
	// fulls holds, beside entries, the grid of a few whole waves of each
	// parallel task's function at the default block size, as many blocks
	// as the driver says fit at once; 0 where it cannot say.
	fulls     [][]int64
	resolved  []atomic.Bool
	resolving sync.Mutex
	faults    *faultRecord
	scratch   []scratch // per kernel
	// graphs caches each kernel's graphs; nil where the driver has none.
	graphs []kernelGraphs
	from   string        // where the code came from
	took   time.Duration // how long loading took

	// The kernels of the IR image, parsed when the CPU's race mode first
	// needs them.
	irOnce    sync.Once
	irKernels []*ir.Kernel
	irErr     error
}

// load loads the module of spec on d from the image its driver prefers,
// compiling the device code the first time; later calls return the same
// module. When the driver refuses a binary image, the image of the next
// kind it takes is tried. A module without an image the driver loads is an
// error wrapping ErrNoImage.
func (d *Device) load(spec *moduleSpec) (*Module, error) {
	op := "load module " + spec.Package
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() {
		return nil, opError(op, ErrClosed)
	}
	if m := d.modules[spec]; m != nil {
		return m, nil
	}
	start := time.Now()
	m := &Module{dev: d, spec: spec, from: fromGo}
	if d.drv != nil {
		err := d.loadFirst(m, spec.Images)
		if err != nil {
			return nil, opError(op, err)
		}
		m.entries = make([][]uintptr, len(spec.Kernels))
		m.fulls = make([][]int64, len(spec.Kernels))
		m.resolved = make([]atomic.Bool, len(spec.Kernels))
		for i := range spec.Kernels {
			if !lazyLoading() {
				err = m.resolve(i)
			}
			if err != nil {
				m.release()
				return nil, opError(op, err)
			}
		}
		if err := m.prepare(); err != nil {
			m.release()
			return nil, opError(op, err)
		}
		if d.drv.features().graphs && os.Getenv("QD_GRAPHS") != "off" {
			m.graphs = make([]kernelGraphs, len(spec.Kernels))
		}
	}
	m.took = time.Since(start)
	d.modules[spec] = m
	return m, nil
}

// lazyLoading reports whether kernels' functions are looked up at their
// first launch rather than when their module loads. With the driver's
// lazy loading (CUDA's default since 12.2), looking up a function loads
// its code onto the GPU, which for a module of many kernels is most of
// the time loading takes: like the CUDA runtime, qd pays that for a
// kernel when it first runs it. CUDA_MODULE_LOADING=EAGER, which asks
// the driver to load everything at once, makes Load look up every
// function too.
func lazyLoading() bool { return os.Getenv("CUDA_MODULE_LOADING") != "EAGER" }

// kernelReady looks up the functions of kernel's tasks, the first time.
func (m *Module) kernelReady(kernel int) error {
	if m.resolved[kernel].Load() {
		return nil
	}
	return m.resolveFirst(kernel)
}

func (m *Module) resolveFirst(kernel int) error {
	m.resolving.Lock()
	defer m.resolving.Unlock()
	return m.resolve(kernel)
}

// resolve looks up the functions of kernel's tasks unless that is done.
// The caller holds m.resolving, or is Load.
func (m *Module) resolve(kernel int) error {
	if m.resolved[kernel].Load() {
		return nil
	}
	tasks := m.spec.Kernels[kernel].Tasks
	fns := make([]uintptr, len(tasks))
	fulls := make([]int64, len(tasks))
	for i, t := range tasks {
		var err error
		if fns[i], err = m.dev.drv.function(m.handle, t.Entry); err != nil {
			return err
		}
		if t.Parallel {
			active := m.dev.drv.activeBlocks(fns[i], defaultBlockSize)
			fulls[i] = int64(m.dev.attrs.multiprocessors) * int64(active) * wavesPerLaunch
		}
	}
	m.entries[kernel] = fns
	m.fulls[kernel] = fulls
	m.resolved[kernel].Store(true)
	return nil
}

// loadFirst loads the first of the images, by the driver's order of
// kinds, that the driver accepts, and notes in m what it loaded.
func (d *Device) loadFirst(m *Module, images []codeImage) error {
	var errs []error
	for kinds := d.drv.imageKinds(); len(kinds) > 0; {
		img, err := chooseImage(images, d.backend, kinds, d.attrs.arch)
		if err != nil {
			if errs == nil {
				return err
			}
			break
		}
		h, from, err := d.loadImage(img)
		if err == nil {
			m.handle, m.from, m.kind = h, from, img.Kind
			return nil
		}
		errs = append(errs, err)
		kinds = kinds[slices.Index(kinds, img.Kind)+1:]
	}
	return errors.Join(errs...)
}

// prepare gives the module what its kernels need of the runtime: a fault
// record when one checks something, scratch memory for reductions.
func (m *Module) prepare() error {
	m.scratch = make([]scratch, len(m.spec.Kernels))
	for _, k := range m.spec.Kernels {
		if len(k.Faults) == 0 || m.faults != nil {
			continue
		}
		r, err := m.dev.faults.add(m.dev.drv, m)
		if err != nil {
			return err
		}
		m.faults = r
	}
	return nil
}

// release frees the module's memory and unloads it from its device.
func (m *Module) release() error {
	var err error
	for i := range m.scratch {
		if e := m.scratch[i].release(m.dev); err == nil {
			err = e
		}
	}
	if m.faults != nil {
		m.dev.faults.remove(m.faults)
		m.faults = nil
	}
	if m.handle != 0 {
		if e := m.dev.drv.unloadModule(m.handle); err == nil {
			err = e
		}
		m.handle = 0
	}
	return err
}

// Device returns the device the module is loaded on.
func (m *Module) Device() *Device { return m.dev }

// ImageKind returns the kind of device code the module was loaded from,
// such as imagePTX; 0 on the CPU.
func (m *Module) ImageKind() imageKind { return m.kind }

// LoadedFrom says where the module's code came from when it was loaded
// (an embedded cubin, the module cache, PTX compiled then, or the Go
// functions on the CPU) and how long loading it took.
func (m *Module) LoadedFrom() (string, time.Duration) { return m.from, m.took }

// chooseImage returns the first image of the kinds a driver accepts, in
// the driver's order of preference; of binary images, the one built for
// the latest architecture that runs on arch.
func chooseImage(images []codeImage, b Backend, accepts []imageKind, arch string) (codeImage, error) {
	for _, kind := range accepts {
		best := -1
		for i, img := range images {
			if img.Kind != kind || img.Arch != "" && !archRuns(img.Arch, arch) {
				continue
			}
			if best < 0 || archNumber(img.Arch) > archNumber(images[best].Arch) {
				best = i
			}
		}
		if best >= 0 {
			return images[best], nil
		}
	}
	have := make([]string, len(images))
	for i, img := range images {
		have[i] = img.Kind.String()
		if img.Arch != "" {
			have[i] += " for " + img.Arch
		}
	}
	want := make([]string, len(accepts))
	for i, k := range accepts {
		want[i] = k.String()
	}
	return codeImage{}, fmt.Errorf("%w: the module has %s, the %s driver loads %s (GPU %s)%s", ErrNoImage, list(have), b, list(want), arch, missingBackend(images, accepts))
}

// missingBackend explains a generated module (one with IR) that lacks the
// source image a driver compiles: qdgen ran with -backends leaving out
// that backend.
func missingBackend(images []codeImage, accepts []imageKind) string {
	if !slices.ContainsFunc(images, func(img codeImage) bool { return img.Kind == imageIR }) {
		return ""
	}
	for _, kind := range accepts {
		if kind == imagePTX || kind == imageHIP {
			name := strings.ToLower(kind.String())
			return fmt.Sprintf("; qdgen generated it without the %s backend: run qdgen with %s among -backends", name, name)
		}
	}
	return ""
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// archNumber reads an architecture such as "sm_86" as 86, and "sm_90a" as
// 90 with exact true: code for it runs on that GPU only.
func archNumber(arch string) int {
	n, _ := archParts(arch)
	return n
}

func archParts(arch string) (n int, exact bool) {
	s, ok := strings.CutPrefix(arch, "sm_")
	if !ok {
		return -1, false
	}
	if s, exact = strings.CutSuffix(s, "a"); !exact {
		s, exact = strings.CutSuffix(s, "f")
	}
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
		return -1, false
	}
	return n, exact
}

// archRuns reports whether binary code built for arch built runs on a GPU
// of arch dev: for NVIDIA GPUs the same major version, and a minor version
// no later than the GPU's (an "a" or "f" variant, only on the same GPU);
// for AMD ones, a target that fits (fitsTarget).
func archRuns(built, dev string) bool {
	if strings.HasPrefix(built, "gfx") {
		return fitsTarget(built, dev)
	}
	b, exact := archParts(built)
	d, _ := archParts(dev)
	if b < 0 || d < 0 {
		return false
	}
	if exact {
		return b == d
	}
	return b/10 == d/10 && b <= d
}

// targetPattern matches an AMD GPU target with its features, such as
// "gfx942:sramecc+:xnack-".
var targetPattern = regexp.MustCompile(`^gfx[0-9a-f]+(:[a-z0-9]+[+-])*$`)

// fitsTarget reports whether code built for target runs on a device of
// the target device: the same processor, and every feature the code was
// built with ("xnack-", "sramecc+") set the same on the device. A feature
// the code leaves out may have either setting, as the AMD GPU loader
// rules have it (a runtime that refuses such code makes Load try the next
// kind of image).
func fitsTarget(target, device string) bool {
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
