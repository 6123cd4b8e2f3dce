//go:build !cgo

package rt

import "fmt"

func openCUDA(index int) (driver, error) {
	return nil, fmt.Errorf("%w: the CUDA backend needs cgo (build with CGO_ENABLED=1)", ErrNoDevice)
}
