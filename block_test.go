package qd

import "testing"

func TestBlockCollectivesSerialMeaning(t *testing.T) {
	v := []int32{3, 1, 4, 1, 5}
	InclusiveScan(v)
	if want := []int32{3, 4, 8, 9, 14}; !equal(v, want) {
		t.Fatalf("InclusiveScan = %v, want %v", v, want)
	}
	w := []int32{3, 1, 4, 1, 5}
	if total := ExclusiveScan(w); total != 14 || !equal(w, []int32{0, 3, 4, 8, 9}) {
		t.Fatalf("ExclusiveScan = %v, %d", w, total)
	}
	if s := Sum([]float64{0.5, 0.25, 2}); s != 2.75 {
		t.Fatalf("Sum = %v", s)
	}
	if Blocks(7) != 7 || Threads(32) != 32 {
		t.Fatal("Blocks and Threads return their argument")
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
