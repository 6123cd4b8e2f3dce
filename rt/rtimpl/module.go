package rtimpl

import (
	"time"

	"github.com/qdgo/qd/rt"
	"github.com/qdgo/qd/rt/internal/stubabi"
)

// ArgBuffer is a buffer argument of a launch: an *rt.Buffer of any element
// type. (A Module panics on any other.)
type ArgBuffer = stubabi.ArgBuffer

// Module is a ModuleSpec loaded on a device. It is safe for use by many
// goroutines at once.
type Module interface {
	// CheckBuffers verifies that every buffer argument of a launch with
	// the options opts can be used on the module's device, and marks the
	// buffers as used on the launch's stream (so that Free waits for it)
	// or, on a stream of a recording, as referred to by the recording.
	CheckBuffers(kernel string, opts []rt.LaunchOption, bufs ...ArgBuffer) error
	// CheckDisjoint returns an error if two buffer arguments, which blocks
	// of one qd.StreamParallel group would write and read at the same
	// time, overlap in memory.
	CheckDisjoint(kernel, name1 string, b1 ArgBuffer, name2 string, b2 ArgBuffer) error
	// Launch queues a kernel's tasks on a GPU: kernel is its index in the
	// spec, counts the iteration counts of its parallel tasks, args its
	// packed arguments.
	Launch(kernel int, counts []int64, args []byte, opts []rt.LaunchOption) error
	// Recording reports whether opts launch on a stream of a recording,
	// where the CPU backend keeps the call for the graph's launches
	// (RecordCPU) instead of making it (RunCPU).
	Recording(opts []rt.LaunchOption) bool
	// RunCPU runs a kernel on the CPU backend: its Go function, run,
	// turning a panic into an error as a GPU fault would be. With
	// rt.RunIterationsConcurrently on, the kernel runs through its IR
	// instead, on counts, args and bufs, the buffers of its slice
	// parameters.
	RunCPU(kernel int, counts []int64, args []byte, opts []rt.LaunchOption, run func(), bufs ...ArgBuffer) error
	// RecordCPU adds a kernel's run on the CPU backend, with the arguments
	// of RunCPU, to the recording of the stream opts name.
	RecordCPU(kernel int, counts []int64, args []byte, opts []rt.LaunchOption, run func(), bufs ...ArgBuffer) error

	// Device returns the device the module is loaded on.
	Device() *rt.Device
	// ImageKind returns the kind of device code the module was loaded
	// from, such as ImagePTX; 0 on the CPU.
	ImageKind() ImageKind
	// LoadedFrom says where the module's code came from when it was
	// loaded (an embedded cubin, the module cache, PTX compiled then, or
	// the Go functions on the CPU) and how long loading it took.
	LoadedFrom() (string, time.Duration)
}

// Load loads the module of spec on dev from the image its driver prefers,
// compiling the device code the first time; later calls return the same
// Module. When the driver refuses a binary image, the image of the next
// kind it takes is tried. A module without an image the driver loads is an
// error wrapping rt.ErrNoImage.
func Load(dev *rt.Device, spec *ModuleSpec) (Module, error) {
	m, err := stubabi.Load(dev, spec)
	if err != nil {
		return nil, err
	}
	return m.(Module), nil
}
