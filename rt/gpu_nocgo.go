//go:build !cgo

package rt

import (
	"fmt"
	"unsafe"
)

var errNoCgo = fmt.Errorf("%w: GPU backends need cgo (build with CGO_ENABLED=1)", ErrNoDevice)

func openCUDA(index int) (driver, error) { return nil, errNoCgo }
func openHIP(index int) (driver, error)  { return nil, errNoCgo }

// gpuDriver, and the drivers made of it, exist only with cgo.
type gpuDriver struct{ driver }

type cudaDriver struct{ gpuDriver }
type hipDriver struct{ gpuDriver }

func (g *gpuDriver) launchSeq(seq *launchSeq, args unsafe.Pointer, argSize uintptr) (int, error) {
	return 0, ErrNoDevice
}

func (g *gpuDriver) fork(ev, from uintptr, streams []uintptr) error     { return ErrNoDevice }
func (g *gpuDriver) join(events, streams []uintptr, into uintptr) error { return ErrNoDevice }

func gpuDeviceCount(b Backend) (int, error) { return 0, errNoCgo }
