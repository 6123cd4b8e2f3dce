package opt

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// TestNarrowPointerStepsFallback runs ColNorm's loop before and after
// NarrowPointerSteps where its stride fits in 32 bits and where it does
// not: a single row of 2^33 columns passes every check, and the test of
// the stride then sends the loop to the copy with checks, which must
// give the same norm. The random draws of TestPassesKeepResults seldom
// pick such a launch. (A stride that does not fit matters only in arrays
// of more than 2^31 elements, which the interpreter cannot hold, so the
// two loops cannot be told apart by their results here: the golden shows
// where the test goes.)
func TestNarrowPointerStepsFallback(t *testing.T) {
	const input = "testdata/steps32/colnorm.ir"
	before, after := parseFile(t, input)[0], parseFile(t, input)[0]
	for _, task := range after.Bodies() {
		NarrowPointerSteps(task)
	}
	floats := func(v ...float32) []byte {
		var b []byte
		for _, f := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
		return b
	}
	for _, c := range []struct{ k, rows, cols int64 }{
		{0, 1, 1 << 33},
		{1, 3, 2},
		{0, 2, 3},
	} {
		args := testArgs{
			scalars: []uint64{0, 0, uint64(c.k), uint64(c.rows), uint64(c.cols)},
			slices:  [][]byte{floats(make([]float32, 8)...), floats(3, 4, 1, 2, 5, 6, 7, 8)},
		}
		want, err := runKernel(before, args, 1)
		if err != nil {
			t.Fatalf("%+v: before the pass: %v", c, err)
		}
		got, err := runKernel(after, args, 1)
		if err != nil {
			t.Fatalf("%+v: after the pass: %v", c, err)
		}
		if !bytes.Equal(want[0], got[0]) || bytes.Equal(want[0], floats(make([]float32, 8)...)) {
			t.Errorf("%+v: r is %v after the pass, want %v (and not all zeros)", c, got[0], want[0])
		}
	}
}
