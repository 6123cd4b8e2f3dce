package hip

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

// atomicFunctions are the functions CUDA and HIP both have for an atomic
// op on 32- and 64-bit unsigned words (and int for min and max).
var atomicFunctions = map[ir.Op]string{
	ir.OpAtomicAdd: "atomicAdd", ir.OpAtomicMin: "atomicMin", ir.OpAtomicMax: "atomicMax",
	ir.OpAtomicAnd: "atomicAnd", ir.OpAtomicOr: "atomicOr", ir.OpAtomicSwap: "atomicExch", ir.OpAtomicCAS: "atomicCAS",
}

// atomic writes an atomic op. Global and shared memory take the atomic
// functions CUDA and HIP share where one exists for the op and type;
// Go's min and max of floats (NaN and -0 included), the min and max of
// int64 (ROCm 5 has no atomicMin of long long) and every op on 8- and
// 16-bit elements become a compare-and-swap loop (a helper). Relaxed loads
// and stores are volatile accesses, one instruction each. Local memory
// belongs to one thread, so there a load and a store do.
func (f *function) atomic(in *ir.Instr) {
	t := in.Type
	T := cType(t)
	p := f.arg(in.Args[0], ir.Ptr)
	var ops []string
	for _, a := range in.Args[1:] {
		ops = append(ops, f.arg(a, t))
	}
	result := func(expr string) {
		if in.Dst == ir.NoReg {
			f.line("%s;", expr)
			return
		}
		f.set(in, expr)
	}
	if in.Space == ir.Local {
		old := fmt.Sprintf("r%d", in.Dst)
		if in.Dst == ir.NoReg {
			f.line("*(%s *)%s = %s;", T, p, ops[0]) // atomstore
			return
		}
		f.set(in, fmt.Sprintf("*(%s *)%s", T, p))
		if n, write := f.m.update(in.Op, t, old, ops); write {
			f.line("*(%s *)%s = %s;", T, p, n)
		}
		return
	}
	word := wordType(t)
	switch {
	case in.Op == ir.OpAtomicLoad:
		result(fmt.Sprintf("*(volatile %s *)%s", T, p))
	case in.Op == ir.OpAtomicStore:
		f.line("*(volatile %s *)%s = %s;", T, p, ops[0])
	case t.Size() < 4 || t.IsFloat() && (in.Op == ir.OpAtomicMin || in.Op == ir.OpAtomicMax) ||
		t == ir.Int64 && (in.Op == ir.OpAtomicMin || in.Op == ir.OpAtomicMax):
		result(fmt.Sprintf("%s(%s, %s)", f.m.casLoop(in.Op, t), p, ops[0]))
	case t.IsFloat():
		result(fmt.Sprintf("atomicAdd((%s *)%s, %s)", T, p, ops[0]))
	case t == ir.Int32 && (in.Op == ir.OpAtomicMin || in.Op == ir.OpAtomicMax):
		result(fmt.Sprintf("%s((int *)%s, %s)", atomicFunctions[in.Op], p, ops[0]))
	default:
		args := make([]string, len(ops))
		for i, o := range ops {
			args[i] = o
			if t.String() != word {
				args[i] = "(" + word + ")" + o
			}
		}
		result(fmt.Sprintf("%s((%s *)%s, %s)", atomicFunctions[in.Op], word, p, join(args)))
	}
}

// wordType is the unsigned type of the word an atomic on t updates.
func wordType(t ir.Type) string {
	if t.Size() == 8 {
		return "u64"
	}
	return "u32"
}

func join(s []string) string {
	out := s[0]
	for _, x := range s[1:] {
		out += ", " + x
	}
	return out
}

// update returns the expression of what an atomic op of type t makes of
// the old value old with the operands, and whether it writes it.
func (m *module) update(op ir.Op, t ir.Type, old string, ops []string) (string, bool) {
	switch op {
	case ir.OpAtomicLoad:
		return old, false
	case ir.OpAtomicSwap, ir.OpAtomicStore:
		return ops[0], true
	case ir.OpAtomicAdd:
		if t.IsFloat() {
			return old + " + " + ops[0], true
		}
		return fmt.Sprintf("(%s)(%s + %s)", t, unsignedOperand(t, old), unsignedOperand(t, ops[0])), true
	case ir.OpAtomicMin, ir.OpAtomicMax:
		if t.IsFloat() {
			return fmt.Sprintf("%s(%s, %s)", m.floatMinMax(map[ir.Op]ir.Op{ir.OpAtomicMin: ir.OpMin, ir.OpAtomicMax: ir.OpMax}[op], t), old, ops[0]), true
		}
		cmp := map[ir.Op]string{ir.OpAtomicMin: "<", ir.OpAtomicMax: ">"}[op]
		return fmt.Sprintf("%s %s %s ? %s : %s", old, cmp, ops[0], old, ops[0]), true
	case ir.OpAtomicAnd:
		return old + " & " + ops[0], true
	case ir.OpAtomicOr:
		return old + " | " + ops[0], true
	case ir.OpAtomicCAS:
		return fmt.Sprintf("%s == %s ? %s : %s", old, ops[0], ops[1], old), true
	}
	panic(fmt.Sprintf("hip: no update for %s", op))
}

// casLoop returns the helper that runs an atomic op of type t as a
// compare-and-swap loop: on the element's own word for 32- and 64-bit
// types, on the aligned 32-bit word that holds it for 8- and 16-bit ones,
// keeping the word's other bytes, which other threads may update at the
// same time. A word whose new value has its old bits is left alone, so a
// minimum that has settled costs loads only.
func (m *module) casLoop(op ir.Op, t ir.Type) string {
	T := cType(t)
	name := fmt.Sprintf("qd_%s_%s", op, t)
	n, _ := m.update(op, t, "o", []string{"v"})
	if t.Size() < 4 {
		mask := uint64(1)<<t.Bits() - 1
		return m.helper(name, fmt.Sprintf(`static __device__ inline %[1]s %[2]s(char *p, %[1]s v) {
	u32 *w = (u32 *)(p - ((u64)p & 3));
	u32 shift = ((u32)(u64)p & 3) * 8, old = *(volatile u32 *)w;
	for (;;) {
		%[1]s o = (%[1]s)(old >> shift);
		u32 next = (old & ~(%[3]du << shift)) | (u32)(%[4]s)(%[5]s) << shift;
		if (next == old) return o;
		u32 seen = atomicCAS(w, old, next);
		if (seen == old) return o;
		old = seen;
	}
}
`, T, name, mask, t.Unsigned(), n))
	}
	W := wordType(t)
	fromBits, toBits := "(%s)old", "(%s)(%s)"
	fromBits, toBits = fmt.Sprintf(fromBits, T), fmt.Sprintf(toBits, W, n)
	switch t {
	case ir.Float32:
		fromBits, toBits = "__uint_as_float(old)", fmt.Sprintf("__float_as_uint(%s)", n)
	case ir.Float64:
		fromBits, toBits = "__longlong_as_double((i64)old)", fmt.Sprintf("(u64)__double_as_longlong(%s)", n)
	}
	return m.helper(name, fmt.Sprintf(`static __device__ inline %[1]s %[2]s(char *p, %[1]s v) {
	%[3]s *w = (%[3]s *)p, old = *(volatile %[3]s *)w;
	for (;;) {
		%[1]s o = %[4]s;
		%[3]s next = %[5]s;
		if (next == old) return o;
		%[3]s seen = atomicCAS(w, old, next);
		if (seen == old) return o;
		old = seen;
	}
}
`, T, name, W, fromBits, toBits))
}
