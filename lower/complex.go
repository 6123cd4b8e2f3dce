package lower

import (
	"go/token"
	"go/types"
	"math"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lowers complex arithmetic as Go's compiler and runtime compute
// it on amd64: + and - component by component in the operands' precision;
// * in float64 even for complex64, rounded once at the end; / by the
// runtime's complex128div (runtime/complex.go), Smith's algorithm with
// C99's corrections for infinities and zeros, complex64 widened to
// complex128 and narrowed back.

// convert lowers a conversion between numeric or complex types.
func (f *frame) convert(v *ssa.Convert, dst []ir.Reg) {
	tb := f.tb
	if isComplex(v.Type()) && isComplex(v.X.Type()) {
		x := f.leafArgs(v.X)
		for i, d := range dst {
			tb.emit(ir.Instr{Op: ir.OpConvert, Type: tb.t.Regs[d], From: f.leafType(v.X, i), Dst: d, Args: []ir.Arg{x[i]}, Pos: v.Pos()})
		}
		return
	}
	to, ok1 := basicType(v.Type())
	from, ok2 := basicType(v.X.Type())
	if !ok1 || !ok2 || to == ir.Bool || from == ir.Bool {
		f.errorf(v.Pos(), "conversion from %s to %s is not supported in kernels: only numeric conversions are", v.X.Type(), v.Type())
		return
	}
	if f.narrowFloatIntrinsic(v, dst) {
		return
	}
	a := f.arg(v.X)
	if to == from {
		tb.move(dst[0], a)
		return
	}
	tb.emit(ir.Instr{Op: ir.OpConvert, Type: to, From: from, Dst: dst[0], Args: []ir.Arg{a}, Pos: v.Pos()})
}

// leafType is the type of leaf i of v.
func (f *frame) leafType(v ssa.Value, i int) ir.Type {
	ts, _ := leafTypes(v.Type())
	return ts[i]
}

// complexArith lowers +, -, * and / of complex numbers.
func (f *frame) complexArith(v *ssa.BinOp, dst []ir.Reg) {
	tb := f.tb
	half := tb.t.Regs[dst[0]]
	x, y := f.leafArgs(v.X), f.leafArgs(v.Y)
	switch v.Op {
	case token.ADD, token.SUB:
		op := binOps[v.Op]
		for i := range 2 {
			tb.emit(ir.Instr{Op: op, Type: half, Dst: dst[i], Args: []ir.Arg{x[i], y[i]}, Pos: v.Pos()})
		}
		return
	case token.MUL, token.QUO:
	default:
		f.errorf(v.Pos(), "operator %s on %s is not supported in kernels", v.Op, v.X.Type())
		return
	}
	c := complexBuilder{tb: tb, pos: v.Pos()}
	for i := range 2 {
		x[i], y[i] = c.widen(x[i], half), c.widen(y[i], half)
	}
	var re, im ir.Arg
	if v.Op == token.MUL {
		re = c.sub(c.mul(x[0], y[0]), c.mul(x[1], y[1]))
		im = c.add(c.mul(x[0], y[1]), c.mul(x[1], y[0]))
	} else {
		re, im = c.divide(f, x[0], x[1], y[0], y[1])
	}
	tb.convertInto(dst[0], re, ir.Float64)
	tb.convertInto(dst[1], im, ir.Float64)
}

// complexBuilder emits float64 arithmetic.
type complexBuilder struct {
	tb  *taskBuilder
	pos token.Pos
}

func (c complexBuilder) op(op ir.Op, args ...ir.Arg) ir.Arg {
	in := ir.Instr{Op: op, Type: ir.Float64, Args: args, Pos: c.pos}
	in.Dst = c.tb.t.NewReg(in.ResultType())
	c.tb.emit(in)
	return ir.R(in.Dst)
}

func (c complexBuilder) add(x, y ir.Arg) ir.Arg { return c.op(ir.OpAdd, x, y) }
func (c complexBuilder) sub(x, y ir.Arg) ir.Arg { return c.op(ir.OpSub, x, y) }
func (c complexBuilder) mul(x, y ir.Arg) ir.Arg { return c.op(ir.OpMul, x, y) }
func (c complexBuilder) div(x, y ir.Arg) ir.Arg { return c.op(ir.OpDiv, x, y) }

func (c complexBuilder) widen(x ir.Arg, from ir.Type) ir.Arg {
	return c.tb.convert(x, from, ir.Float64)
}

var (
	inf  = ir.Imm(ir.Float64, math.Float64bits(math.Inf(1)))
	zero = ir.Imm(ir.Float64, 0)
	one  = ir.Imm(ir.Float64, math.Float64bits(1))
)

func (c complexBuilder) isNaN(x ir.Arg) ir.Arg { return c.op(ir.OpNe, x, x) }
func (c complexBuilder) isInf(x ir.Arg) ir.Arg { return c.op(ir.OpEq, c.op(ir.OpAbs, x), inf) }

// isFinite is false for infinities and NaN, as in the runtime.
func (c complexBuilder) isFinite(x ir.Arg) ir.Arg { return c.op(ir.OpLt, c.op(ir.OpAbs, x), inf) }

func (c complexBuilder) and(x, y ir.Arg) ir.Arg {
	in := ir.Instr{Op: ir.OpAnd, Type: ir.Bool, Args: []ir.Arg{x, y}, Pos: c.pos}
	in.Dst = c.tb.t.NewReg(ir.Bool)
	c.tb.emit(in)
	return ir.R(in.Dst)
}

func (c complexBuilder) or(x, y ir.Arg) ir.Arg {
	in := ir.Instr{Op: ir.OpOr, Type: ir.Bool, Args: []ir.Arg{x, y}, Pos: c.pos}
	in.Dst = c.tb.t.NewReg(ir.Bool)
	c.tb.emit(in)
	return ir.R(in.Dst)
}

// branchTo ends the current block with a test of cond.
func (c complexBuilder) branchTo(cond ir.Arg, then, els *ir.Block) {
	c.tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: cond, Succs: [2]int{then.Index, els.Index}}
}

func (c complexBuilder) blocks(names ...string) []*ir.Block {
	bs := make([]*ir.Block, len(names))
	for i, n := range names {
		bs[i] = c.tb.t.NewBlock(n)
	}
	return bs
}

// set assigns src to the register of dst.
func (c complexBuilder) set(dst ir.Arg, src ir.Arg) { c.tb.move(dst.Reg, src) }

func (c complexBuilder) newReg() ir.Arg { return ir.R(c.tb.t.NewReg(ir.Float64)) }

// divide is complex128div of runtime/complex.go on (a+bi) / (cr+di).
func (c complexBuilder) divide(f *frame, a, b, cr, d ir.Arg) (ir.Arg, ir.Arg) {
	tb := c.tb
	e, g := c.newReg(), c.newReg()
	bs := c.blocks("cdiv.real", "cdiv.imag", "cdiv.smith", "cdiv.nan", "cdiv.zero", "cdiv.notzero",
		"cdiv.infn", "cdiv.notinfn", "cdiv.infm", "cdiv.done")
	realBig, imagBig, smith, nan, zeroM, notZero, infN, notInfN, infM, done :=
		bs[0], bs[1], bs[2], bs[3], bs[4], bs[5], bs[6], bs[7], bs[8], bs[9]

	c.branchTo(c.op(ir.OpGe, c.op(ir.OpAbs, cr), c.op(ir.OpAbs, d)), realBig, imagBig)
	tb.cur = realBig
	ratio := c.div(d, cr)
	denom := c.add(cr, c.mul(ratio, d))
	c.set(e, c.div(c.add(a, c.mul(b, ratio)), denom))
	c.set(g, c.div(c.sub(b, c.mul(a, ratio)), denom))
	tb.jump(smith)
	tb.cur = imagBig
	ratio = c.div(cr, d)
	denom = c.add(d, c.mul(ratio, cr))
	c.set(e, c.div(c.add(c.mul(a, ratio), b), denom))
	c.set(g, c.div(c.sub(c.mul(b, ratio), a), denom))
	tb.jump(smith)
	c.branchTo(c.and(c.isNaN(e), c.isNaN(g)), nan, done)

	// m == 0 and n is not NaN+NaNi: infinities of the sign of c.
	tb.cur = nan
	isZero := c.and(c.op(ir.OpEq, cr, zero), c.op(ir.OpEq, d, zero))
	c.branchTo(c.and(isZero, c.or(c.op(ir.OpEq, a, a), c.op(ir.OpEq, b, b))), zeroM, notZero)
	tb.cur = zeroM
	s := c.div(one, cr) // copysign(inf, c), c being ±0
	c.set(e, c.mul(s, a))
	c.set(g, c.mul(s, b))
	tb.jump(done)

	// n infinite, m finite.
	tb.cur = notZero
	c.branchTo(c.and(c.or(c.isInf(a), c.isInf(b)), c.and(c.isFinite(cr), c.isFinite(d))), infN, notInfN)
	tb.cur = infN
	a1, b1 := c.infToOne(f, a), c.infToOne(f, b)
	c.set(e, c.mul(inf, c.add(c.mul(a1, cr), c.mul(b1, d))))
	c.set(g, c.mul(inf, c.sub(c.mul(b1, cr), c.mul(a1, d))))
	tb.jump(done)

	// m infinite, n finite.
	tb.cur = notInfN
	c.branchTo(c.and(c.or(c.isInf(cr), c.isInf(d)), c.and(c.isFinite(a), c.isFinite(b))), infM, done)
	tb.cur = infM
	c1, d1 := c.infToOne(f, cr), c.infToOne(f, d)
	c.set(e, c.mul(zero, c.add(c.mul(a, c1), c.mul(b, d1))))
	c.set(g, c.mul(zero, c.sub(c.mul(b, c1), c.mul(a, d1))))
	tb.jump(done)
	return e, g
}

// infToOne is the runtime's inf2one: copysign(1 if x is infinite else 0, x).
func (c complexBuilder) infToOne(f *frame, x ir.Arg) ir.Arg {
	tb := c.tb
	bs := c.blocks("inf2one.inf", "inf2one.sign", "inf2one.neg", "inf2one.done")
	r := c.newReg()
	c.set(r, zero)
	c.branchTo(c.isInf(x), bs[0], bs[1])
	tb.cur = bs[0]
	c.set(r, one)
	tb.jump(bs[1])
	c.branchTo(f.signBit(x, c.pos), bs[2], bs[3])
	tb.cur = bs[2]
	c.set(r, c.op(ir.OpNeg, r))
	tb.jump(bs[3])
	return r
}

// signBit reports whether the sign bit of the float64 x is set, NaN's
// included: x is stored and read back as an integer.
func (f *frame) signBit(x ir.Arg, pos token.Pos) ir.Arg {
	tb := f.tb
	if tb.bitsVar < 0 {
		tb.bitsVar = tb.newVar("bits", types.Typ[types.Float64])
	}
	addr := tb.t.NewReg(ir.Ptr)
	tb.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: addr, Aux: tb.bitsVar, Pos: pos})
	tb.emit(ir.Instr{Op: ir.OpStore, Type: ir.Float64, Dst: ir.NoReg, Args: []ir.Arg{ir.R(addr), x}, Pos: pos})
	bits := tb.op(ir.OpLoad, ir.Int64, ir.R(addr))
	return ir.R(tb.op(ir.OpLt, ir.Int64, ir.R(bits), ir.Imm(ir.Int64, 0)))
}
