package ptx

import "github.com/qdgo/qd/ir"

// bitOp writes a bit count or permutation of an unsigned integer. Narrow
// integers sit zero-extended in 32-bit registers, so each works on the
// 32-bit register and corrects for the bits above the width; counts of a
// 64-bit register come back as 32 bits and are widened.
func (e *entry) bitOp(in *ir.Instr, d string) {
	t := in.Type
	x := e.regArg(in.Args[0], t)
	w := t.Bits()
	if w == 64 {
		e.bitOp64(in.Op, d, x)
		return
	}
	pad := 32 - w
	switch in.Op {
	case ir.OpPopCount:
		e.emit("popc.b32 %s, %s", d, x)
	case ir.OpLeadingZeros:
		e.emit("clz.b32 %s, %s", d, x)
		if pad > 0 {
			e.emit("sub.u32 %s, %s, %d", d, d, pad)
		}
	case ir.OpTrailingZeros:
		// PTX has no count of trailing zeros: count the leading zeros of
		// the reversed bits, with a bit above the width stopping the count
		// of a zero.
		r := e.temp(ir.Uint32)
		if pad > 0 {
			e.emit("or.b32 %s, %s, %d", r, x, 1<<w)
			x = r
		}
		e.emit("brev.b32 %s, %s", r, x)
		e.emit("clz.b32 %s, %s", d, r)
	case ir.OpBitReverse:
		e.emit("brev.b32 %s, %s", d, x)
		if pad > 0 {
			e.emit("shr.b32 %s, %s, %d", d, d, pad)
		}
	case ir.OpByteSwap:
		// prmt picks each byte of the result by its index in x.
		selector := "0x0123"
		if w == 16 {
			selector = "0x3201"
		}
		e.emit("prmt.b32 %s, %s, %s, %s", d, x, x, selector)
	}
}

func (e *entry) bitOp64(op ir.Op, d, x string) {
	count := func(instr, src string) {
		n := e.temp(ir.Uint32)
		e.emit("%s.b64 %s, %s", instr, n, src)
		e.emit("cvt.u64.u32 %s, %s", d, n)
	}
	switch op {
	case ir.OpPopCount:
		count("popc", x)
	case ir.OpLeadingZeros:
		count("clz", x)
	case ir.OpTrailingZeros:
		r := e.temp(ir.Uint64)
		e.emit("brev.b64 %s, %s", r, x)
		count("clz", r)
	case ir.OpBitReverse:
		e.emit("brev.b64 %s, %s", d, x)
	case ir.OpByteSwap:
		lo, hi := e.temp(ir.Uint32), e.temp(ir.Uint32)
		e.emit("mov.b64 {%s, %s}, %s", lo, hi, x)
		e.emit("prmt.b32 %s, %s, %s, 0x0123", lo, lo, lo)
		e.emit("prmt.b32 %s, %s, %s, 0x0123", hi, hi, hi)
		e.emit("mov.b64 %s, {%s, %s}", d, hi, lo)
	}
}
