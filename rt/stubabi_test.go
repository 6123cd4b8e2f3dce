package rt

import "testing"

// TestDisjoint checks the launch-time test that picks a kernel's variant
// with non-coherent loads: views of one buffer overlap where their
// elements do, and not where they only touch or one is empty.
func TestDisjoint(t *testing.T) {
	d := cpu(t)
	a, err := Alloc[int32](d, 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Alloc[int64](d, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		x, y ArgBuffer
		want bool
	}{
		{"different buffers", a, b, true},
		{"the same buffer", a, a, false},
		{"one element in common", a.Slice(0, 5), a.Slice(4, 10), false},
		{"touching", a.Slice(0, 5), a.Slice(5, 10), true},
		{"inside", a, a.Slice(3, 4), false},
		{"empty", a.Slice(3, 3), a, true},
	} {
		if got := Disjoint(c.x, c.y); got != c.want {
			t.Errorf("%s: Disjoint = %v, want %v", c.name, got, c.want)
		}
		if got := Disjoint(c.y, c.x); got != c.want {
			t.Errorf("%s, swapped: Disjoint = %v, want %v", c.name, got, c.want)
		}
	}
}
