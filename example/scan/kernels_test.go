package main

import (
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/internal/devtest"
	"github.com/qdgo/qd/rt"
)

func input(n int) []int32 {
	r := rand.New(rand.NewPCG(uint64(n), 0))
	xs := make([]int32, n)
	for i := range xs {
		xs[i] = int32(r.Uint32()) // sums wrap, as int32 arithmetic does
	}
	return xs
}

// hostScan runs the steps of prefixSum as Go.
func hostScan(xs []int32) []int32 {
	var sums, scanned [][]int32
	for _, size := range levels(len(xs)) {
		sums = append(sums, make([]int32, size))
		scanned = append(scanned, make([]int32, size))
	}
	y := make([]int32, len(xs))
	prefixSumGo(xs, y, len(xs), sums, scanned)
	return y
}

// The steps run as Go equal a running sum, for one tile, several, and
// more tiles than a tile has elements (three levels).
func TestPrefixSumEqualsRunningSum(t *testing.T) {
	for _, n := range []int{1, 7, tile - 1, tile, tile + 1, 5*tile + 300, tile*tile + 3} {
		xs := input(n)
		got := hostScan(xs)
		var s int32
		for i, x := range xs {
			s += x
			if got[i] != s {
				t.Fatalf("n=%d: y[%d] = %d, the running sum is %d", n, i, got[i], s)
			}
		}
	}
}

// The kernels on the GPU and in the interpreter equal the steps run as
// Go.
func TestPrefixSumDevice(t *testing.T) {
	devtest.Each(t, func(t *testing.T, dev *rt.Device) {
		ks, err := Load(dev)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 300, tile, tile + 1, 3*tile + 17} {
			xs := input(n)
			var sums, scanned []*rt.Buffer[int32]
			for _, size := range levels(n) {
				sums = append(sums, devtest.Upload(t, dev, make([]int32, size)))
				scanned = append(scanned, devtest.Upload(t, dev, make([]int32, size)))
			}
			y := devtest.Upload(t, dev, make([]int32, n))
			if err := prefixSum(ks, devtest.Upload(t, dev, xs), y, n, sums, scanned); err != nil {
				t.Fatal(err)
			}
			got, want := devtest.Read(t, y), hostScan(xs)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n=%d: y[%d] = %d, Go's is %d", n, i, got[i], want[i])
				}
			}
		}
	})
}
