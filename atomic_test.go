package qd_test

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/qdgo/qd"
)

// hammer runs f(g, i) for i < n from each of 8 goroutines g at once, so
// that under go test -race an unsynchronized update is reported and a lost
// one shows in the result.
func hammer(n int, f func(g, i int)) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				f(g, i)
			}
		}()
	}
	wg.Wait()
}

// addAll adds to the elements of a slice of odd length from many
// goroutines and compares with the same additions made serially: the
// neighbors of a narrow element share its word, and no update of one may
// undo another's.
func addAll[T qd.Number](t *testing.T) {
	t.Helper()
	const n = 97
	got, want := make([]T, n), make([]T, n)
	delta := func(g int) T { return T(1 + g%3) }
	hammer(200, func(g, i int) { qd.AtomicAdd(&got[(g*7+i)%n], delta(g)) })
	for g := range 8 {
		for i := range 200 {
			want[(g*7+i)%n] += delta(g)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%T: got %v, want %v", got, got, want)
	}
}

func TestAtomicAddEveryType(t *testing.T) {
	addAll[int8](t)
	addAll[int16](t)
	addAll[int32](t)
	addAll[int64](t)
	addAll[int](t)
	addAll[uint8](t)
	addAll[uint16](t)
	addAll[uint32](t)
	addAll[uint64](t)
	addAll[uint](t)
	addAll[uintptr](t)
	addAll[float32](t)
	addAll[float64](t)
}

// TestAtomicAddSlots hands out slots with the value AtomicAdd returns:
// every slot exactly once.
func TestAtomicAddSlots(t *testing.T) {
	var count [1]int32
	taken := make([]int32, 8*500)
	hammer(500, func(g, i int) {
		slot := qd.AtomicAdd(&count[0], 1) - 1
		taken[slot]++ // each slot is written by its one owner
	})
	for slot, n := range taken {
		if n != 1 {
			t.Fatalf("slot %d taken %d times", slot, n)
		}
	}
}

// TestAtomicMinMax feeds values from many goroutines: the result is Go's
// min and max over all of them, NaN and the order of zeros included, and
// each call returns a value the element held.
func TestAtomicMinMax(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, c := range []struct {
		name   string
		values func(g, i int) float32
	}{
		{"numbers", func(g, i int) float32 { return float32((g*131+i*17)%1000) - 500 }},
		{"zeros", func(g, i int) float32 { return [2]float32{0, negZero}[(g+i)%2] }},
		{"NaN", func(g, i int) float32 {
			if g == 5 && i == 77 {
				return float32(math.NaN())
			}
			return float32(i)
		}},
	} {
		lo, hi := []float32{c.values(0, 0)}, []float32{c.values(0, 0)}
		wantLo, wantHi := lo[0], hi[0]
		for g := range 8 {
			for i := range 300 {
				wantLo, wantHi = min(wantLo, c.values(g, i)), max(wantHi, c.values(g, i))
			}
		}
		hammer(300, func(g, i int) {
			qd.AtomicMin(&lo[0], c.values(g, i))
			qd.AtomicMax(&hi[0], c.values(g, i))
		})
		same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }
		if !same(lo[0], wantLo) || !same(hi[0], wantHi) {
			t.Errorf("%s: min %v, max %v; want %v, %v", c.name, lo[0], hi[0], wantLo, wantHi)
		}
	}
	x := []int16{5}
	if old := qd.AtomicMax(&x[0], 9); old != 5 || x[0] != 9 {
		t.Errorf("AtomicMax(5, 9) returned %d and left %d", old, x[0])
	}
	if old := qd.AtomicMin(&x[0], -3); old != 9 || x[0] != -3 {
		t.Errorf("AtomicMin(9, -3) returned %d and left %d", old, x[0])
	}
	if n := qd.AtomicAdd(&x[0], 4); n != 1 || x[0] != 1 {
		t.Errorf("AtomicAdd(-3, 4) returned %d and left %d", n, x[0])
	}
}
