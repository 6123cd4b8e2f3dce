package ir

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// checkIntOps compares Fold with Go's own operators on random values of T.
func checkIntOps[T integer](t *testing.T, r *rand.Rand) {
	var zero T
	_, typ := Bits(zero)
	for range 20000 {
		a, b := T(r.Uint64()>>r.IntN(64)), T(r.Uint64()>>r.IntN(64))
		if r.IntN(8) == 0 {
			b = T(r.IntN(3)) - 1
		}
		s := uint(r.IntN(80))
		want := map[Op]T{OpAdd: a + b, OpSub: a - b, OpMul: a * b, OpAnd: a & b, OpOr: a | b, OpXor: a ^ b, OpAndNot: a &^ b,
			OpMin: min(a, b), OpMax: max(a, b), OpShl: a << s, OpShr: a >> s}
		if b != 0 {
			want[OpDiv], want[OpRem] = a/b, a%b
		}
		ab, _ := Bits(a)
		bb, _ := Bits(b)
		for op, w := range want {
			in := Instr{Op: op, Type: typ}
			args := []uint64{ab, bb}
			if op == OpShl || op == OpShr {
				in.From = Uint64
				args[1] = uint64(s)
			}
			got, err := Fold(&in, args)
			wb, _ := Bits(w)
			if err != nil || got != wb {
				t.Fatalf("%s.%s(%v, %v): got %#x, %v; want %#x", op, typ, a, b, got, err, wb)
			}
		}
		for op, w := range map[Op]bool{OpEq: a == b, OpNe: a != b, OpLt: a < b, OpLe: a <= b, OpGt: a > b, OpGe: a >= b} {
			got, _ := Fold(&Instr{Op: op, Type: typ}, []uint64{ab, bb})
			if (got == 1) != w {
				t.Fatalf("%s.%s(%v, %v) = %v", op, typ, a, b, got)
			}
		}
	}
	if _, err := Fold(&Instr{Op: OpDiv, Type: typ}, []uint64{1, 0}); err != ErrDivideByZero {
		t.Errorf("division by zero: %v", err)
	}
}

func TestIntegerSemantics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	checkIntOps[int8](t, r)
	checkIntOps[int16](t, r)
	checkIntOps[int32](t, r)
	checkIntOps[int64](t, r)
	checkIntOps[uint8](t, r)
	checkIntOps[uint16](t, r)
	checkIntOps[uint32](t, r)
	checkIntOps[uint64](t, r)
}

func TestFloatSemantics(t *testing.T) {
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	f := func(op Op, a, b float64) float64 {
		v, err := Fold(&Instr{Op: op, Type: Float64}, []uint64{math.Float64bits(a), math.Float64bits(b)})
		if err != nil {
			t.Fatal(err)
		}
		return math.Float64frombits(v)
	}
	if v := f(OpMin, negZero, 0); !math.Signbit(v) {
		t.Error("min(-0, +0) is not -0")
	}
	if v := f(OpMax, negZero, 0); math.Signbit(v) {
		t.Error("max(-0, +0) is not +0")
	}
	if v := f(OpMin, nan, 1); !math.IsNaN(v) {
		t.Error("min(NaN, 1) is not NaN")
	}
	ne, _ := Fold(&Instr{Op: OpNe, Type: Float64}, []uint64{math.Float64bits(nan), math.Float64bits(nan)})
	eq, _ := Fold(&Instr{Op: OpEq, Type: Float64}, []uint64{math.Float64bits(nan), math.Float64bits(nan)})
	if ne != 1 || eq != 0 {
		t.Error("NaN compares equal to itself")
	}
	x := float32(16777217)
	got, _ := Fold(&Instr{Op: OpConvert, Type: Float32, From: Int64}, []uint64{16777217})
	if math.Float32frombits(uint32(got)) != x {
		t.Error("int64 to float32 is not rounded to nearest")
	}
}

// sample is a small task: out[i] = x[i] * 2 for a grid of threads.
func sample() *Kernel {
	k := &Kernel{Name: "Double", Params: []Param{{Name: "x", Slice: true, Type: Int32}}}
	t := &Task{Name: "Double_0", Kind: Parallel}
	b0, loop, body, exit := t.NewBlock("entry"), t.NewBlock("loop"), t.NewBlock("body"), t.NewBlock("exit")
	base, n, i, cnt := t.NewReg(Ptr), t.NewReg(Int64), t.NewReg(Int64), t.NewReg(Int64)
	b0.Instrs = []Instr{
		{Op: OpParamBase, Dst: base, Aux: 0},
		{Op: OpParamLen, Type: Int64, Dst: n, Aux: 0},
		{Op: OpThreadIndex, Dst: i},
		{Op: OpThreadCount, Dst: cnt},
	}
	b0.Term = Term{Kind: Jump, Succs: [2]int{loop.Index}}
	c := t.NewReg(Bool)
	loop.Instrs = []Instr{{Op: OpLt, Type: Int64, Dst: c, Args: []Arg{R(i), R(n)}}}
	loop.Term = Term{Kind: Branch, Cond: R(c), Succs: [2]int{body.Index, exit.Index}}
	addr, v, w := t.NewReg(Ptr), t.NewReg(Int32), t.NewReg(Int32)
	body.Instrs = []Instr{
		{Op: OpElemAddr, Dst: addr, Args: []Arg{R(base), R(i)}, Aux: 4},
		{Op: OpLoad, Type: Int32, Dst: v, Args: []Arg{R(addr)}},
		{Op: OpMul, Type: Int32, Dst: w, Args: []Arg{R(v), Imm(Int32, 2)}},
		{Op: OpStore, Type: Int32, Dst: NoReg, Args: []Arg{R(addr), R(w)}},
		{Op: OpAdd, Type: Int64, Dst: i, Args: []Arg{R(i), R(cnt)}},
	}
	body.Term = Term{Kind: Jump, Succs: [2]int{loop.Index}}
	exit.Term = Term{Kind: Return}
	k.Tasks = []*Task{t}
	return k
}

func TestPrintAndCheck(t *testing.T) {
	k := sample()
	if err := k.Check(); err != nil {
		t.Fatal(err)
	}
	text := k.String()
	for _, want := range []string{"kernel Double(x []i32)", "task Double_0 parallel", "r4 = lt.i64 r2, r1", "r7 = mul.i32 r6, 2", "store.i32 r5, r7", "branch r4, b2, b3"} {
		if !strings.Contains(text, want) {
			t.Errorf("printed IR lacks %q:\n%s", want, text)
		}
	}
	// The checker catches a wrong operand type and an undefined register.
	k.Tasks[0].Blocks[2].Instrs[2].Args[0] = R(0)
	if err := k.Check(); err == nil || !strings.Contains(err.Error(), "r0 has type ptr, want i32") {
		t.Errorf("Check = %v", err)
	}
	k = sample()
	k.Tasks[0].Blocks[1].Instrs[0].Args[1] = R(k.Tasks[0].NewReg(Int64))
	if err := k.Check(); err == nil || !strings.Contains(err.Error(), "never defined") {
		t.Errorf("Check = %v", err)
	}
}

func TestInterpBoundsAndThreads(t *testing.T) {
	k := sample()
	heap := &Heap{}
	base := heap.Alloc(4 * 5)
	for i := range 5 {
		heap.Store(base+uint64(4*i), Int32, uint64(i))
	}
	ip := &Interp{Mem: heap, Threads: 3}
	if err := ip.Run(k, &Values{Base: []uint64{base}, Len: []int64{5}}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if v, _ := heap.Load(base+uint64(4*i), Int32); v != uint64(2*i) {
			t.Errorf("x[%d] = %d", i, v)
		}
	}
	// A length beyond the allocation is caught, not silently read.
	err := ip.Run(k, &Values{Base: []uint64{base}, Len: []int64{6}})
	if err == nil || !strings.Contains(err.Error(), "outside every allocation") {
		t.Errorf("out-of-bounds access: %v", err)
	}
}

func TestExprEval(t *testing.T) {
	// (len x - 1) / 2 with len x = 11
	e := &Expr{Op: OpDiv, Type: Int64, Args: []*Expr{
		{Op: OpSub, Type: Int64, Args: []*Expr{{Op: OpParamLen, Type: Int64, Aux: 0}, {Op: OpConst, Type: Int64, Bits: 1}}},
		{Op: OpConst, Type: Int64, Bits: 2},
	}}
	if v := e.Eval(nil, func(int) int64 { return 11 }); v != 5 {
		t.Errorf("Eval = %d", v)
	}
	k := &Kernel{Params: []Param{{Name: "x", Slice: true}}}
	if s := k.FormatExpr(e); s != "(div.i64 (sub.i64 (len x) 1) 2)" {
		t.Errorf("FormatExpr = %s", s)
	}
}
