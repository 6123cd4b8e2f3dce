package rt

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/qdgo/qd/internal/iterations"
)

// This file is the interface of generated stubs: the functions and
// constants here are called only by code that qdgen writes.

// UnknownCount marks a parallel task whose iteration count the host cannot
// compute; it is launched on a full grid.
const UnknownCount = iterations.UnknownCount

// CheckDisjoint returns an error if two buffer arguments, which blocks of
// one qd.StreamParallel group would write and read at the same time,
// overlap in memory. Generated stubs call it before a launch.
func CheckDisjoint(kernel, name1 string, b1 ArgBuffer, name2 string, b2 ArgBuffer) error {
	s1, e1 := b1.argSpan()
	s2, e2 := b2.argSpan()
	if s1 < e2 && s2 < e1 {
		return opError("launch "+kernel, fmt.Errorf("buffers %s and %s overlap, and the kernel's concurrent qd.StreamParallel blocks write one while reading or writing the other", name1, name2))
	}
	return nil
}

// CheckBuffers verifies that every buffer argument of a launch with the
// options opts can be used on d, and marks the buffers as used on the
// launch's stream (so that Free waits for it) or, on a stream of a
// recording, as referred to by the recording. Generated stubs call it.
func CheckBuffers(d *Device, kernel string, opts []LaunchOption, bufs ...ArgBuffer) error {
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
		if err := b.argLaunch(d, use); err != nil {
			return opError("launch "+kernel, err)
		}
	}
	if use == nil {
		s.rec.refer(bufs)
	}
	return nil
}

// The Put functions write one argument into a packed argument buffer at
// its offset, little-endian as the GPU reads it. Generated stubs call them.

func PutBool(args []byte, off int, v bool) {
	args[off] = 0
	if v {
		args[off] = 1
	}
}
func PutUint8(args []byte, off int, v uint8)   { args[off] = v }
func PutUint16(args []byte, off int, v uint16) { binary.LittleEndian.PutUint16(args[off:], v) }
func PutUint32(args []byte, off int, v uint32) { binary.LittleEndian.PutUint32(args[off:], v) }
func PutUint64(args []byte, off int, v uint64) { binary.LittleEndian.PutUint64(args[off:], v) }
func PutFloat32(args []byte, off int, v float32) {
	binary.LittleEndian.PutUint32(args[off:], math.Float32bits(v))
}
func PutFloat64(args []byte, off int, v float64) {
	binary.LittleEndian.PutUint64(args[off:], math.Float64bits(v))
}

// PutBuffer writes a buffer argument: its device address, then its length.
// It takes the buffer's own type, not an ArgBuffer, so that the call is
// static.
func PutBuffer[T Element](args []byte, off int, b *Buffer[T]) {
	binary.LittleEndian.PutUint64(args[off:], uint64(b.ptr))
	binary.LittleEndian.PutUint64(args[off+8:], uint64(b.n))
}

// Iterations is the number of iterations of a loop from start up to end,
// end - start, for a launch's count: 0 when end ≤ start, and
// math.MaxInt64 when the difference does not fit in an int64 (a loop
// from -2^62 to 2^62 runs that long, and its first iterations must run).
func Iterations(start, end int64) int64 {
	switch d := uint64(end) - uint64(start); {
	case end <= start:
		return 0
	case d > math.MaxInt64:
		return math.MaxInt64
	default:
		return int64(d)
	}
}
