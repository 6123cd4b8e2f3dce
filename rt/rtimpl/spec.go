package rtimpl

import "github.com/qdgo/qd/rt/internal/stubabi"

// The description of a package's device code, as qdgen writes it.
type (
	// ModuleSpec describes the kernels of one Go package: device code, and
	// the tasks each kernel launches.
	ModuleSpec = stubabi.ModuleSpec
	// An Image is a module's device code in one form.
	Image = stubabi.Image
	// ImageKind is a form of device code; generated code names a kind by
	// its constant, which is Image followed by the kind's String.
	ImageKind = stubabi.ImageKind
	// KernelSpec describes one kernel.
	KernelSpec = stubabi.KernelSpec
	// TaskSpec describes one launch of a kernel.
	TaskSpec = stubabi.TaskSpec
	// FaultSite is a place in a kernel's source where a check may fail.
	FaultSite = stubabi.FaultSite
)

// The kinds of images.
const (
	ImagePTX   = stubabi.ImagePTX   // PTX text, compiled by the CUDA driver
	ImageIR    = stubabi.ImageIR    // the kernels' IR, run by the CPU's race mode
	ImageCubin = stubabi.ImageCubin // NVIDIA binary code for one architecture
	ImageHIP   = stubabi.ImageHIP   // HIP C++ source, compiled by hiprtc
	ImageHSACO = stubabi.ImageHSACO // an AMD code object for one target
)
