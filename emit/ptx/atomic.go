package ptx

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

// atomicNames are the atom instructions of the atomic ops that have one.
var atomicNames = map[ir.Op]string{
	ir.OpAtomicAdd: "add", ir.OpAtomicMin: "min", ir.OpAtomicMax: "max",
	ir.OpAtomicAnd: "and", ir.OpAtomicOr: "or", ir.OpAtomicSwap: "exch", ir.OpAtomicCAS: "cas",
}

// atomic writes an atomic op. Global and shared memory have an atom
// instruction for most ops and types. Go's min and max of floats (NaN and
// -0 included) and every op on 8- and 16-bit elements become a
// compare-and-swap loop on the aligned word that holds the element. Local
// memory belongs to one thread, so there a load and a store do.
func (e *entry) atomic(in *ir.Instr, d string) {
	t := in.Type
	addr := e.regArg(in.Args[0], ir.Ptr)
	var ops []string
	for _, a := range in.Args[1:] {
		ops = append(ops, e.regArg(a, t))
	}
	if d == "" {
		d = e.temp(t) // atomstore: the old value is not needed
	}
	switch {
	case in.Space == ir.Local:
		e.emit("ld.local.%s %s, [%s]", memType(t), d, addr)
		if n, write := e.update(in, d, ops); write {
			e.emit("st.local.%s [%s], %s", memType(t), addr, n)
		}
	case in.Op == ir.OpAtomicLoad:
		e.emit("ld.relaxed.gpu.%s.%s %s, [%s]", in.Space, memType(t), d, addr)
	case in.Op == ir.OpAtomicStore:
		e.emit("st.relaxed.gpu.%s.%s [%s], %s", in.Space, memType(t), addr, ops[0])
	case t.Size() >= 4 && !(t.IsFloat() && (in.Op == ir.OpAtomicMin || in.Op == ir.OpAtomicMax)):
		e.emit("atom.%s.%s.%s %s, [%s], %s", in.Space, atomicNames[in.Op], atomicType(in.Op, t), d, addr, joinOps(ops))
	case t.Size() >= 4:
		e.casWord(in, d, addr, ops)
	default:
		e.casNarrow(in, d, addr, ops)
	}
}

// atomicType is the type suffix of an atom instruction.
func atomicType(op ir.Op, t ir.Type) string {
	switch {
	case t.IsFloat():
		return memType(t)
	case op == ir.OpAtomicAdd && t.Size() == 8:
		return "u64" // the same bits for signed integers; there is no add.s64
	case op == ir.OpAtomicAdd || op == ir.OpAtomicMin || op == ir.OpAtomicMax:
		return opType(t)
	}
	return bitType(t)
}

func joinOps(ops []string) string {
	s := ops[0]
	for _, o := range ops[1:] {
		s += ", " + o
	}
	return s
}

// update writes what an atomic op makes of the old value o, in a register
// of the op's type, and returns the new value and whether it is written.
func (e *entry) update(in *ir.Instr, o string, ops []string) (string, bool) {
	t := in.Type
	switch in.Op {
	case ir.OpAtomicLoad:
		return o, false
	case ir.OpAtomicSwap, ir.OpAtomicStore:
		return ops[0], true
	}
	n := e.temp(t)
	switch in.Op {
	case ir.OpAtomicAdd:
		if t.IsFloat() {
			e.emit("add.rn.%s %s, %s, %s", opType(t), n, o, ops[0])
		} else {
			e.emit("add.%s %s, %s, %s", opType(t), n, o, ops[0])
			e.normalize(n, t)
		}
	case ir.OpAtomicMin, ir.OpAtomicMax:
		op := ir.OpMin
		if in.Op == ir.OpAtomicMax {
			op = ir.OpMax
		}
		if t.IsFloat() {
			e.floatMinMax(op, t, n, o, ops[0])
		} else {
			e.emit("%s.%s %s, %s, %s", op, opType(t), n, o, ops[0])
		}
	case ir.OpAtomicAnd, ir.OpAtomicOr:
		e.emit("%s.%s %s, %s, %s", atomicNames[in.Op], bitType(t), n, o, ops[0])
	case ir.OpAtomicCAS:
		equal := e.temp(ir.Bool)
		e.emit("setp.eq.%s %s, %s, %s", opType(t), equal, o, ops[0])
		e.emit("selp.%s %s, %s, %s, %s", bitType(t), n, ops[1], o, equal)
	}
	return n, true
}

// label returns a new label for a loop of an atomic op.
func (e *entry) label() string {
	e.labels++
	return fmt.Sprintf("$A_%d", e.labels-1)
}

func (e *entry) placeLabel(l string) { fmt.Fprintf(&e.body, "%s:\n", l) }

// casWord updates a 32- or 64-bit element with a compare-and-swap loop,
// leaving it alone when the new value has the old one's bits: a maximum
// that has settled then costs loads only.
func (e *entry) casWord(in *ir.Instr, d, addr string, ops []string) {
	t := in.Type
	bits := bitType(t)
	word := ir.Uint32
	if t.Size() == 8 {
		word = ir.Uint64
	}
	old, seen, next := e.temp(word), e.temp(word), e.temp(word)
	same, retry := e.temp(ir.Bool), e.temp(ir.Bool)
	loop, done := e.label(), e.label()
	e.emit("ld.%s.%s %s, [%s]", in.Space, bits, old, addr)
	e.placeLabel(loop)
	e.emit("mov.%s %s, %s", bits, d, old)
	n, _ := e.update(in, d, ops)
	e.emit("mov.%s %s, %s", bits, next, n)
	e.emit("setp.eq.%s %s, %s, %s", bits, same, next, old)
	e.emit("@%s bra %s", same, done)
	e.emit("atom.%s.cas.%s %s, [%s], %s, %s", in.Space, bits, seen, addr, old, next)
	e.emit("setp.ne.%s %s, %s, %s", bits, retry, seen, old)
	e.emit("mov.%s %s, %s", bits, old, seen)
	e.emit("@%s bra %s", retry, loop)
	e.placeLabel(done)
}

// casNarrow updates an 8- or 16-bit element with a compare-and-swap loop
// on the aligned 32-bit word that holds it, so that the other bytes of the
// word, which other threads may update at the same time, are kept.
func (e *entry) casNarrow(in *ir.Instr, d, addr string, ops []string) {
	t := in.Type
	wordAddr, shift := e.temp(ir.Uint64), e.temp(ir.Uint32)
	word, seen, next := e.temp(ir.Uint32), e.temp(ir.Uint32), e.temp(ir.Uint32)
	same, retry := e.temp(ir.Bool), e.temp(ir.Bool)
	loop, done := e.label(), e.label()
	e.emit("and.b64 %s, %s, -4", wordAddr, addr)
	e.emit("cvt.u32.u64 %s, %s", shift, addr)
	e.emit("and.b32 %s, %s, 3", shift, shift)
	e.emit("shl.b32 %s, %s, 3", shift, shift)
	e.emit("ld.%s.b32 %s, [%s]", in.Space, word, wordAddr)
	e.placeLabel(loop)
	// Shifted down and re-extended, not extracted with bfe (normalize).
	e.emit("shr.u32 %s, %s, %s", d, word, shift)
	e.normalize(d, t)
	n, _ := e.update(in, d, ops)
	e.emit("bfi.b32 %s, %s, %s, %s, %d", next, n, word, shift, t.Bits())
	e.emit("setp.eq.b32 %s, %s, %s", same, next, word)
	e.emit("@%s bra %s", same, done)
	e.emit("atom.%s.cas.b32 %s, [%s], %s, %s", in.Space, seen, wordAddr, word, next)
	e.emit("setp.ne.b32 %s, %s, %s", retry, seen, word)
	e.emit("mov.b32 %s, %s", word, seen)
	e.emit("@%s bra %s", retry, loop)
	e.placeLabel(done)
}
