package ptx

import "github.com/qdgo/qd/ir"

// specialRegs are the PTX special registers of the ops that read one; the
// warp size is WARP_SZ, which ptxas knows as a constant.
var specialRegs = map[ir.Op]string{
	ir.OpBlockIndex:  "%ctaid.x",
	ir.OpBlockCount:  "%nctaid.x",
	ir.OpBlockThread: "%tid.x",
	ir.OpBlockSize:   "%ntid.x",
	ir.OpLane:        "%laneid",
	ir.OpWarpSize:    "WARP_SZ",
}

// special reads a 32-bit special register into the i64 register d.
func (e *entry) special(reg, d string) {
	r := e.temp(ir.Uint32)
	e.emit("mov.u32 %s, %s", r, reg)
	e.emit("cvt.u64.u32 %s, %s", d, r)
}

// shuffle writes a shuffle of a value from the lane delta above (mode
// down, clamp 31) or below (mode up, clamp 0), 32 bits at a time; every
// lane of the warp takes part, and a lane with none there keeps its own
// value. Narrow integers stay extended, since every lane's value is.
func (e *entry) shuffle(in *ir.Instr, d, mode string, clamp int) {
	t := in.Type
	delta := e.temp(ir.Uint32)
	if a := in.Args[1]; a.Imm {
		e.emit("mov.u32 %s, %d", delta, uint32(min(a.Bits, 1<<31)))
	} else {
		e.emit("cvt.u32.u64 %s, %s", delta, e.reg(a.Reg))
	}
	x := e.regArg(in.Args[0], t)
	if t.Size() < 8 {
		e.emit("shfl.sync.%s.b32 %s, %s, %s, %d, -1", mode, d, x, delta, clamp)
		return
	}
	lo, hi := e.temp(ir.Uint32), e.temp(ir.Uint32)
	e.emit("mov.b64 {%s, %s}, %s", lo, hi, x)
	e.emit("shfl.sync.%s.b32 %s, %s, %s, %d, -1", mode, lo, lo, delta, clamp)
	e.emit("shfl.sync.%s.b32 %s, %s, %s, %d, -1", mode, hi, hi, delta, clamp)
	e.emit("mov.b64 %s, {%s, %s}", d, lo, hi)
}
