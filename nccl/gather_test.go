package nccl

import (
	"slices"
	"testing"

	"github.com/qdgo/qd/rt"
)

func TestReduceGatherScatter(t *testing.T) {
	const size = 3
	comms := group(t, size)
	type result struct{ reduced, gathered, scattered []int64 }
	got := make([]result, size)
	must(t, ranks(comms, func(c *Comm) error {
		r := int64(c.Rank())
		send, err := rt.FromSlice(c.Device(), []int64{r, 10 * r, 100, r * r, 1, -r})
		if err != nil {
			return err
		}
		red, _ := rt.Alloc[int64](c.Device(), 6)
		red.Zero()
		if err := Reduce(c, send, red, Sum, 1, nil); err != nil {
			return err
		}
		two := send.Slice(0, 2)
		all, _ := rt.Alloc[int64](c.Device(), 2*size)
		if err := AllGather(c, two, all, nil); err != nil {
			return err
		}
		part, _ := rt.Alloc[int64](c.Device(), 2)
		if err := ReduceScatter(c, send, part, Max, nil); err != nil {
			return err
		}
		var res result
		res.reduced, _ = red.Read()
		res.gathered, _ = all.Read()
		res.scattered, _ = part.Read()
		got[c.Rank()] = res
		return nil
	}))
	sum := []int64{3, 30, 300, 5, 3, -3}
	maxes := []int64{2, 20, 100, 4, 1, 0}
	gathered := []int64{0, 0, 1, 10, 2, 20}
	for r := range size {
		wantReduced := make([]int64, 6)
		if r == 1 {
			wantReduced = sum
		}
		if !slices.Equal(got[r].reduced, wantReduced) {
			t.Errorf("rank %d reduce: %v, want %v", r, got[r].reduced, wantReduced)
		}
		if !slices.Equal(got[r].gathered, gathered) {
			t.Errorf("rank %d all-gather: %v, want %v", r, got[r].gathered, gathered)
		}
		if want := maxes[2*r : 2*r+2]; !slices.Equal(got[r].scattered, want) {
			t.Errorf("rank %d reduce-scatter: %v, want %v", r, got[r].scattered, want)
		}
	}
}
