package fault

import (
	"fmt"
	"math"
	"math/bits"
	"testing"
)

// TestMessagesAreGos checks Message against the panics of Go itself, and
// that Parse reads them back.
func TestMessagesAreGos(t *testing.T) {
	s := make([]int, 3)
	neg, big, four, two := -1, uint(math.MaxUint64), 4, 2
	zero := 0
	for _, c := range []struct {
		run    func()
		kind   Kind
		x      uint64
		signed bool
		y      int64
	}{
		{func() { _ = s[four] }, Index, 4, true, 3},
		{func() { _ = s[neg] }, Index, uint64(math.MaxUint64), true, 3},
		{func() { _ = s[big] }, Index, math.MaxUint64, false, 3},
		{func() { _ = s[:four] }, SliceAcap, 4, true, 3},
		{func() { _ = s[four:] }, SliceB, 4, true, 3},
		{func() { _ = s[two:1:1] }, Slice3C, 2, true, 1},
		{func() { _ = s[:two:1] }, Slice3B, 2, true, 1},
		{func() { _ = s[0:1:four] }, Slice3Acap, 4, true, 3},
		{func() { _ = four / zero }, Divide, 0, false, 0},
		{func() { bits.Div64(uint64(four), 0, uint64(two)) }, Overflow, 0, true, 0},
	} {
		msg := panicText(c.run)
		if got := "runtime error: " + Message(c.kind, c.x, c.signed, c.y); got != msg {
			t.Errorf("Message(%s, %d, %v, %d) = %q, Go says %q", c.kind, c.x, c.signed, c.y, got, msg)
		}
		k, x, _, y, ok := Parse(msg)
		lost := c.signed && int64(c.x) < 0 // a negative index prints without y
		if !ok || k != c.kind || x != c.x || y != c.y && !lost {
			t.Errorf("Parse(%q) = %s, %d, %d, %v", msg, k, x, y, ok)
		}
	}
	if _, _, _, _, ok := Parse("runtime error: invalid memory address or nil pointer dereference"); ok {
		t.Error("Parse accepts a message that is not a fault")
	}
	for k := Index; k < numKinds; k++ {
		if got, ok := ByName(k.String()); !ok || got != k {
			t.Errorf("ByName(%q) = %v, %v", k, got, ok)
		}
	}
}

func panicText(run func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	run()
	return ""
}
