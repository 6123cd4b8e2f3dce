package stubabi

import (
	"encoding/binary"
	"math"

	"github.com/qdgo/qd/internal/iterations"
)

// The Put functions write one argument into a packed argument buffer at
// its offset, little-endian as the GPU reads it.

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
func PutBuffer(args []byte, off int, ptr uintptr, n int) {
	binary.LittleEndian.PutUint64(args[off:], uint64(ptr))
	binary.LittleEndian.PutUint64(args[off+8:], uint64(n))
}

// UnknownCount marks a parallel task whose iteration count the host cannot
// compute; it is launched on a full grid.
const UnknownCount = iterations.UnknownCount

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
