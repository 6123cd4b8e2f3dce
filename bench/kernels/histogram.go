//go:build qdatomics

// This file waits for sync/atomic in kernels (issue 9, part 3): build it
// with -tags qdatomics, and regenerate with qdgen -tags qdatomics, once
// atomics are supported; then drop the constraint.

package kernels

import "sync/atomic"

// Histogram counts the bytes of data in 256 bins.
//
//qd:kernel
func Histogram(data []uint8, bins []uint32) {
	for i := range data {
		atomic.AddUint32(&bins[data[i]], 1)
	}
}
