package ir

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// checkBitOps compares the bit ops with package math/bits on random values
// of T, whose functions take an unsigned integer of one width.
func checkBitOps[T uint8 | uint16 | uint32 | uint64](t *testing.T, r *rand.Rand,
	ones, leading, trailing func(T) int, reverse, swap func(T) T) {
	var zero T
	_, typ := Bits(zero)
	for i := range 5000 {
		x := T(r.Uint64() >> r.IntN(64))
		if i < 2 {
			x = T(i) - 1 // 0 and all ones
		}
		xb, _ := Bits(x)
		want := map[Op]uint64{
			OpPopCount:      uint64(ones(x)),
			OpLeadingZeros:  uint64(leading(x)),
			OpTrailingZeros: uint64(trailing(x)),
			OpBitReverse:    uint64(reverse(x)),
		}
		if swap != nil {
			want[OpByteSwap] = uint64(swap(x))
		}
		for op, w := range want {
			got, err := Fold(&Instr{Op: op, Type: typ}, []uint64{xb})
			if err != nil || got != w {
				t.Fatalf("%s.%s(%#x): got %#x, %v; want %#x", op, typ, x, got, err, w)
			}
		}
	}
}

func TestBitOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checkBitOps(t, r, bits.OnesCount8, bits.LeadingZeros8, bits.TrailingZeros8, bits.Reverse8, nil)
	checkBitOps(t, r, bits.OnesCount16, bits.LeadingZeros16, bits.TrailingZeros16, bits.Reverse16, bits.ReverseBytes16)
	checkBitOps(t, r, bits.OnesCount32, bits.LeadingZeros32, bits.TrailingZeros32, bits.Reverse32, bits.ReverseBytes32)
	checkBitOps(t, r, bits.OnesCount64, bits.LeadingZeros64, bits.TrailingZeros64, bits.Reverse64, bits.ReverseBytes64)
}

// TestBitcast checks that a reinterpretation keeps the bits and gives the
// normalized form of the new type.
func TestBitcast(t *testing.T) {
	for _, c := range []struct {
		to, from Type
		in, want uint64
	}{
		{Uint64, Float64, math.Float64bits(-1.5), math.Float64bits(-1.5)},
		{Float32, Int32, uint64(math.MaxUint64), 0xffffffff},
		{Int32, Float32, uint64(math.Float32bits(-2)), uint64(int64(int32(math.Float32bits(-2))))},
		{Float64, Int64, 1, 1},
	} {
		got, err := Fold(&Instr{Op: OpBitcast, Type: c.to, From: c.from}, []uint64{c.in})
		if err != nil || got != c.want {
			t.Errorf("bitcast.%s.%s(%#x) = %#x, %v; want %#x", c.to, c.from, c.in, got, err, c.want)
		}
	}
	k := &Kernel{Name: "k"}
	task := &Task{Name: "k_0"}
	b := task.NewBlock("entry")
	x, y := task.NewReg(Float32), task.NewReg(Uint64)
	b.Instrs = []Instr{
		{Op: OpConst, Type: Float32, Dst: x, Args: []Arg{Imm(Float32, 0)}},
		{Op: OpBitcast, Type: Uint64, From: Float32, Dst: y, Args: []Arg{R(x)}},
	}
	k.Tasks = []*Task{task}
	if err := k.Check(); err == nil {
		t.Error("the sanity checker accepts a bitcast between types of different sizes")
	}
}

// TestFMAAndRoundEven checks the single rounding of fma and the ties of
// roundeven.
func TestFMAAndRoundEven(t *testing.T) {
	x := 1 + 0x1p-30
	got, _ := Fold(&Instr{Op: OpFMA, Type: Float64}, []uint64{math.Float64bits(x), math.Float64bits(x), math.Float64bits(-1)})
	if want := 0x1p-29 + 0x1p-60; math.Float64frombits(got) != want {
		t.Errorf("fma(x, x, -1) = %v, want %v (rounded once)", math.Float64frombits(got), want)
	}
	for in, want := range map[float64]float64{2.5: 2, 3.5: 4, -0.5: math.Copysign(0, -1), 1e300: 1e300} {
		got, _ := Fold(&Instr{Op: OpRoundEven, Type: Float64}, []uint64{math.Float64bits(in)})
		if got != math.Float64bits(want) {
			t.Errorf("roundeven(%v) = %v, want %v", in, math.Float64frombits(got), want)
		}
	}
}
