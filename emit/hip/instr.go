package hip

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

var operators = map[ir.Op]string{
	ir.OpAdd: "+", ir.OpSub: "-", ir.OpMul: "*", ir.OpDiv: "/",
	ir.OpAnd: "&", ir.OpOr: "|", ir.OpXor: "^",
	ir.OpEq: "==", ir.OpNe: "!=", ir.OpLt: "<", ir.OpLe: "<=", ir.OpGt: ">", ir.OpGe: ">=",
}

// mathFunctions are the float intrinsics by op, for float32 and float64.
// CUDA's and HIP's are correctly rounded (sqrt) or exact (the others)
// with their compilers' default options.
var mathFunctions = map[ir.Op][2]string{
	ir.OpSqrt:  {"sqrtf", "sqrt"},
	ir.OpAbs:   {"fabsf", "fabs"},
	ir.OpFloor: {"floorf", "floor"},
	ir.OpCeil:  {"ceilf", "ceil"},
	ir.OpTrunc: {"truncf", "trunc"},
	// rint rounds to the nearest integer, ties to even, in the default
	// rounding mode, the only one GPU code runs in.
	ir.OpRoundEven: {"rintf", "rint"},
}

// instr writes the C++ of one IR instruction.
func (f *function) instr(in *ir.Instr) {
	t := in.Type
	a := func(i int) string { return f.arg(in.Args[i], in.ArgTypes()[i]) }
	switch in.Op {
	case ir.OpConst, ir.OpMove:
		f.set(in, a(0))
	case ir.OpParam:
		p := f.param(in.Aux, ir.SlotValue)
		if t == ir.Bool {
			p += " != 0"
		}
		f.set(in, p)
	case ir.OpParamBase:
		f.set(in, f.param(in.Aux, ir.SlotBase))
	case ir.OpParamLen:
		f.set(in, f.param(in.Aux, ir.SlotLen))
	case ir.OpThreadIndex:
		f.set(in, "(i64)((u64)blockIdx.x * blockDim.x + threadIdx.x)")
	case ir.OpThreadCount:
		f.set(in, "(i64)((u64)gridDim.x * blockDim.x)")
	case ir.OpNeg:
		if t.IsFloat() {
			f.set(in, "-"+a(0))
			break
		}
		neg := "-" + f.unsignedArg(in.Args[0], t)
		if t.Size() < 4 {
			neg = "(" + t.String() + ")" + neg // narrowing, said out loud
		}
		f.set(in, neg)
	case ir.OpNot:
		if t == ir.Bool {
			f.set(in, "!"+a(0))
			break
		}
		f.set(in, "~"+a(0))
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		if t.IsFloat() {
			f.set(in, fmt.Sprintf("%s %s %s", a(0), operators[in.Op], a(1)))
			break
		}
		f.set(in, fmt.Sprintf("%s %s %s", f.unsignedArg(in.Args[0], t), operators[in.Op], f.unsignedArg(in.Args[1], t)))
	case ir.OpDiv, ir.OpRem:
		if t.IsFloat() {
			f.set(in, fmt.Sprintf("%s / %s", a(0), a(1)))
			break
		}
		if y := in.Args[1]; y.Imm && y.Bits != 0 && (t.IsUnsigned() || int64(y.Bits) != -1) {
			f.set(in, fmt.Sprintf("%s %s %s", a(0), map[ir.Op]string{ir.OpDiv: "/", ir.OpRem: "%"}[in.Op], a(1)))
			break
		}
		f.set(in, fmt.Sprintf("%s(%s, %s)", f.m.divide(in.Op, t), a(0), a(1)))
	case ir.OpAnd, ir.OpOr, ir.OpXor:
		f.set(in, fmt.Sprintf("%s %s %s", a(0), operators[in.Op], a(1)))
	case ir.OpAndNot:
		f.set(in, fmt.Sprintf("%s & ~%s", a(0), a(1)))
	case ir.OpShl, ir.OpShr:
		f.shift(in)
	case ir.OpMulHi:
		f.mulHi(in, a(0), a(1))
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe:
		f.set(in, fmt.Sprintf("%s %s %s", a(0), operators[in.Op], a(1)))
	case ir.OpConvert:
		f.convert(in, a(0))
	case ir.OpMin, ir.OpMax:
		if t.IsFloat() {
			f.set(in, fmt.Sprintf("%s(%s, %s)", f.m.floatMinMax(in.Op, t), a(0), a(1)))
			break
		}
		cmp := "<"
		if in.Op == ir.OpMax {
			cmp = ">"
		}
		x, y := a(0), a(1)
		f.set(in, fmt.Sprintf("%s %s %s ? %s : %s", x, cmp, y, x, y))
	case ir.OpSqrt, ir.OpAbs, ir.OpFloor, ir.OpCeil, ir.OpTrunc, ir.OpRoundEven:
		name := mathFunctions[in.Op][0]
		if t == ir.Float64 {
			name = mathFunctions[in.Op][1]
		}
		f.set(in, fmt.Sprintf("%s(%s)", name, a(0)))
	case ir.OpFMA:
		name := "fma"
		if t == ir.Float32 {
			name = "fmaf"
		}
		f.set(in, fmt.Sprintf("%s(%s, %s, %s)", name, a(0), a(1), a(2)))
	case ir.OpBitcast:
		if in.Args[0].Imm {
			f.set(in, f.arg(in.Args[0], t)) // the same bits, written in t
			break
		}
		f.set(in, bitcast(t, in.From, a(0)))
	case ir.OpPopCount, ir.OpLeadingZeros, ir.OpTrailingZeros, ir.OpBitReverse, ir.OpByteSwap:
		f.set(in, bitOp(in.Op, t, a(0)))
	case ir.OpElemAddr:
		base := a(0)
		if in.Args[1].Imm {
			f.set(in, fmt.Sprintf("%s + %s", base, literal(ir.Int64, uint64(int64(in.Args[1].Bits)*in.Aux))))
			break
		}
		f.set(in, fmt.Sprintf("%s + %s * %d", base, a(1), in.Aux))
	case ir.OpLoad:
		f.set(in, fmt.Sprintf("*(%s *)%s", cType(t), a(0)))
	case ir.OpStore:
		f.line("*(%s *)%s = %s;", cType(t), a(0), a(1))
	case ir.OpCall:
		f.call(in)
	case ir.OpPrint:
		f.print(in)
	case ir.OpAddr:
		f.set(in, "(char *)"+varSymbol(f.t.Vars[in.Aux]))
	case ir.OpDataAddr:
		f.set(in, "(char *)"+f.tables[in.Aux])
	case ir.OpBarrier:
		f.line("__syncthreads();")
	case ir.OpBlockIndex, ir.OpBlockCount, ir.OpBlockThread, ir.OpBlockSize, ir.OpLane, ir.OpWarpIndex, ir.OpWarpSize:
		f.set(in, blockExprs[in.Op])
	case ir.OpShuffleDown:
		f.shuffle(in, "qd_shfl_down")
	case ir.OpShuffleUp:
		f.shuffle(in, "qd_shfl_up")
	case ir.OpScratch:
		f.set(in, f.param(-1, ir.SlotScratch))
	case ir.OpCheckIndex, ir.OpCheckSlice, ir.OpCheckDivide:
		f.check(in)
	default:
		if in.Op.Info().Atomic {
			f.atomic(in)
			break
		}
		panic(fmt.Sprintf("hip: unexpected op %s", in.Op))
	}
}

// param names the parameter of the argument slot of part of a kernel
// parameter.
func (f *function) param(param int64, part ir.SlotPart) string {
	for i, s := range f.slots {
		if s.Param == int(param) && s.Part == part {
			return fmt.Sprintf("p%d", i)
		}
	}
	panic("hip: no argument slot")
}

// shift writes a shift with Go's semantics: a count at or above the width
// gives 0, or the sign for a signed right shift. A constant count is
// resolved here; a variable one goes through a helper.
func (f *function) shift(in *ir.Instr) {
	t := in.Type
	x := f.arg(in.Args[0], t)
	c := in.Args[1]
	if !c.Imm {
		count := fmt.Sprintf("r%d", c.Reg)
		if in.From != ir.Uint64 {
			count = "(u64)" + count // sign-extends a signed count
		}
		f.set(in, fmt.Sprintf("%s(%s, %s)", f.m.shift(in.Op, t), x, count))
		return
	}
	n, width := in.From.Normalize(c.Bits), uint64(t.Bits())
	switch {
	case in.Op == ir.OpShl && n >= width, in.Op == ir.OpShr && t.IsUnsigned() && n >= width:
		f.set(in, "0")
	case in.Op == ir.OpShl:
		f.set(in, fmt.Sprintf("%s << %d", f.unsignedArg(in.Args[0], t), n))
	default:
		f.set(in, fmt.Sprintf("%s >> %d", x, min(n, width-1)))
	}
}

// mulHi writes the high half of the double-width product.
func (f *function) mulHi(in *ir.Instr, x, y string) {
	t := in.Type
	switch t {
	case ir.Int32:
		f.set(in, fmt.Sprintf("__mulhi(%s, %s)", x, y))
	case ir.Uint32:
		f.set(in, fmt.Sprintf("__umulhi(%s, %s)", x, y))
	case ir.Int64:
		f.set(in, fmt.Sprintf("__mul64hi(%s, %s)", x, y))
	case ir.Uint64:
		f.set(in, fmt.Sprintf("__umul64hi(%s, %s)", x, y))
	default:
		// The product of two 8- or 16-bit values fits in 32 bits.
		product := "i32"
		if t.IsUnsigned() {
			product = "u32"
		}
		f.set(in, fmt.Sprintf("((%s)%s * (%s)%s) >> %d", product, x, product, y, t.Bits()))
	}
}

// convert writes a numeric conversion with Go's semantics.
func (f *function) convert(in *ir.Instr, x string) {
	to, from := in.Type, in.From
	if from.IsFloat() && to.IsInteger() {
		// Narrow integers take the low bits of the 32-bit conversion, as
		// the PTX emitter's do.
		target := to
		if to.Size() < 4 {
			target = ir.Int32
			if to.IsUnsigned() {
				target = ir.Uint32
			}
		}
		f.set(in, fmt.Sprintf("%s(%s)", f.m.floatToInt(from, target), x))
		return
	}
	f.set(in, fmt.Sprintf("(%s)%s", cType(to), x))
}
