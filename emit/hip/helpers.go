package hip

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

// Helpers are small device functions for the operations whose Go
// semantics take more than an expression. A module defines the ones its
// kernels use, after the prelude, each once.

// helper records the definition of a helper and returns its name.
func (m *module) helper(name, definition string) string {
	if _, ok := m.helpers[name]; !ok {
		m.order = append(m.order, name)
	}
	m.helpers[name] = definition
	return name
}

// divide returns the helper for integer division or remainder on t. Go
// defines x / -1 as -x, wrapping, and x % -1 as 0, where C++ overflows;
// a zero divisor, which Go reports as a panic, gives 0 rather than
// undefined behaviour that the compiler could exploit.
func (m *module) divide(op ir.Op, t ir.Type) string {
	T := t.String()
	if op == ir.OpDiv {
		expr := "y == 0 ? 0 : x / y"
		if t.IsSigned() {
			expr = fmt.Sprintf("y == 0 ? 0 : y == -1 ? (%s)-(%s)x : x / y", T, wide(t))
		}
		return m.helper("qd_div_"+T, fmt.Sprintf(
			"static __device__ inline %s qd_div_%s(%s x, %s y) { return %s; }\n", T, T, T, T, expr))
	}
	expr := "y == 0 ? 0 : x % y"
	if t.IsSigned() {
		expr = "y == 0 || y == -1 ? 0 : x % y"
	}
	return m.helper("qd_rem_"+T, fmt.Sprintf(
		"static __device__ inline %s qd_rem_%s(%s x, %s y) { return %s; }\n", T, T, T, T, expr))
}

// shift returns the helper for a shift of t by a variable count, which it
// takes as u64: signed counts are sign-extended, so that a negative count
// is at or above the width.
func (m *module) shift(op ir.Op, t ir.Type) string {
	T, w := t.String(), t.Bits()
	var name, expr string
	switch {
	case op == ir.OpShl:
		name = "qd_shl_" + T
		expr = fmt.Sprintf("n >= %d ? 0 : %s << n", w, unsignedOperand(t, "x"))
	case t.IsUnsigned():
		name = "qd_shr_" + T
		expr = fmt.Sprintf("n >= %d ? 0 : x >> n", w)
	default:
		name = "qd_shr_" + T
		expr = fmt.Sprintf("x >> (n >= %d ? %d : n)", w, w-1)
	}
	return m.helper(name, fmt.Sprintf(
		"static __device__ inline %s %s(%s x, u64 n) { return %s; }\n", T, name, T, expr))
}

// floatMinMax returns the helper for Go's min or max of two floats: NaN if
// either is NaN, -0 below +0, otherwise the smaller (larger) operand.
func (m *module) floatMinMax(op ir.Op, t ir.Type) string {
	T, bits, asBits, fromBits := "float", "u32", "__float_as_uint", "__uint_as_float"
	if t == ir.Float64 {
		T, bits, asBits, fromBits = "double", "i64", "__double_as_longlong", "__longlong_as_double"
	}
	name, cmp, merge := "qd_min_"+t.String(), "<", "|"
	if op == ir.OpMax {
		name, cmp, merge = "qd_max_"+t.String(), ">", "&"
	}
	return m.helper(name, fmt.Sprintf(`static __device__ inline %[1]s %[2]s(%[1]s x, %[1]s y) {
	if (x != x || y != y) return x + y;
	if (x == y) return %[6]s((%[3]s)%[5]s(x) %[4]s (%[3]s)%[5]s(y)); // the sign of zeros
	return x %[7]s y ? x : y;
}
`, T, name, bits, merge, asBits, fromBits, cmp))
}

// floatToInt returns the helper that converts from to the 32- or 64-bit
// integer type to. C++ leaves conversions of out-of-range values
// undefined and Go leaves them to the implementation; the helper gives
// what PTX's cvt.rzi gives: the nearest representable value, 0 for NaN.
func (m *module) floatToInt(from, to ir.Type) string {
	F, T := cType(from), to.String()
	suffix := ""
	if from == ir.Float32 {
		suffix = "f"
	}
	// Below the range: under -2^(w-1) for signed types (values between
	// it and the next integer down truncate to it), at or under -1 for
	// unsigned ones (values above -1 truncate to 0).
	below, lowest := fmt.Sprintf("x < -0x1p+%d%s", to.Bits()-1, suffix), literal(to, 1<<(to.Bits()-1))
	top := to.Bits() - 1
	if to.IsUnsigned() {
		below, lowest, top = "x <= -0x1p+0"+suffix, "0", to.Bits()
	}
	highest := literal(to, ^uint64(0)>>(64-top))
	name := fmt.Sprintf("qd_%s_to_%s", from, to)
	return m.helper(name, fmt.Sprintf(`static __device__ inline %[1]s %[2]s(%[3]s x) {
	return x != x ? 0 : %[4]s ? %[5]s : x >= 0x1p+%[6]d%[7]s ? %[8]s : (%[1]s)x;
}
`, T, name, F, below, lowest, top, suffix, highest))
}
