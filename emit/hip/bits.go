package hip

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

// bitOp is the expression of a bit count or permutation of x, an unsigned
// integer of type t, with the device functions HIP shares with CUDA
// (__popc, __clz, __brev, __ffs, __byte_perm; __clz and __brev give the
// width for 0). Clang's builtins would do on AMD, but nvcc and NVRTC take
// none of them in device code. Narrow integers are widened to 32 bits, and
// the results corrected for the bits above their width.
func bitOp(op ir.Op, t ir.Type, x string) string {
	w := t.Bits()
	long := w == 64
	if !long {
		x = "(u32)" + x
	}
	suffix := map[bool]string{false: "", true: "ll"}[long]
	switch op {
	case ir.OpPopCount:
		return fmt.Sprintf("__popc%s(%s)", suffix, x)
	case ir.OpLeadingZeros:
		if w < 32 {
			return fmt.Sprintf("__clz(%s) - %d", x, 32-w)
		}
		return fmt.Sprintf("__clz%s(%s)", suffix, x)
	case ir.OpTrailingZeros:
		// __ffs is one more than the count, and 0 for 0: a bit above the
		// width stops the count of a narrow zero, and 0 of 32 or 64 bits
		// is a case of its own.
		if w < 32 {
			return fmt.Sprintf("__ffs(%s | %du) - 1", x, 1<<w)
		}
		return fmt.Sprintf("%s == 0 ? %d : __ffs%s(%s) - 1", x, w, suffix, x)
	case ir.OpBitReverse:
		if w < 32 {
			return fmt.Sprintf("__brev(%s) >> %d", x, 32-w)
		}
		return fmt.Sprintf("__brev%s(%s)", suffix, x)
	}
	return byteSwap(w, x)
}

// byteSwap is the expression of x, of w bits, with its bytes reversed by
// __byte_perm, whose selector names each result byte, low byte first, among
// the bytes of x (0 to 3) and of its second operand, 0 (4).
func byteSwap(w int, x string) string {
	switch w {
	case 16:
		return fmt.Sprintf("__byte_perm(%s, 0, 0x4401)", x)
	case 32:
		return fmt.Sprintf("__byte_perm(%s, 0, 0x0123)", x)
	}
	return fmt.Sprintf("(u64)__byte_perm((u32)%s, 0, 0x0123) << 32 | __byte_perm((u32)(%s >> 32), 0, 0x0123)", x, x)
}

// bitcast is the expression of x, of type from, reinterpreted as type to
// of the same size, with the device functions HIP and CUDA share.
func bitcast(to, from ir.Type, x string) string {
	switch {
	case to == from:
		return x
	case to == ir.Float64:
		return fmt.Sprintf("__longlong_as_double((i64)%s)", x)
	case to == ir.Float32:
		return fmt.Sprintf("__uint_as_float((u32)%s)", x)
	case from == ir.Float64:
		return fmt.Sprintf("(%s)__double_as_longlong(%s)", cType(to), x)
	case from == ir.Float32:
		return fmt.Sprintf("(%s)__float_as_uint(%s)", cType(to), x)
	}
	return fmt.Sprintf("(%s)%s", cType(to), x) // integers of one size
}
