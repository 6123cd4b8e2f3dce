package main

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qdgo/qd/internal/devtest"
	"github.com/qdgo/qd/rt"
)

// input is n bytes, skewed towards small values so that some bins are
// busy and some empty.
func input(n int) []uint8 {
	r := rand.New(rand.NewPCG(uint64(n), 0))
	xs := make([]uint8, n)
	for i := range xs {
		xs[i] = uint8(r.IntN(1 + r.IntN(256)))
	}
	return xs
}

// sizes and block counts: fewer bytes than threads, and more.
var cases = [][2]int{{1, 1}, {300, 2}, {5000, 3}, {1 << 16, 7}}

// Histogram run as Go counts what a loop over the bytes counts, and adds
// to what hist held.
func TestHistogramEqualsNaive(t *testing.T) {
	for _, c := range cases {
		data := input(c[0])
		want := make([]uint32, bins)
		got := make([]uint32, bins)
		for i := range bins {
			want[i], got[i] = uint32(i), uint32(i)
		}
		for _, v := range data {
			want[v]++
		}
		Histogram(data, got, c[1])
		if !slices.Equal(got, want) {
			t.Fatalf("%d bytes, %d blocks: %v, want %v", c[0], c[1], got, want)
		}
	}
}

// The kernel on the GPU and in the interpreter equals Histogram run as
// Go.
func TestHistogramDevice(t *testing.T) {
	devtest.Each(t, func(t *testing.T, dev *rt.Device) {
		ks, err := Load(dev)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			data := input(c[0])
			hist := devtest.Upload(t, dev, make([]uint32, bins))
			if err := ks.Histogram(devtest.Upload(t, dev, data), hist, c[1]); err != nil {
				t.Fatal(err)
			}
			want := make([]uint32, bins)
			Histogram(data, want, c[1])
			if got := devtest.Read(t, hist); !slices.Equal(got, want) {
				t.Fatalf("%d bytes, %d blocks: %v, Go's is %v", c[0], c[1], got, want)
			}
		}
	})
}
