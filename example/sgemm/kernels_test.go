package main

import (
	"testing"

	"github.com/qdgo/qd/internal/devtest"
	"github.com/qdgo/qd/rt"
)

// naive is the textbook triple loop, an oracle independent of the tiling.
func naive(a, b, c []float32, m, n, k int) {
	for i := range m {
		for j := range n {
			var s float32
			for p := range k {
				s += a[i*k+p] * b[p*n+j]
			}
			c[i*n+j] = s
		}
	}
}

// Sgemm run as Go equals the triple loop bit for bit: both sum each
// element in k's order, from zero.
func TestSgemmEqualsNaive(t *testing.T) {
	m, n, k := 256, 128, 24
	a, b := random(m*k, 1), random(k*n, 2)
	got, want := make([]float32, m*n), make([]float32, m*n)
	Sgemm(a, b, got, m, n, k)
	naive(a, b, want, m, n, k)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("c[%d] = %v, the triple loop's is %v", i, got[i], want[i])
	}
}

// The kernels on the GPU and in the interpreter equal Sgemm run as Go:
// Sgemm bit for bit, SgemmFMA within the bound near states.
func TestSgemmDevice(t *testing.T) {
	devtest.Each(t, func(t *testing.T, dev *rt.Device) {
		ks, err := Load(dev)
		if err != nil {
			t.Fatal(err)
		}
		m, n, k := 256, 128, 16
		as, bs := random(m*k, 3), random(k*n, 4)
		want := make([]float32, m*n)
		Sgemm(as, bs, want, m, n, k)
		a, b := devtest.Upload(t, dev, as), devtest.Upload(t, dev, bs)
		for name, kern := range map[string]func(a, b, c *rt.Buffer[float32], m, n, k int, opts ...rt.LaunchOption) error{
			"Sgemm": ks.Sgemm, "SgemmFMA": ks.SgemmFMA,
		} {
			c := devtest.Upload(t, dev, make([]float32, m*n))
			if err := kern(a, b, c, m, n, k); err != nil {
				t.Fatal(err)
			}
			got := devtest.Read(t, c)
			for e := range want {
				i, j := e/n, e%n
				if name == "Sgemm" && got[e] != want[e] || !near(got[e], want[e], as, bs, i, j, n, k) {
					t.Fatalf("%s: c[%d][%d] = %v, Go's is %v", name, i, j, got[e], want[e])
				}
			}
		}
	})
}

// firstDiff returns the first index where x and y differ, or -1.
func firstDiff[T comparable](x, y []T) int {
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			return i
		}
	}
	if len(x) != len(y) {
		return min(len(x), len(y))
	}
	return -1
}
