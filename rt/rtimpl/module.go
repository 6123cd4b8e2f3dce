package rtimpl

import (
	"github.com/qdgo/qd/rt"
	"github.com/qdgo/qd/rt/internal/stubabi"
)

// ArgBuffer is a buffer argument of a launch: an *rt.Buffer of any element
// type. (A Module panics on any other.)
type ArgBuffer = stubabi.ArgBuffer

// Module is a ModuleSpec loaded on a device; its methods check a launch's
// buffers (CheckBuffers, CheckDisjoint), launch a kernel's tasks on a GPU
// (Launch) and run or record its Go function on the CPU (RunCPU,
// RecordCPU, Recording). It is safe for use by many goroutines at once.
// Generated code calls its methods directly, so that launches allocate
// nothing.
type Module = rt.Module

// Load loads the module of spec on dev from the image its driver prefers,
// compiling the device code the first time; later calls return the same
// Module. When the driver refuses a binary image, the image of the next
// kind it takes is tried. A module without an image the driver loads is an
// error wrapping rt.ErrNoImage.
func Load(dev *rt.Device, spec *ModuleSpec) (*Module, error) {
	m, err := stubabi.Load(dev, spec)
	if err != nil {
		return nil, err
	}
	return m.(*Module), nil
}
