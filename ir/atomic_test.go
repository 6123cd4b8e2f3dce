package ir

import (
	"math"
	"testing"
)

// TestAtomicUpdate checks the reference semantics of the atomic ops
// against Go's own operators.
func TestAtomicUpdate(t *testing.T) {
	bits := func(v any) uint64 { b, _ := Bits(v); return b }
	nan := math.NaN()
	for _, c := range []struct {
		op       Op
		typ      Type
		old      any
		args     []any
		want     any
		noWrite  bool
		describe string
	}{
		{OpAtomicAdd, Int8, int8(127), []any{int8(1)}, int8(-128), false, "narrow add wraps"},
		{OpAtomicAdd, Uint32, uint32(math.MaxUint32), []any{uint32(2)}, uint32(1), false, "add wraps"},
		{OpAtomicAdd, Float32, float32(0.1), []any{float32(0.2)}, float32(0.1) + float32(0.2), false, "float32 add rounds in float32"},
		{OpAtomicMin, Int64, int64(-5), []any{int64(3)}, int64(-5), false, "signed min"},
		{OpAtomicMax, Uint16, uint16(65535), []any{uint16(1)}, uint16(65535), false, "unsigned max"},
		{OpAtomicMin, Float64, 0.0, []any{math.Copysign(0, -1)}, math.Copysign(0, -1), false, "-0 below +0"},
		{OpAtomicMax, Float64, 1.0, []any{nan}, nan, false, "NaN wins"},
		{OpAtomicAnd, Uint64, uint64(0xff0f), []any{uint64(0x0ff0)}, uint64(0x0f00), false, "and"},
		{OpAtomicOr, Int32, int32(-16), []any{int32(3)}, int32(-13), false, "or"},
		{OpAtomicSwap, Int64, int64(1), []any{int64(-9)}, int64(-9), false, "swap"},
		{OpAtomicCAS, Uint32, uint32(7), []any{uint32(7), uint32(8)}, uint32(8), false, "cas that matches"},
		{OpAtomicCAS, Uint32, uint32(7), []any{uint32(6), uint32(8)}, uint32(7), true, "cas that does not"},
		{OpAtomicLoad, Int32, int32(4), nil, int32(4), true, "load"},
		{OpAtomicStore, Uint64, uint64(4), []any{uint64(5)}, uint64(5), false, "store"},
	} {
		in := &Instr{Op: c.op, Type: c.typ}
		var args []uint64
		for _, a := range c.args {
			args = append(args, bits(a))
		}
		got, write := AtomicUpdate(in, bits(c.old), args)
		want := bits(c.want)
		same := got == want || c.typ == Float64 && math.IsNaN(math.Float64frombits(got)) && math.IsNaN(math.Float64frombits(want))
		if !same || write == c.noWrite {
			t.Errorf("%s: %s.%s(%v, %v) = %#x, write %v; want %#x, write %v", c.describe, c.op, c.typ, c.old, c.args, got, write, want, !c.noWrite)
		}
	}
}

// TestInterpAtomics runs atomic ops through the interpreter: each gives
// the old value and leaves the new one in memory.
func TestInterpAtomics(t *testing.T) {
	ks, err := Parse(`kernel K(s []u32)

task K_0 serial
b0: # entry
	r0 = base s
	r1 = atomadd.u32 r0, 5
	r2 = elemaddr r0, 1, 4
	r3 = atomcas.u32 r2, r1, 9
	r4 = elemaddr r0, 2, 4
	r5 = atomswap.u32 r4, r3
	atomstore.u32 r0, r5
	r6 = atomload.u32 r2
	r7 = elemaddr r0, 3, 4
	store.u32 r7, r6
	return
`)
	if err != nil {
		t.Fatal(err)
	}
	heap := &Heap{}
	base := heap.Alloc(16)
	for i, v := range []uint64{2, 2, 7, 0} {
		heap.Store(base+uint64(4*i), Uint32, v)
	}
	if err := (&Interp{Mem: heap}).Run(ks[0], &Values{Base: []uint64{base}, Len: []int64{4}, Scalar: []uint64{0}}); err != nil {
		t.Fatal(err)
	}
	// s[0] = 2+5, then the old s[2]; s[1] was 2 = old s[0], so it became 9.
	want := []uint64{7, 9, 2, 9}
	for i, w := range want {
		if got, _ := heap.Load(base+uint64(4*i), Uint32); got != w {
			t.Errorf("s[%d] = %d, want %d", i, got, w)
		}
	}
}
