package opt

import "github.com/qdgo/qd/ir"

// PTX is the pipeline of the PTX backend: Default after SetWarpSize32.
var PTX = append(Pipeline{{Name: "warpsize", Task: SetWarpSize32}}, Default...)

// SetWarpSize32 replaces the warp's size, which the IR leaves to the
// target, by 32, the size of every NVIDIA GPU's warps. The block
// collectives are written for any size up to 64 (AMD's wavefronts), each
// shuffle step behind a test of the size; with the size a constant, the
// tests fold, the loop over the warps' sums unrolls, and what is left is
// the shuffles. ptxas knows WARP_SZ but does not fold arithmetic on it:
// a division by it stayed a division.
func SetWarpSize32(t *ir.Task) {
	for _, b := range t.Blocks {
		var out []ir.Instr
		for _, x := range b.Instrs {
			switch x.Op {
			case ir.OpWarpSize:
				x = ir.Instr{Op: ir.OpMove, Type: ir.Int64, Dst: x.Dst, Args: []ir.Arg{ir.Imm(ir.Int64, 32)}, Pos: x.Pos}
			case ir.OpWarpIndex:
				// The thread's place in the block over 32, a shift: PTX
				// has no register for it, and the emitter's division by
				// WARP_SZ stayed a division.
				thread := t.NewReg(ir.Int64)
				out = append(out, ir.Instr{Op: ir.OpBlockThread, Type: ir.Int64, Dst: thread, Pos: x.Pos})
				x = ir.Instr{Op: ir.OpShr, Type: ir.Int64, From: ir.Int64, Dst: x.Dst, Args: []ir.Arg{ir.R(thread), ir.Imm(ir.Int64, 5)}, Pos: x.Pos}
			}
			out = append(out, x)
		}
		b.Instrs = out
	}
}
