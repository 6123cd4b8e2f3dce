package analysis_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// TestGoldens analyses every task of testdata/X.ir and compares the
// printed analysis with X.analysis; go test ./ir/analysis -update
// rewrites those.
func TestGoldens(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.ir"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata: %v", err)
	}
	for _, input := range inputs {
		t.Run(filepath.Base(input), func(t *testing.T) {
			text, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			ks, err := ir.Parse(string(text))
			if err != nil {
				t.Fatalf("%s:%v", input, err)
			}
			var b strings.Builder
			for _, k := range ks {
				if err := k.Check(); err != nil {
					t.Fatalf("%s: the input is not valid IR: %v", input, err)
				}
				for _, task := range k.Bodies() {
					analysis.New(task).Print(&b, k)
					b.WriteString("\n")
				}
			}
			golden.Check(t, strings.TrimSuffix(input, ".ir")+".analysis", b.String())
		})
	}
}

// TestTripCountConst checks the constant counts: ceil(Num/Div), none
// below zero, and none where Num or Div is not a constant.
func TestTripCountConst(t *testing.T) {
	n := analysis.Of(analysis.Atom{Kind: analysis.ThreadCount})
	for _, c := range []struct {
		trip analysis.TripCount
		want int64
		ok   bool
	}{
		{analysis.TripCount{Num: analysis.Constant(10), Div: analysis.Constant(1)}, 10, true},
		{analysis.TripCount{Num: analysis.Constant(10), Div: analysis.Constant(3)}, 4, true},
		{analysis.TripCount{Num: analysis.Constant(9), Div: analysis.Constant(3)}, 3, true},
		{analysis.TripCount{Num: analysis.Constant(-5), Div: analysis.Constant(2)}, 0, true},
		{analysis.TripCount{Num: n, Div: analysis.Constant(1)}, 0, false},
		{analysis.TripCount{Num: analysis.Constant(8), Div: n}, 0, false},
	} {
		if got, ok := c.trip.Const(); got != c.want || ok != c.ok {
			t.Errorf("%v/%v: got %d, %v; want %d, %v", c.trip.Num, c.trip.Div, got, ok, c.want, c.ok)
		}
	}
}

// TestConvertRange checks that a conversion between types of one width
// keeps a range only where the new type holds it: a u8 seen as an i8 may
// be negative, which made opt turn a signed remainder by 4 of
// int32(int8(b)) into a mask (random kernels found it).
func TestConvertRange(t *testing.T) {
	ks, err := ir.Parse(`kernel Signs(a []u8, j i32)

task Signs_0 parallel
b0:
	r0 = base a
	r1 = load.u8 r0
	r2 = convert.i8.u8 r1
	r3 = convert.i32.i8 r2
	r4 = convert.u32.u8 r1
	r5 = param.i32 j
	r6 = convert.u32.i32 r5
	r7 = and.i32 r5, 127
	r8 = convert.u32.i32 r7
	r9 = convert.i64.u8 r1
	return
`)
	if err != nil {
		t.Fatal(err)
	}
	an := analysis.New(ks[0].Bodies()[0])
	at := analysis.Site{Block: 0, At: 10}
	for _, c := range []struct {
		reg      int
		min, max int64
	}{
		{1, 0, 255},
		{2, -128, 127},
		{3, -128, 127},
		{4, 0, 255},
		{6, 0, 1<<32 - 1},
		{8, 0, 127},
		{9, 0, 255},
	} {
		if r := an.RangeOf(ir.R(ir.Reg(c.reg)), at); r.Min != c.min || r.Max != c.max {
			t.Errorf("r%d: got [%d, %d], want [%d, %d]", c.reg, r.Min, r.Max, c.min, c.max)
		}
	}
}

// TestInvariant checks which forms a loop does not change: parameters,
// lengths and values assigned before it, but not its counter or a value
// it assigns, and an outer loop's counter only in the inner loop.
func TestInvariant(t *testing.T) {
	ks, err := ir.Parse(`kernel Rows(out []i64, n i64)

task Rows_0 serial
b0:
	r0 = base out
	r1 = len out
	r2 = param.i64 n
	r3 = load.i64 r0
	r4 = move.i64 0
	jump b1
b1: # for i := 0; i < n; i++
	r5 = lt.i64 r4, r2
	branch r5, b2, b6
b2:
	r6 = move.i64 0
	jump b3
b3: # for j := 0; j < n; j++
	r7 = lt.i64 r6, r2
	branch r7, b4, b5
b4:
	r8 = load.i64 r0
	r6 = add.i64 r6, 1
	jump b3
b5:
	r4 = add.i64 r4, 1
	jump b1
b6:
	return
`)
	if err != nil {
		t.Fatal(err)
	}
	an := analysis.New(ks[0].Bodies()[0])
	outer, inner := an.LoopAt(1), an.LoopAt(3)
	form := func(r ir.Reg, b, at int) analysis.Affine {
		f, ok := an.AffineOf(ir.R(r), analysis.Site{Block: b, At: at})
		if !ok {
			t.Fatalf("r%d has no form at b%d.%d", r, b, at)
		}
		return f
	}
	for _, c := range []struct {
		name         string
		f            analysis.Affine
		outer, inner bool
	}{
		{"n+len(out)", form(2, 4, 1).Add(form(1, 4, 1)), true, true},
		{"a load before the loops", form(3, 4, 1), true, true},
		{"a load in the inner loop", form(8, 4, 1), false, false},
		{"i", form(4, 4, 1), false, true},
		{"j", form(6, 4, 1), false, false},
	} {
		if got := an.Invariant(c.f, outer); got != c.outer {
			t.Errorf("%s (%v) invariant in the outer loop: got %v", c.name, c.f, got)
		}
		if got := an.Invariant(c.f, inner); got != c.inner {
			t.Errorf("%s (%v) invariant in the inner loop: got %v", c.name, c.f, got)
		}
	}
}

// TestClimbsBelow checks which grid-stride counters of testdata/reach.ir
// climb without wrapping while their bound is at most 2^31-1: a signed
// one does, an unsigned one, which a wrapped value would pass the test
// of, does not.
func TestClimbsBelow(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "reach.ir"))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ir.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Grid_0": true, "Unsigned_0": false, "Strided_0": true}
	for _, k := range ks {
		for _, task := range k.Bodies() {
			w, ok := want[task.Name]
			if !ok {
				continue
			}
			a := analysis.New(task)
			iv := a.Loops[0].IndVars[0]
			if got := a.ClimbsBelow(iv, 1<<31-1); got != w {
				t.Errorf("%s: ClimbsBelow(2^31-1) = %v, want %v", task.Name, got, w)
			}
			if a.ClimbsBelow(iv, 1<<63-1) {
				t.Errorf("%s: a counter climbs below the end of its type", task.Name)
			}
		}
	}
}

// TestPointwiseRange checks the ranges of the quotient and remainder of
// e by 34 that opt's division by a constant computes with a multiply-high
// sequence, for e < 1156: computed at every e they lie in [0, 33], where
// interval arithmetic over the sequence spreads them to 2^27 and 2^32. A
// value of e < n, which takes too many values, keeps the wide range.
func TestPointwiseRange(t *testing.T) {
	ks, err := ir.Parse(`kernel Tile(out []i64, n i64)

task Tile_0 serial
b0:
	r0 = base out
	r1 = load.i64 r0
	r2 = and.i64 r1, 255
	r3 = param.i64 n
	jump b1
b1: # for e := r2; e < 1156; e += 256
	r4 = lt.i64 r2, 1156
	branch r4, b2, b3
b2:
	r5 = convert.u32.i64 r2
	r6 = mulhi.u32 r5, 3789677026
	r7 = sub.u32 r5, r6
	r8 = shr.u32.u32 r7, 1
	r9 = add.u32 r8, r6
	r10 = shr.u32.u32 r9, 5
	r11 = convert.i64.u32 r10
	r12 = mul.u32 r10, 34
	r13 = sub.u32 r5, r12
	r14 = convert.i64.u32 r13
	store.i64 r0, r11
	store.i64 r0, r14
	r2 = add.i64 r2, 256
	jump b1
b3:
	r15 = and.i64 r1, 255
	jump b4
b4: # for e := r15; e < n; e += 256
	r16 = lt.i64 r15, r3
	branch r16, b5, b6
b5:
	r17 = convert.u32.i64 r15
	r18 = mulhi.u32 r17, 3789677026
	r19 = sub.u32 r17, r18
	r20 = shr.u32.u32 r19, 1
	r21 = add.u32 r20, r18
	r22 = shr.u32.u32 r21, 5
	store.u32 r0, r22
	r15 = add.i64 r15, 256
	jump b4
b6:
	return
`)
	if err != nil {
		t.Fatal(err)
	}
	an := analysis.New(ks[0].Bodies()[0])
	for _, c := range []struct {
		reg, block, at int
		min, max       int64
	}{
		{11, 2, 11, 0, 33},
		{14, 2, 11, 0, 33},
		{9, 2, 11, 0, 1087}, // the sum the last shift divides by 32, below 34·32
	} {
		if r := an.RangeOf(ir.R(ir.Reg(c.reg)), analysis.Site{Block: c.block, At: c.at}); r.Min != c.min || r.Max != c.max {
			t.Errorf("r%d: got [%d, %d], want [%d, %d]", c.reg, r.Min, r.Max, c.min, c.max)
		}
	}
	if r := an.RangeOf(ir.R(22), analysis.Site{Block: 5, At: 6}); r.Max <= 33 {
		t.Errorf("r22 of e < n: got [%d, %d], want it unbounded by 33", r.Min, r.Max)
	}
}
