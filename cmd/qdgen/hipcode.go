package main

import (
	"fmt"

	"github.com/qdgo/qd/emit/hip"
	"github.com/qdgo/qd/rt/rtimpl"
)

// codeObjects builds, with hipcc, an AMD code object of a package's HIP
// source for each target (-hip-arch). rt loads the one that fits the GPU's
// target, feature flags included, and compiles the source on other GPUs.
func codeObjects(hipcc, source string, targets []string) ([]rtimpl.Image, error) {
	var images []rtimpl.Image
	for _, target := range targets {
		code, err := hip.CodeObject(hipcc, source, target)
		if err != nil {
			return nil, fmt.Errorf("-hip-arch: %v", err)
		}
		images = append(images, rtimpl.Image{Kind: rtimpl.ImageHSACO, Arch: target, Data: string(code)})
	}
	return images, nil
}
