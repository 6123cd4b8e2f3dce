package hip

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

// Blocks are one-dimensional, so a thread's warp (wave) is its index in
// the block divided by the warp size, which stays a parameter: warpSize is
// 32 on NVIDIA GPUs, 64 on AMD's CDNA GPUs and 32 on RDNA.
var blockExprs = map[ir.Op]string{
	ir.OpBlockIndex:  "(i64)blockIdx.x",
	ir.OpBlockCount:  "(i64)gridDim.x",
	ir.OpBlockThread: "(i64)threadIdx.x",
	ir.OpBlockSize:   "(i64)blockDim.x",
	ir.OpLane:        "(i64)(threadIdx.x % warpSize)",
	ir.OpWarpIndex:   "(i64)(threadIdx.x / warpSize)",
	ir.OpWarpSize:    "(i64)warpSize",
}

// shuffle writes a shuffle of a value from the lane delta above in the
// warp, through the prelude's qd_shfl_down, or below, through
// qd_shfl_up: CUDA's take every lane of the warp, HIP's the whole wave.
// A lane with none there keeps its own value. Narrow integers travel as
// 32-bit ones.
func (f *function) shuffle(in *ir.Instr, fn string) {
	t := in.Type
	x := f.arg(in.Args[0], t)
	if t.Size() < 4 {
		x = "(i32)" + x
		if t.IsUnsigned() {
			x = "(u32)" + f.arg(in.Args[0], t)
		}
	}
	delta := fmt.Sprintf("(u32)r%d", in.Args[1].Reg)
	if a := in.Args[1]; a.Imm {
		delta = literal(ir.Uint32, min(a.Bits, 1<<31))
	}
	f.set(in, fmt.Sprintf("%s(%s, %s)", fn, x, delta))
}
