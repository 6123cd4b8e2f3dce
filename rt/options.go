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
	eager     bool
}

// OnStream launches a kernel on stream s, after the work already queued
// there and before the work queued after it. Without it, or with a nil
// stream, a kernel goes to the default stream. Launching on a closed
// stream is an error.
func OnStream(s *Stream) LaunchOption { return LaunchOption{stream: s, setStream: true} }

// BlockSize sets the number of threads per block of parallel tasks
// (default 256). It must be a multiple of the device's warp size (32 on
// NVIDIA GPUs) and at most its limit of threads per block (1024 on NVIDIA
// GPUs); the CPU backend checks it as an NVIDIA GPU would.
func BlockSize(n int) LaunchOption { return LaunchOption{blockSize: n} }

// GridSize sets the number of blocks of parallel tasks, instead of sizing
// the grid from the iteration count.
func GridSize(n int) LaunchOption { return LaunchOption{gridSize: n} }

// Eager launches a kernel with qd.StreamParallel groups task by task, with
// the fork and join on pooled streams and events, instead of replaying it
// as a cached graph. The two run the same work in the same order; graphs
// cost the host less.
func Eager() LaunchOption { return LaunchOption{eager: true} }

type launchSettings struct {
	blockSize int
	gridSize  int
	stream    *Stream
	eager     bool
}

// launchConfig reads the options of a launch on d, checking them against
// the device.
func launchConfig(d *Device, opts []LaunchOption) (launchSettings, error) {
	var s launchSettings
	warp, most := max(d.attrs.warpSize, 1), d.attrs.maxThreadsPerBlock
	for _, o := range opts {
		if o.blockSize != 0 {
			if o.blockSize < warp || o.blockSize > most || o.blockSize%warp != 0 {
				return s, fmt.Errorf("block size %d is not a multiple of the device's warp size %d in [%d, %d]", o.blockSize, warp, warp, most)
			}
			s.blockSize = o.blockSize
		}
		if o.setStream {
			s.stream = o.stream
		}
		s.eager = s.eager || o.eager
		if o.gridSize != 0 {
			if o.gridSize < 0 || o.gridSize > 1<<31-1 {
				return s, fmt.Errorf("grid size %d out of range", o.gridSize)
			}
			s.gridSize = o.gridSize
		}
	}
	return s, nil
}

// streamOption is the stream the options launch on: the last OnStream's,
// or nil for the default stream.
func streamOption(opts []LaunchOption) *Stream {
	var s *Stream
	for i := range opts {
		if opts[i].setStream {
			s = opts[i].stream
		}
	}
	return s
}

func sliceData(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}
