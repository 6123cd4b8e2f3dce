package ir

import (
	"errors"
	"math"
	"math/bits"
)

// ErrDivideByZero is returned when an integer division or remainder has a
// zero divisor.
var ErrDivideByZero = errors.New("integer divide by zero")

// evalPure computes a pure instruction on normalized operand bits: the ops
// the op table marks Pure. It is the reference for every op's semantics:
// the interpreter, constant folding and host expressions all use it, and
// emitters are tested against it.
func evalPure(in *Instr, a []uint64) (uint64, error) {
	t := in.Type
	switch in.Op {
	case OpConst, OpMove:
		return t.Normalize(a[0]), nil
	case OpNeg:
		switch t {
		case Float32:
			return uint64(math.Float32bits(-f32(a[0]))), nil
		case Float64:
			return math.Float64bits(-f64(a[0])), nil
		}
		return t.Normalize(-a[0]), nil
	case OpNot:
		if t == Bool {
			return a[0] ^ 1, nil
		}
		return t.Normalize(^a[0]), nil
	case OpAdd, OpSub, OpMul, OpDiv:
		if t.IsFloat() {
			return floatArith(in.Op, t, a[0], a[1]), nil
		}
		return intArith(in.Op, t, a[0], a[1])
	case OpRem:
		return intArith(in.Op, t, a[0], a[1])
	case OpAnd:
		return t.Normalize(a[0] & a[1]), nil
	case OpOr:
		return t.Normalize(a[0] | a[1]), nil
	case OpXor:
		return t.Normalize(a[0] ^ a[1]), nil
	case OpAndNot:
		return t.Normalize(a[0] &^ a[1]), nil
	case OpShl:
		n := in.From.Normalize(a[1])
		if n >= uint64(t.Bits()) {
			return 0, nil
		}
		return t.Normalize(a[0] << n), nil
	case OpShr:
		n := in.From.Normalize(a[1])
		if t.IsSigned() {
			return t.Normalize(uint64(int64(a[0]) >> min(n, 63))), nil
		}
		if n >= 64 {
			return 0, nil
		}
		return t.Normalize(a[0] >> n), nil
	case OpMulHi:
		return mulHi(t, a[0], a[1]), nil
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		return b2u(compare(in.Op, t, a[0], a[1])), nil
	case OpConvert:
		return convert(t, in.From, a[0]), nil
	case OpMin, OpMax:
		return minMax(in.Op, t, a[0], a[1]), nil
	case OpSqrt, OpAbs, OpFloor, OpCeil, OpTrunc, OpRoundEven:
		return floatIntrinsic(in.Op, t, a[0]), nil
	case OpFMA:
		if t == Float32 {
			return uint64(math.Float32bits(fma32(f32(a[0]), f32(a[1]), f32(a[2])))), nil
		}
		return math.Float64bits(math.FMA(f64(a[0]), f64(a[1]), f64(a[2]))), nil
	case OpBitcast:
		return t.Normalize(a[0]), nil
	case OpPopCount, OpLeadingZeros, OpTrailingZeros, OpBitReverse, OpByteSwap:
		return bitOp(in.Op, t, a[0]), nil
	case OpElemAddr:
		return a[0] + a[1]*uint64(in.Aux), nil
	}
	return 0, errors.New("not a pure op: " + in.Op.String())
}

// fma32 is x*y+z rounded once to float32. The product is exact in
// float64, and so is the sum's error (TwoSum); rounding the float64 sum to
// odd before rounding it to float32 makes the two roundings one.
func fma32(x, y, z float32) float32 {
	p, c := float64(x)*float64(y), float64(z)
	s := p + c
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	b := s - p
	e := (p - (s - b)) + (c - b)
	if bits := math.Float64bits(s); e != 0 && bits&1 == 0 {
		if (e > 0) == (s > 0) {
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	return float32(s)
}

func f32(b uint64) float32 { return math.Float32frombits(uint32(b)) }
func f64(b uint64) float64 { return math.Float64frombits(b) }

func fromFloat(t Type, f float64) uint64 {
	if t == Float32 {
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func floatArith(op Op, t Type, x, y uint64) uint64 {
	if t == Float32 {
		return uint64(math.Float32bits(arith(op, f32(x), f32(y))))
	}
	return math.Float64bits(arith(op, f64(x), f64(y)))
}

// arith computes a float operation in the precision of T, rounding as Go
// does.
func arith[T float32 | float64](op Op, a, b T) T {
	switch op {
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	case OpMul:
		return a * b
	}
	return a / b
}

func intArith(op Op, t Type, x, y uint64) (uint64, error) {
	switch op {
	case OpAdd:
		return t.Normalize(x + y), nil
	case OpSub:
		return t.Normalize(x - y), nil
	case OpMul:
		return t.Normalize(x * y), nil
	}
	if y == 0 {
		return 0, ErrDivideByZero
	}
	if t.IsSigned() {
		a, b := int64(x), int64(y)
		if op == OpDiv {
			return t.Normalize(uint64(a / b)), nil
		}
		return t.Normalize(uint64(a % b)), nil
	}
	if op == OpDiv {
		return t.Normalize(x / y), nil
	}
	return t.Normalize(x % y), nil
}

func mulHi(t Type, x, y uint64) uint64 {
	w := uint(t.Bits())
	if w == 64 {
		hi, _ := bits.Mul64(x, y)
		if t.IsSigned() {
			if int64(x) < 0 {
				hi -= y
			}
			if int64(y) < 0 {
				hi -= x
			}
		}
		return hi
	}
	if t.IsSigned() {
		return t.Normalize(uint64((int64(x) * int64(y)) >> w))
	}
	return t.Normalize((x * y) >> w)
}

func compare(op Op, t Type, x, y uint64) bool {
	switch {
	case t == Float32:
		return ordered(op, f32(x), f32(y))
	case t == Float64:
		return ordered(op, f64(x), f64(y))
	case t.IsSigned():
		return ordered(op, int64(x), int64(y))
	}
	return ordered(op, x, y)
}

// ordered compares with Go's operators, so that NaN compares unequal.
func ordered[T int64 | uint64 | float32 | float64](op Op, a, b T) bool {
	switch op {
	case OpEq:
		return a == b
	case OpNe:
		return a != b
	case OpLt:
		return a < b
	case OpLe:
		return a <= b
	case OpGt:
		return a > b
	}
	return a >= b
}

func convert(to, from Type, x uint64) uint64 {
	switch {
	case from.IsInteger() && to.IsInteger():
		return to.Normalize(x)
	case from.IsInteger() && to.IsFloat():
		if from.IsSigned() {
			if to == Float32 {
				return uint64(math.Float32bits(float32(int64(x))))
			}
			return math.Float64bits(float64(int64(x)))
		}
		if to == Float32 {
			return uint64(math.Float32bits(float32(x)))
		}
		return math.Float64bits(float64(x))
	case from.IsFloat() && to.IsFloat():
		if from == Float32 {
			return fromFloat(to, float64(f32(x)))
		}
		return fromFloat(to, f64(x))
	case from.IsFloat() && to.IsInteger():
		f := f64(x)
		if from == Float32 {
			f = float64(f32(x))
		}
		if to.IsSigned() {
			return to.Normalize(uint64(int64(f)))
		}
		return to.Normalize(uint64(f))
	}
	return x
}

func minMax(op Op, t Type, x, y uint64) uint64 {
	switch {
	case t == Float32:
		return uint64(math.Float32bits(pick(op, f32(x), f32(y))))
	case t == Float64:
		return math.Float64bits(pick(op, f64(x), f64(y)))
	case t.IsSigned():
		return uint64(pick(op, int64(x), int64(y)))
	}
	return pick(op, x, y)
}

// pick is Go's min or max builtin.
func pick[T int64 | uint64 | float32 | float64](op Op, a, b T) T {
	if op == OpMin {
		return min(a, b)
	}
	return max(a, b)
}

func floatIntrinsic(op Op, t Type, x uint64) uint64 {
	f := f64(x)
	if t == Float32 {
		f = float64(f32(x))
	}
	switch op {
	case OpSqrt:
		f = math.Sqrt(f)
	case OpAbs:
		f = math.Abs(f)
	case OpFloor:
		f = math.Floor(f)
	case OpCeil:
		f = math.Ceil(f)
	case OpTrunc:
		f = math.Trunc(f)
	case OpRoundEven:
		f = math.RoundToEven(f)
	}
	return fromFloat(t, f)
}

// bitOp computes a bit count or permutation of the unsigned integer x of
// type t, whose bits above its width are zero.
func bitOp(op Op, t Type, x uint64) uint64 {
	pad := 64 - t.Bits()
	switch op {
	case OpPopCount:
		return uint64(bits.OnesCount64(x))
	case OpLeadingZeros:
		return uint64(bits.LeadingZeros64(x) - pad)
	case OpTrailingZeros:
		return uint64(min(bits.TrailingZeros64(x), t.Bits()))
	case OpBitReverse:
		return bits.Reverse64(x) >> pad
	}
	return bits.ReverseBytes64(x) >> pad
}

// Fold computes a pure instruction on constant operand bits, each normalized
// to its operand type. It fails only for integer division by zero and for
// ops that are not pure.
func Fold(in *Instr, args []uint64) (uint64, error) { return evalPure(in, args) }

// AtomicUpdate is the reference semantics of the atomic ops: from the
// element's old bits and the operands after the address, normalized to the
// op's type, it computes the element's new bits and whether they are
// written. The op's result is the old bits (atomstore has none).
func AtomicUpdate(in *Instr, old uint64, args []uint64) (uint64, bool) {
	t := in.Type
	switch in.Op {
	case OpAtomicAdd:
		if t.IsFloat() {
			return floatArith(OpAdd, t, old, args[0]), true
		}
		return t.Normalize(old + args[0]), true
	case OpAtomicMin:
		return minMax(OpMin, t, old, args[0]), true
	case OpAtomicMax:
		return minMax(OpMax, t, old, args[0]), true
	case OpAtomicAnd:
		return old & args[0], true
	case OpAtomicOr:
		return old | args[0], true
	case OpAtomicSwap, OpAtomicStore:
		return args[0], true
	case OpAtomicCAS:
		if old == args[0] {
			return args[1], true
		}
	}
	return old, false
}
