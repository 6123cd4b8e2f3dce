package rt

import "github.com/qdgo/qd/rt/internal/stubabi"

// The tests call a module's machinery as generated code does through
// rtimpl, which they cannot import: these are the names rtimpl gives it.

type (
	ModuleSpec = stubabi.ModuleSpec
	Image      = stubabi.Image
	ImageKind  = stubabi.ImageKind
	KernelSpec = stubabi.KernelSpec
	TaskSpec   = stubabi.TaskSpec
	FaultSite  = stubabi.FaultSite
	ArgBuffer  = stubabi.ArgBuffer
)

const (
	ImagePTX     = stubabi.ImagePTX
	ImageIR      = stubabi.ImageIR
	ImageCubin   = stubabi.ImageCubin
	ImageHIP     = stubabi.ImageHIP
	ImageHSACO   = stubabi.ImageHSACO
	UnknownCount = stubabi.UnknownCount
)

var (
	PutBool    = stubabi.PutBool
	PutUint8   = stubabi.PutUint8
	PutUint16  = stubabi.PutUint16
	PutUint32  = stubabi.PutUint32
	PutUint64  = stubabi.PutUint64
	PutFloat32 = stubabi.PutFloat32
	PutFloat64 = stubabi.PutFloat64
	Iterations = stubabi.Iterations
)

func PutBuffer[T Element](args []byte, off int, b *Buffer[T]) {
	stubabi.PutBuffer(args, off, b.DevicePointer(), b.Len())
}

func (d *Device) Load(spec *ModuleSpec) (*Module, error) { return d.load(spec) }

func CheckBuffers(d *Device, kernel string, opts []LaunchOption, bufs ...ArgBuffer) error {
	return checkBuffers(d, kernel, opts, bufs)
}

func CheckDisjoint(kernel, name1 string, b1 ArgBuffer, name2 string, b2 ArgBuffer) error {
	return checkDisjoint(kernel, name1, b1, name2, b2)
}

func Recording(opts []LaunchOption) bool { return streamOption(opts).recording() }
