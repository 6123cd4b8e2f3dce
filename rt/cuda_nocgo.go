//go:build !cgo

package rt

import (
	"fmt"
	"unsafe"
)

func openCUDA(index int) (driver, error) {
	return nil, fmt.Errorf("%w: the CUDA backend needs cgo (build with CGO_ENABLED=1)", ErrNoDevice)
}

// cudaDriver exists only with cgo.
type cudaDriver struct{ driver }

func (d *cudaDriver) launchSeq(seq *launchSeq, args unsafe.Pointer, argSize uintptr) (int, error) {
	return 0, ErrNoDevice
}

func (d *cudaDriver) fork(ev, from uintptr, streams []uintptr) error     { return ErrNoDevice }
func (d *cudaDriver) join(events, streams []uintptr, into uintptr) error { return ErrNoDevice }
