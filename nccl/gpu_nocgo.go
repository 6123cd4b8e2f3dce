//go:build !cgo

package nccl

import (
	"errors"

	"github.com/qdgo/qd/rt"
)

var errNoCgo = errors.New("NCCL needs cgo (build with CGO_ENABLED=1)")

type gpuComm struct{}

type uniqueID [128]byte

type gpuCall struct {
	send, recv uintptr
	n          int
	dtype, op  int
	root       int
}

func newUniqueID(lib *library) (uniqueID, error)       { return uniqueID{}, errNoCgo }
func initAllGPU(devs []*rt.Device) ([]*gpuComm, error) { return nil, errNoCgo }
func (g *gpuComm) close() error                        { return errNoCgo }
func (g *gpuComm) run(string, gpuCall, uintptr) error  { return errNoCgo }
func initRankGPU(*library, *rt.Device, uniqueID, int, int) (*gpuComm, error) {
	return nil, errNoCgo
}

func (g *gpuComm) groupStart() error { return errNoCgo }
func (g *gpuComm) groupEnd() error   { return errNoCgo }
