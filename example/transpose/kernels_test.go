package main

import (
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/internal/devtest"
	"github.com/qdgo/qd/rt"
)

// shapes include partial tiles on either side.
var shapes = [][2]int{{32, 32}, {64, 96}, {45, 70}, {1, 33}, {100, 7}, {130, 200}}

func input(height, width int) []float32 {
	r := rand.New(rand.NewPCG(uint64(height), uint64(width)))
	xs := make([]float32, height*width)
	for i := range xs {
		xs[i] = r.Float32()
	}
	return xs
}

// Transpose run as Go moves every element where the textbook loop does.
func TestTransposeEqualsNaive(t *testing.T) {
	for _, s := range shapes {
		h, w := s[0], s[1]
		in := input(h, w)
		got := make([]float32, h*w)
		Transpose(in, got, h, w)
		for y := range h {
			for x := range w {
				if got[x*h+y] != in[y*w+x] {
					t.Fatalf("%dx%d: out[%d][%d] = %v, want in[%d][%d] = %v", h, w, x, y, got[x*h+y], y, x, in[y*w+x])
				}
			}
		}
	}
}

// The kernel on the GPU and in the interpreter equals Transpose run as
// Go.
func TestTransposeDevice(t *testing.T) {
	devtest.Each(t, func(t *testing.T, dev *rt.Device) {
		ks, err := Load(dev)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range shapes {
			h, w := s[0], s[1]
			xs := input(h, w)
			out := devtest.Upload(t, dev, make([]float32, h*w))
			if err := ks.Transpose(devtest.Upload(t, dev, xs), out, h, w); err != nil {
				t.Fatal(err)
			}
			got := devtest.Read(t, out)
			want := make([]float32, h*w)
			Transpose(xs, want, h, w)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%dx%d: out[%d] = %v, Go's is %v", h, w, i, got[i], want[i])
				}
			}
		}
	})
}
