package amd64math

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
)

// edges are inputs at the special cases and the boundaries of the
// algorithms.
var edges = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, math.Inf(1), math.Inf(-1), math.NaN(),
	-math.NaN(), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1e-310, 0x1p-1022,
	math.MaxFloat64, -math.MaxFloat64, overflow, math.Nextafter(overflow, 1), -745.13321910194110842,
	-745.2, -708.4, -708.3, 709.7, 1024, -1074, math.Sqrt2 / 2, math.Ln2, math.E, 1e300, -1e300}

// inputs draws n values: uniform bits, values of every exponent, and values
// near integers multiples of ln(2), where the reductions change.
func inputs(n int) []float64 {
	r := rand.New(rand.NewPCG(7, 8))
	xs := append([]float64(nil), edges...)
	for k := -1074; k < 1024; k++ {
		xs = append(xs, math.Ldexp(hSqrt2, k), math.Ldexp(1, k)) // fractions at the boundaries of Log
	}
	for range n {
		switch r.IntN(4) {
		case 0:
			xs = append(xs, math.Float64frombits(r.Uint64()))
		case 1:
			xs = append(xs, (r.Float64()-0.5)*1500)
		case 2:
			xs = append(xs, math.Ldexp(r.Float64(), r.IntN(2100)-1075))
		default:
			k := float64(r.IntN(2200) - 1100)
			xs = append(xs, math.Nextafter(k*math.Ln2, math.Inf(r.IntN(2)*2-1))+float64(r.IntN(3)-1)*1e-16)
		}
	}
	return xs
}

// requireAMD64 skips where package math does not run the amd64 assembly
// these functions follow, or, for Exp, its FMA path.
func requireAMD64(t *testing.T, fma bool) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("package math on %s does not run the amd64 assembly", runtime.GOARCH)
	}
	if !fma {
		return
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err == nil && !(strings.Contains(string(info), " fma") && strings.Contains(string(info), " avx")) {
		t.Skip("this CPU lacks FMA, so math.Exp takes its other path")
	}
}

func TestExp(t *testing.T) {
	requireAMD64(t, true)
	for _, x := range inputs(2_000_000) {
		if got, want := Exp(x), math.Exp(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Exp(%v) = %v (%#x), math.Exp gives %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

func TestLog(t *testing.T) {
	requireAMD64(t, false)
	for _, x := range inputs(2_000_000) {
		for _, x := range []float64{x, math.Abs(x)} {
			if got, want := Log(x), math.Log(x); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("Log(%v) = %v (%#x), math.Log gives %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
	}
}

func TestHypot(t *testing.T) {
	requireAMD64(t, false)
	xs := inputs(1_000_000)
	r := rand.New(rand.NewPCG(9, 10))
	for i, p := range xs {
		q := xs[r.IntN(len(xs))]
		if i < len(edges) {
			q = edges[(i*7)%len(edges)]
		}
		if got, want := Hypot(p, q), math.Hypot(p, q); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Hypot(%v, %v) = %v, math.Hypot gives %v", p, q, got, want)
		}
	}
}
