package ptx

import (
	"fmt"
	"math"

	"github.com/qdgo/qd/ir"
)

var compareNames = map[ir.Op]string{
	ir.OpEq: "eq", ir.OpNe: "ne", ir.OpLt: "lt", ir.OpLe: "le", ir.OpGt: "gt", ir.OpGe: "ge",
}

var roundingOps = map[ir.Op]string{
	ir.OpFloor: "rmi", ir.OpCeil: "rpi", ir.OpTrunc: "rzi", ir.OpRoundEven: "rni",
}

// instr writes the PTX of one IR instruction.
func (e *entry) instr(in *ir.Instr) {
	t := in.Type
	var d string
	e.unnormalized = ""
	if in.Dst != ir.NoReg {
		d = e.reg(in.Dst)
		if e.storedOnly == nil {
			e.storedOnly = storedOnlyRegs(e.t)
		}
		// Not an atomic operation's: its loop compares the old value.
		if e.storedOnly[in.Dst] && !in.Op.Info().Atomic {
			e.unnormalized = d
		}
	}
	a := func(i int) string { return e.arg(in.Args[i], e.k.ArgTypes(in)[i]) }
	switch in.Op {
	case ir.OpConst, ir.OpMove:
		e.emit("mov.%s %s, %s", movType(t), d, a(0))
	case ir.OpParam:
		e.param(in, d)
	case ir.OpParamBase:
		e.emit("ld.param.u64 %s, [%s]", d, e.paramName(e.slot(in.Aux, ir.SlotBase)))
		e.emit("cvta.to.global.u64 %s, %s", d, d)
	case ir.OpParamLen:
		e.emit("ld.param.u64 %s, [%s]", d, e.paramName(e.slot(in.Aux, ir.SlotLen)))
	case ir.OpThreadIndex:
		ctaid, ntid, tid, wide := e.temp(ir.Uint32), e.temp(ir.Uint32), e.temp(ir.Uint32), e.temp(ir.Uint64)
		e.emit("mov.u32 %s, %%ctaid.x", ctaid)
		e.emit("mov.u32 %s, %%ntid.x", ntid)
		e.emit("mov.u32 %s, %%tid.x", tid)
		e.emit("mul.wide.u32 %s, %s, %s", d, ctaid, ntid)
		e.emit("cvt.u64.u32 %s, %s", wide, tid)
		e.emit("add.s64 %s, %s, %s", d, d, wide)
	case ir.OpThreadCount:
		nctaid, ntid := e.temp(ir.Uint32), e.temp(ir.Uint32)
		e.emit("mov.u32 %s, %%nctaid.x", nctaid)
		e.emit("mov.u32 %s, %%ntid.x", ntid)
		e.emit("mul.wide.u32 %s, %s, %s", d, nctaid, ntid)
	case ir.OpNeg:
		e.emit("neg.%s %s, %s", opType(t.Signed()), d, e.regArg(in.Args[0], t)) // same bits for unsigned
		e.normalize(d, t)
	case ir.OpNot:
		e.emit("not.%s %s, %s", bitType(t), d, e.regArg(in.Args[0], t))
		e.normalize(d, t)
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		if e.wideMultiply(in, d) {
			break
		}
		name := in.Op.String()
		switch {
		case t.IsFloat():
			name += ".rn"
		case in.Op == ir.OpMul:
			name += ".lo"
		}
		e.emit("%s.%s %s, %s, %s", name, opType(t), d, a(0), a(1))
		e.normalize(d, t)
	case ir.OpDiv, ir.OpRem:
		e.divide(in, d)
	case ir.OpAnd, ir.OpOr, ir.OpXor:
		if t == ir.Bool { // predicate logic takes no immediates
			e.emit("%s.pred %s, %s, %s", in.Op, d, e.regArg(in.Args[0], t), e.regArg(in.Args[1], t))
			break
		}
		e.emit("%s.%s %s, %s, %s", in.Op, bitType(t), d, a(0), a(1))
	case ir.OpAndNot:
		if in.Args[1].Imm {
			e.emit("and.%s %s, %s, %s", bitType(t), d, a(0), imm(t, ^in.Args[1].Bits))
			break
		}
		inv := e.temp(t)
		e.emit("not.%s %s, %s", bitType(t), inv, a(1))
		e.emit("and.%s %s, %s, %s", bitType(t), d, a(0), inv)
	case ir.OpShl, ir.OpShr:
		e.shift(in, d)
	case ir.OpMulHi:
		if t.Size() >= 4 {
			e.emit("mul.hi.%s %s, %s, %s", opType(t), d, a(0), a(1))
			break
		}
		e.emit("mul.lo.s32 %s, %s, %s", d, a(0), a(1))
		e.emit("shr.%s %s, %s, %d", opType(t), d, d, t.Bits())
		e.normalize(d, t)
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		e.compare(in, d)
	case ir.OpConvert:
		e.convert(in, d)
	case ir.OpMin, ir.OpMax:
		if t.IsFloat() && !e.floatMinMaxConstant(in, d) {
			e.floatMinMax(in.Op, t, d, e.regArg(in.Args[0], t), e.regArg(in.Args[1], t))
		}
		if t.IsFloat() {
			break
		}
		e.emit("%s.%s %s, %s, %s", in.Op, opType(t), d, a(0), a(1))
	case ir.OpSqrt:
		e.emit("sqrt.rn.%s %s, %s", opType(t), d, e.regArg(in.Args[0], t))
	case ir.OpAbs:
		mask := uint64(1)<<(t.Bits()-1) - 1
		e.emit("and.%s %s, %s, %d", bitType(t), d, e.regArg(in.Args[0], t), mask)
	case ir.OpFloor, ir.OpCeil, ir.OpTrunc, ir.OpRoundEven:
		e.emit("cvt.%s.%s.%s %s, %s", roundingOps[in.Op], opType(t), opType(t), d, e.regArg(in.Args[0], t))
	case ir.OpFMA:
		e.emit("fma.rn.%s %s, %s, %s, %s", opType(t), d, a(0), a(1), a(2))
	case ir.OpBitcast:
		if in.Args[0].Imm {
			e.emit("mov.%s %s, %s", movType(t), d, imm(t, t.Normalize(in.Args[0].Bits)))
			break
		}
		e.emit("mov.%s %s, %s", bitType(t), d, a(0))
	case ir.OpPopCount, ir.OpLeadingZeros, ir.OpTrailingZeros, ir.OpBitReverse, ir.OpByteSwap:
		e.bitOp(in, d)
	case ir.OpElemAddr:
		base := e.arg(in.Args[0], ir.Ptr)
		if in.Args[1].Imm {
			e.emit("add.s64 %s, %s, %d", d, base, int64(in.Args[1].Bits)*in.Aux)
			break
		}
		if in.Aux == 1 {
			e.emit("add.s64 %s, %s, %s", d, base, e.reg(in.Args[1].Reg))
			break
		}
		if w, ok := e.widened[in.Args[1].Reg]; ok && in.Aux > 0 && in.Aux <= math.MaxInt32 {
			// An index computed in 32 bits: one wide multiply-add, where
			// a conversion and a 64-bit one cost the GPU several.
			e.emit("mad.wide.%s %s, %s, %d, %s", opType(w.From), d, e.reg(w.Args[0].Reg), in.Aux, base)
			break
		}
		e.emit("mad.lo.s64 %s, %s, %d, %s", d, e.reg(in.Args[1].Reg), in.Aux, base)
	case ir.OpLoad:
		e.load(in, d)
	case ir.OpStore:
		e.store(in)
	case ir.OpAddr:
		e.emit("mov.u64 %s, %s", d, varSymbol(e.t.Vars[in.Aux]))
	case ir.OpDataAddr:
		e.emit("mov.u64 %s, %s", d, e.tables[in.Aux])
	case ir.OpBarrier:
		e.emit("bar.sync 0")
	case ir.OpBlockIndex, ir.OpBlockCount, ir.OpBlockThread, ir.OpBlockSize, ir.OpLane, ir.OpWarpSize:
		e.special(specialRegs[in.Op], d)
	case ir.OpWarpIndex:
		tid := e.temp(ir.Uint32)
		e.emit("mov.u32 %s, %%tid.x", tid)
		e.emit("div.u32 %s, %s, WARP_SZ", tid, tid)
		e.emit("cvt.u64.u32 %s, %s", d, tid)
	case ir.OpShuffleDown:
		e.shuffle(in, d, "down", 31)
	case ir.OpShuffleUp:
		e.shuffle(in, d, "up", 0)
	case ir.OpScratch:
		e.emit("ld.param.u64 %s, [%s]", d, e.paramName(e.slot(-1, ir.SlotScratch)))
		e.emit("cvta.to.global.u64 %s, %s", d, d)
	case ir.OpCheckIndex, ir.OpCheckSlice, ir.OpCheckDivide:
		e.check(in)
	case ir.OpCall:
		e.call(in)
	case ir.OpPrint:
		e.print(in)
	default:
		if in.Op.Info().Atomic {
			e.atomic(in, d)
			break
		}
		panic(fmt.Sprintf("ptx: unexpected op %s", in.Op))
	}
}

// load reads memory; a bool is a byte, 0 or 1, as in Go.
func (e *entry) load(in *ir.Instr, d string) {
	addr := e.regArg(in.Args[0], ir.Ptr)
	if in.Type == ir.Bool {
		b := e.temp(ir.Uint32)
		e.emit("ld.%s.u8 %s, [%s]", in.Space, b, addr)
		e.emit("setp.ne.u32 %s, %s, 0", d, b)
		return
	}
	e.emit("ld.%s.%s %s, [%s]", in.Space, memType(in.Type), d, addr)
}

func (e *entry) store(in *ir.Instr) {
	addr := e.regArg(in.Args[0], ir.Ptr)
	if in.Type == ir.Bool {
		b := e.temp(ir.Uint32)
		if v := in.Args[1]; v.Imm {
			e.emit("mov.u32 %s, %d", b, v.Bits)
		} else {
			e.emit("selp.u32 %s, 1, 0, %s", b, e.reg(v.Reg))
		}
		e.emit("st.%s.u8 [%s], %s", in.Space, addr, b)
		return
	}
	e.emit("st.%s.%s [%s], %s", in.Space, memType(in.Type), addr, e.regArg(in.Args[1], in.Type))
}

// slot finds the argument slot of part of a parameter.
func (e *entry) slot(param int64, part ir.SlotPart) int {
	for i, s := range e.slots {
		if s.Param == int(param) && s.Part == part {
			return i
		}
	}
	panic("ptx: no argument slot")
}

func (e *entry) param(in *ir.Instr, d string) {
	name := e.paramName(e.slot(in.Aux, ir.SlotValue))
	if in.Type == ir.Bool {
		byteReg := e.temp(ir.Uint32)
		e.emit("ld.param.u8 %s, [%s]", byteReg, name)
		e.emit("setp.ne.u32 %s, %s, 0", d, byteReg)
		return
	}
	e.emit("ld.param.%s %s, [%s]", memType(in.Type), d, name)
}

// divide writes an integer or float division or remainder. Go defines
// x / -1 as -x, wrapping, and x % -1 as 0; PTX leaves the most negative
// x / -1 unspecified, so signed division selects those results itself.
func (e *entry) divide(in *ir.Instr, d string) {
	t := in.Type
	x, y := e.arg(in.Args[0], t), e.arg(in.Args[1], t)
	if t.IsFloat() {
		e.emit("div.rn.%s %s, %s, %s", opType(t), d, x, y)
		return
	}
	op := "div"
	if in.Op == ir.OpRem {
		op = "rem"
	}
	if t.IsUnsigned() || in.Args[1].Imm && int64(in.Args[1].Bits) != -1 {
		e.emit("%s.%s %s, %s, %s", op, opType(t), d, x, y)
		e.normalize(d, t)
		return
	}
	byMinusOne := e.temp(ir.Bool)
	e.emit("setp.eq.%s %s, %s, -1", opType(t), byMinusOne, y)
	special := "0"
	if in.Op == ir.OpDiv {
		special = e.temp(t)
		e.emit("neg.%s %s, %s", opType(t), special, e.regArg(in.Args[0], t))
	}
	e.emit("%s.%s %s, %s, %s", op, opType(t), d, x, y)
	e.emit("selp.%s %s, %s, %s, %s", bitType(t), d, special, d, byMinusOne)
	e.normalize(d, t)
}

// shift writes a shift. PTX clamps 32-bit shift counts to the register
// width, which gives Go's results; 64-bit counts are clamped first.
func (e *entry) shift(in *ir.Instr, d string) {
	t := in.Type
	op := "shl.b"
	if in.Op == ir.OpShr {
		op = "shr.s"
		if t.IsUnsigned() {
			op = "shr.u"
		}
	}
	width := 32
	if t.Size() == 8 {
		width = 64
	}
	op = fmt.Sprintf("%s%d", op, width)
	var count string
	switch c := in.Args[1]; {
	case c.Imm:
		count = fmt.Sprint(min(in.From.Normalize(c.Bits), uint64(width)))
	case in.From.Size() == 8:
		clamped := e.temp(ir.Uint64)
		e.emit("min.u64 %s, %s, %d", clamped, e.reg(c.Reg), width)
		count = e.temp(ir.Uint32)
		e.emit("cvt.u32.u64 %s, %s", count, clamped)
	default:
		count = e.reg(c.Reg)
	}
	e.emit("%s %s, %s, %s", op, d, e.regArg(in.Args[0], t), count)
	e.normalize(d, t)
}

func (e *entry) compare(in *ir.Instr, d string) {
	t := in.Type
	if t == ir.Bool {
		x, y := e.regArg(in.Args[0], t), e.regArg(in.Args[1], t)
		if in.Op == ir.OpNe {
			e.emit("xor.pred %s, %s, %s", d, x, y)
			return
		}
		diff := e.temp(ir.Bool)
		e.emit("xor.pred %s, %s, %s", diff, x, y)
		e.emit("not.pred %s, %s", d, diff)
		return
	}
	name := compareNames[in.Op]
	if t.IsFloat() && in.Op == ir.OpNe {
		name = "neu" // true when either operand is NaN, as in Go
	}
	e.emit("setp.%s.%s %s, %s, %s", name, opType(t), d, e.arg(in.Args[0], t), e.arg(in.Args[1], t))
}

// convert writes a numeric conversion with Go's semantics.
func (e *entry) convert(in *ir.Instr, d string) {
	to, from := in.Type, in.From
	x := e.regArg(in.Args[0], from)
	switch {
	case to.IsInteger() && from.IsInteger():
		switch {
		case to.Size() == 8 && from.Size() == 8:
			e.emit("mov.b64 %s, %s", d, x)
		case to.Size() == 8:
			e.emit("cvt.%s.%s %s, %s", map[bool]string{true: "s64", false: "u64"}[from.IsSigned()],
				opType(from), d, x)
		case from.Size() == 8:
			e.emit("cvt.u32.u64 %s, %s", d, x)
			e.normalize(d, to)
		default:
			e.emit("mov.b32 %s, %s", d, x)
			e.normalize(d, to)
		}
	case to.IsFloat() && from.IsInteger():
		e.emit("cvt.rn.%s.%s %s, %s", opType(to), opType(from), d, x)
	case to.IsInteger() && from.IsFloat():
		e.emit("cvt.rzi.%s.%s %s, %s", opType(to), opType(from), d, x)
		e.normalize(d, to)
	case to == ir.Float64 && from == ir.Float32:
		e.emit("cvt.f64.f32 %s, %s", d, x)
	case to == ir.Float32 && from == ir.Float64:
		e.emit("cvt.rn.f32.f64 %s, %s", d, x)
	default:
		e.emit("mov.%s %s, %s", movType(to), d, x)
	}
}

// floatMinMaxConstant writes Go's min or max of a float register and a
// constant c that is not NaN, and reports whether it did: x wins when it
// is NaN or beyond c; on a tie c wins, unless c is the zero that loses to
// the other zero, which x then is.
func (e *entry) floatMinMaxConstant(in *ir.Instr, d string) bool {
	t, args := in.Type, in.Args
	if args[0].Imm && !args[1].Imm {
		args = []ir.Arg{args[1], args[0]} // min and max are commutative
	}
	c := args[1]
	if !c.Imm || args[0].Imm || isNaN(t, c.Bits) {
		return false
	}
	negZero := c.Bits == t.Normalize(1<<(t.Bits()-1))
	cmp := map[bool]string{true: "gtu", false: "geu"}[!negZero]
	if in.Op == ir.OpMin {
		cmp = map[bool]string{true: "ltu", false: "leu"}[c.Bits != 0]
	}
	ty, x, pick := opType(t), e.reg(args[0].Reg), e.temp(ir.Bool)
	e.emit("setp.%s.%s %s, %s, %s", cmp, ty, pick, x, imm(t, c.Bits))
	e.emit("selp.%s %s, %s, %s, %s", ty, d, x, imm(t, c.Bits), pick)
	return true
}

// floatMinMax writes Go's min or max of two floats in registers: NaN if
// either is NaN, -0 below +0, otherwise the smaller (larger) operand.
func (e *entry) floatMinMax(op ir.Op, t ir.Type, d, x, y string) {
	ty, bits := opType(t), bitType(t)
	cmp, merge := "lt", "or"
	if op == ir.OpMax {
		cmp, merge = "gt", "and"
	}
	pick, equal, nan := e.temp(ir.Bool), e.temp(ir.Bool), e.temp(ir.Bool)
	r, z := e.temp(t), e.temp(t)
	e.emit("setp.%s.%s %s, %s, %s", cmp, ty, pick, x, y)
	e.emit("selp.%s %s, %s, %s, %s", ty, r, x, y, pick)
	e.emit("setp.eq.%s %s, %s, %s", ty, equal, x, y)
	e.emit("%s.%s %s, %s, %s", merge, bits, z, x, y)
	e.emit("selp.%s %s, %s, %s, %s", ty, r, z, r, equal)
	e.emit("setp.nan.%s %s, %s, %s", ty, nan, x, y)
	e.emit("add.rn.%s %s, %s, %s", ty, z, x, y)
	e.emit("selp.%s %s, %s, %s, %s", ty, d, z, r, nan)
}

func isNaN(t ir.Type, bits uint64) bool {
	if t == ir.Float32 {
		f := math.Float32frombits(uint32(bits))
		return f != f
	}
	return math.IsNaN(math.Float64frombits(bits))
}

// wideMultiply writes a 64-bit multiply of a 32-bit value extended by a
// constant that fits in 32 bits as one wide multiply, whose product is
// exact. The stride in bytes of a pointer whose step fits in 32 bits is
// such a product (opt's NarrowPointerSteps): ptxas then folds it into
// each step of the pointer, one wide multiply-add in place of a 64-bit
// add's two instructions.
func (e *entry) wideMultiply(in *ir.Instr, d string) bool {
	if in.Op != ir.OpMul || in.Type != ir.Int64 && in.Type != ir.Uint64 || in.Args[0].Imm || !in.Args[1].Imm {
		return false
	}
	w, ok := e.widened[in.Args[0].Reg]
	c := in.Args[1].Bits
	// A signed factor may be negative: a stencil's offset back a row is
	// the row length times minus the element size.
	if !ok || w.From == ir.Int32 && (int64(c) > math.MaxInt32 || int64(c) < math.MinInt32) || w.From == ir.Uint32 && c > math.MaxUint32 {
		return false
	}
	if w.From == ir.Int32 {
		e.emit("mul.wide.s32 %s, %s, %d", d, e.reg(w.Args[0].Reg), int64(c))
		return true
	}
	e.emit("mul.wide.%s %s, %s, %d", opType(w.From), d, e.reg(w.Args[0].Reg), c)
	return true
}

// invariantWidened finds the 64-bit registers that hold a 32-bit one
// extended wherever they are read: each is assigned once in the task, by
// a conversion of a register assigned once, earlier in the same block.
// Neither changes after that block, so a block that reads the 64-bit one
// may read the 32-bit one instead, as the step of a pointer set up before
// its loop is. Each block starts with these noted (noteWidened).
func invariantWidened(t *ir.Task) map[ir.Reg]ir.Instr {
	assigned := make([]int, len(t.Regs))
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			for _, d := range b.Instrs[i].Defs() {
				assigned[d]++
			}
		}
	}
	out := map[ir.Reg]ir.Instr{}
	for _, b := range t.Blocks {
		defined := map[ir.Reg]bool{}
		for _, in := range b.Instrs {
			if isWidening(&in) && assigned[in.Dst] == 1 && assigned[in.Args[0].Reg] == 1 && defined[in.Args[0].Reg] {
				out[in.Dst] = in
			}
			for _, d := range in.Defs() {
				defined[d] = true
			}
		}
	}
	return out
}

// isWidening reports whether in converts a 32-bit integer register to a
// 64-bit one.
func isWidening(in *ir.Instr) bool {
	return in.Op == ir.OpConvert && (in.Type == ir.Int64 || in.Type == ir.Uint64) && (in.From == ir.Int32 || in.From == ir.Uint32) &&
		!in.Args[0].Imm && in.Args[0].Reg != in.Dst
}

// noteWidened keeps e.widened current after in: a conversion of a 32-bit
// integer register to a 64-bit one is noted, and so is a copy of a
// register noted, which holds the same conversion (an index that CSE
// shares between a load and a store is read through one); an assignment
// of either register ends what was noted of it.
func (e *entry) noteWidened(in *ir.Instr) {
	if in.Dst == ir.NoReg {
		return
	}
	for r, w := range e.widened {
		if r == in.Dst || w.Args[0].Reg == in.Dst {
			delete(e.widened, r)
		}
	}
	if isWidening(in) {
		e.widened[in.Dst] = *in
	}
	if in.Op == ir.OpMove && (in.Type == ir.Int64 || in.Type == ir.Uint64) && !in.Args[0].Imm {
		if w, ok := e.widened[in.Args[0].Reg]; ok && in.Args[0].Reg != in.Dst {
			e.widened[in.Dst] = w
		}
	}
}
