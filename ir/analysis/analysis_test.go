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
