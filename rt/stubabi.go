package rt

import (
	"fmt"

	"github.com/qdgo/qd/rt/internal/stubabi"
)

// This file is rt's side of the interface of generated stubs, which reach
// it through package rtimpl: the module description's types under names
// of rt's own, and the methods of Module that only they call.

type (
	moduleSpec = stubabi.ModuleSpec
	codeImage  = stubabi.Image
	imageKind  = stubabi.ImageKind
	kernelSpec = stubabi.KernelSpec
	taskSpec   = stubabi.TaskSpec
	faultSite  = stubabi.FaultSite
)

const (
	imagePTX   = stubabi.ImagePTX
	imageIR    = stubabi.ImageIR
	imageCubin = stubabi.ImageCubin
	imageHIP   = stubabi.ImageHIP
	imageHSACO = stubabi.ImageHSACO
)

func init() {
	stubabi.Load = func(dev any, spec *moduleSpec) (any, error) {
		m, err := dev.(*Device).load(spec)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// arg is the buffer a generated stub passed: an *Buffer[T], whose
// methods the launch needs.
func arg(b stubabi.ArgBuffer) argBuffer {
	a, ok := b.(argBuffer)
	if !ok {
		panic(fmt.Sprintf("rt: a launch's buffer argument is a %T, not an *rt.Buffer", b))
	}
	return a
}

// CheckDisjoint returns an error if two buffer arguments, which blocks of
// one qd.StreamParallel group would write and read at the same time,
// overlap in memory. Generated stubs call it before a launch.
func (m *Module) CheckDisjoint(kernel, name1 string, b1 stubabi.ArgBuffer, name2 string, b2 stubabi.ArgBuffer) error {
	return checkDisjoint(kernel, name1, b1, name2, b2)
}

func checkDisjoint(kernel, name1 string, b1 stubabi.ArgBuffer, name2 string, b2 stubabi.ArgBuffer) error {
	s1, e1 := arg(b1).argSpan()
	s2, e2 := arg(b2).argSpan()
	if s1 < e2 && s2 < e1 {
		return opError("launch "+kernel, fmt.Errorf("buffers %s and %s overlap, and the kernel's concurrent qd.StreamParallel blocks write one while reading or writing the other", name1, name2))
	}
	return nil
}

// CheckBuffers verifies that every buffer argument of a launch with the
// options opts can be used on the module's device, and marks the buffers
// as used on the launch's stream (so that Free waits for it) or, on a
// stream of a recording, as referred to by the recording. Generated stubs
// call it.
func (m *Module) CheckBuffers(kernel string, opts []LaunchOption, bufs ...stubabi.ArgBuffer) error {
	return checkBuffers(m.dev, kernel, opts, bufs)
}

func checkBuffers(d *Device, kernel string, opts []LaunchOption, bufs []stubabi.ArgBuffer) error {
	if err := d.check(); err != nil {
		return opError("launch "+kernel, err)
	}
	s := streamOption(opts)
	use := s
	switch {
	case s.recording():
		use = nil // the recording refers to them instead
	case s == nil:
		use = defaultStream
	}
	for _, b := range bufs {
		if err := arg(b).argLaunch(d, use); err != nil {
			return opError("launch "+kernel, err)
		}
	}
	if use == nil {
		s.rec.refer(bufs)
	}
	return nil
}

// Recording reports whether opts launch on a stream of a recording, where
// the CPU backend keeps the call for the graph's launches (RecordCPU)
// instead of making it (RunCPU). Generated stubs call it.
func (m *Module) Recording(opts []LaunchOption) bool { return streamOption(opts).recording() }
