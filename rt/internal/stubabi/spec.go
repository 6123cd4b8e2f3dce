package stubabi

import (
	"fmt"

	"github.com/qdgo/qd/internal/fault"
)

// ModuleSpec describes the kernels of one Go package as qdgen generated
// them: device code, and the tasks each kernel launches.
type ModuleSpec struct {
	Package string // the Go package's import path
	// Images holds the device code in each form qdgen emitted; loading
	// uses the one the device's driver prefers.
	Images  []Image
	Kernels []KernelSpec
}

// An Image is a module's device code in one form.
type Image struct {
	Kind ImageKind
	Data string
	// Arch is the GPU architecture binary code was built for, such as
	// "sm_80" or the AMD target "gfx942:sramecc+:xnack-"; empty for PTX
	// and source, which the driver compiles for any.
	Arch string
	// Sum is the hex SHA-256 of PTX or source, which keys the module
	// cache; qdgen writes it, so that loading need not compute it.
	Sum string
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
	// backend interprets in its race mode (rt.RunIterationsConcurrently).
	ImageIR
	// ImageCubin is NVIDIA binary code for one architecture (Image.Arch),
	// which loads without compiling on GPUs of the same major version and
	// an equal or later minor one.
	ImageCubin
	// ImageHIP is HIP C++ source, which the HIP driver compiles with
	// hiprtc for the GPU at hand, through the module cache.
	ImageHIP
	// ImageHSACO is an AMD GPU code object for one target (Image.Arch),
	// which loads without compiling on GPUs of that target.
	ImageHSACO
)

var imageKindNames = [...]string{ImagePTX: "PTX", ImageIR: "IR", ImageCubin: "Cubin", ImageHIP: "HIP", ImageHSACO: "HSACO"}

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
	// Faults lists the places where the kernel checks an index, a slice
	// expression or a division; a kernel with any takes the address of its
	// module's fault record as its last argument.
	Faults []FaultSite
	// A kernel with reductions takes the address of scratch memory as an
	// argument, before the fault record's: ScratchFixed bytes, and
	// ScratchPerBlock more for each block of the largest grid it runs.
	ScratchFixed, ScratchPerBlock int
}

// TaskSpec describes one launch of a kernel: an entry point that runs on
// one thread (serial) or on a grid whose threads share a loop (parallel).
// Tasks of a qd.StreamParallel block have the block's number (1, 2, ...)
// and its group's; consecutive tasks of one group run forked from the
// launching stream, each block on a stream of its own, and join it again.
//
// A block-level task (a kernel's qd.Blocks loop) has Threads, the threads
// of each of its blocks, and its count is its number of blocks.
//
// SharedBytes is the static shared memory a block of the task declares,
// which launches check against the device's limit.
//
// Uneven marks a parallel task whose iterations may take very different
// times (a loop in it leaves on a value it computes): its grid has a
// thread for each iteration when the count is known, not a few waves of
// threads striding over them, so that the multiprocessors balance the
// work block by block.
type TaskSpec struct {
	Entry       string
	Parallel    bool
	Threads     int
	SharedBytes int
	Block       int
	Group       int
	Uneven      bool
}

// FaultSite is a place in a kernel's source where a check may fail; the
// generated code lists a kernel's sites, and its device code records the
// number of the one that failed.
type FaultSite struct {
	Kind     fault.Kind
	Unsigned bool
	Pos      string // "file.go:line:column"
}
