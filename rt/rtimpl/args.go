package rtimpl

import (
	"github.com/qdgo/qd/rt"
	"github.com/qdgo/qd/rt/internal/stubabi"
)

// The Put functions write one argument into a packed argument buffer at
// its offset, little-endian as the GPU reads it.

func PutBool(args []byte, off int, v bool)       { stubabi.PutBool(args, off, v) }
func PutUint8(args []byte, off int, v uint8)     { stubabi.PutUint8(args, off, v) }
func PutUint16(args []byte, off int, v uint16)   { stubabi.PutUint16(args, off, v) }
func PutUint32(args []byte, off int, v uint32)   { stubabi.PutUint32(args, off, v) }
func PutUint64(args []byte, off int, v uint64)   { stubabi.PutUint64(args, off, v) }
func PutFloat32(args []byte, off int, v float32) { stubabi.PutFloat32(args, off, v) }
func PutFloat64(args []byte, off int, v float64) { stubabi.PutFloat64(args, off, v) }

// PutBuffer writes a buffer argument: its device address, then its length.
// It takes the buffer's own type, not an ArgBuffer, so that the call is
// static.
func PutBuffer[T rt.Element](args []byte, off int, b *rt.Buffer[T]) {
	stubabi.PutBuffer(args, off, b.DevicePointer(), b.Len())
}

// UnknownCount marks a parallel task whose iteration count the host cannot
// compute; it is launched on a full grid.
const UnknownCount = stubabi.UnknownCount

// Iterations is the number of iterations of a loop from start up to end,
// for a launch's count: 0 when end ≤ start, and math.MaxInt64 when the
// difference does not fit in an int64.
func Iterations(start, end int64) int64 { return stubabi.Iterations(start, end) }
