package rt

import (
	"fmt"
	"unsafe"
)

// LaunchOption adjusts one launch; every generated stub takes them last.
type LaunchOption struct {
	blockSize int
	gridSize  int
	stream    *Stream
	setStream bool
}

// OnStream launches a kernel on stream s, after the work already queued
// there and before the work queued after it. Without it, or with a nil
// stream, a kernel goes to the default stream. Launching on a closed
// stream is an error.
func OnStream(s *Stream) LaunchOption { return LaunchOption{stream: s, setStream: true} }

// BlockSize sets the number of threads per block of parallel tasks
// (default 256). It must be a multiple of 32 between 32 and 1024.
func BlockSize(n int) LaunchOption { return LaunchOption{blockSize: n} }

// GridSize sets the number of blocks of parallel tasks, instead of sizing
// the grid from the iteration count.
func GridSize(n int) LaunchOption { return LaunchOption{gridSize: n} }

type launchSettings struct {
	blockSize int
	gridSize  int
	stream    *Stream
}

func launchConfig(opts []LaunchOption) (launchSettings, error) {
	var s launchSettings
	for _, o := range opts {
		if o.blockSize != 0 {
			if o.blockSize < 32 || o.blockSize > 1024 || o.blockSize%32 != 0 {
				return s, fmt.Errorf("block size %d is not a multiple of 32 in [32, 1024]", o.blockSize)
			}
			s.blockSize = o.blockSize
		}
		if o.setStream {
			s.stream = o.stream
		}
		if o.gridSize != 0 {
			if o.gridSize < 0 || o.gridSize > 1<<31-1 {
				return s, fmt.Errorf("grid size %d out of range", o.gridSize)
			}
			s.gridSize = o.gridSize
		}
	}
	return s, nil
}

func sliceData(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}
