package check

import (
	"math"
	"testing"

	"github.com/qdgo/qd/ir"
)

func TestFormArithmetic(t *testing.T) {
	i, w, x := symbolForm(indexSymbol), symbolForm("w"), symbolForm("#r8")
	f := i.mul(w).add(x).add(constForm(3)) // i*w + #r8 + 3
	if got := f.String(); got != "3+#r8+@i*w" {
		t.Errorf("String = %q", got)
	}
	coeff, rest, ok := f.split(indexSymbol)
	if !ok || !coeff.equal(w) || !rest.equal(x.add(constForm(3))) {
		t.Errorf("split = %v, %v, %v", coeff, rest, ok)
	}
	if _, _, ok := i.mul(i).split(indexSymbol); ok {
		t.Error("i*i split by i")
	}
	if k, ok := w.scale(-2).ratio(w); !ok || k != -2 {
		t.Errorf("ratio = %d, %v", k, ok)
	}
	// -1 is no multiple of w: a[y*w+x] and a[y*w+x-1] are one row's.
	if k, ok := constForm(-1).ratio(w); ok {
		t.Errorf("ratio of -1 by w = %d", k)
	}
	if !w.invariant() || f.invariant() {
		t.Error("invariant")
	}
}

// TestDistinct checks the mixed-radix argument on indexes of a loop over
// h values whose inner loop counts w values.
func TestDistinct(t *testing.T) {
	// The loop runs i from 0 while i < h.
	k := &ir.Kernel{Params: []ir.Param{{Name: "h", Type: ir.Int64}}}
	task := &ir.Task{Kind: ir.Parallel, Regs: []ir.Type{ir.Int64}}
	task.NewBlock("entry").Instrs = []ir.Instr{{Op: ir.OpParam, Type: ir.Int64, Dst: 0}}
	ix := newIndexer(k, task, &Loop{Index: ir.NoReg, Init: ir.Imm(ir.Int64, 0), Bound: ir.R(0), Wide: ir.Int64})
	ix.widths = map[string]form{"#r8": symbolForm("w"), "#r9": constForm(3)}
	i, w, h := symbolForm(indexSymbol), symbolForm("w"), symbolForm("h")
	x, j := symbolForm("#r8"), symbolForm("#r9")
	for _, c := range []struct {
		name string
		f    form
		want bool
	}{
		{"i", i, true},
		{"y*w+x", i.mul(w).add(x), true},
		{"x*h+y", x.mul(h).add(i), true},
		{"3*i+j", i.scale(3).add(j), true},
		{"2*i+j", i.scale(2).add(j), false},
		{"n-1-i", symbolForm("n").sub(constForm(1)).sub(i), true},
		{"i*w", i.mul(w), false}, // w may be 0
		{"j", j, false},
		{"i+x", i.add(x), false},
	} {
		ok, conds := ix.distinct(c.f)
		if got := ok && len(conds) == 0; got != c.want {
			t.Errorf("%s: distinct = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSolve(t *testing.T) {
	all := everything
	from1 := interval{lo: 1, hi: math.MaxInt64}
	for _, c := range []struct {
		a, b, d int64
		vi, vj  interval
		want    bool
	}{
		{2, 1, 0, all, all, true},                     // x[2i] and x[j]: i=1, j=2
		{2, 2, 1, all, all, false},                    // x[2i] and x[2j+1]
		{1, 0, 0, all, all, true},                     // x[i] and x[0]: i=0 writes what others read
		{1, 0, 0, from1, all, false},                  // the loop starts at 1: x[0] is not written
		{1, 0, 5, all, interval{lo: 5, hi: 5}, false}, // only iteration 5 reads x[5]
	} {
		if got := solve(c.a, c.b, c.d, c.vi, c.vj); got != c.want {
			t.Errorf("solve(%d, %d, %d, %v, %v) = %v", c.a, c.b, c.d, c.vi, c.vj, got)
		}
	}
}
