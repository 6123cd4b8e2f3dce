//go:build !cgo

package nccl

import (
	"errors"

	"github.com/qdgo/qd/rt"
)

type library struct{}

func loadLibrary(b rt.Backend) (*library, error) {
	return nil, errors.New("loading libnccl.so.2 needs cgo (build with CGO_ENABLED=1)")
}
