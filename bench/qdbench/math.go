package main

import (
	"fmt"
	"time"

	"github.com/qdgo/qd/bench/kernels"
	"github.com/qdgo/qd/rt"
)

// mathN is the number of elements of the math benchmarks.
const mathN = 1 << 26

// A mathBench is one function of package math and the ranges of its
// arguments, which bench/baseline fills the same way.
type mathBench struct {
	name   string
	ranges [][2]float64
	run    func(ks *kernels.Kernels, args []*rt.Buffer[float64], out *rt.Buffer[float64]) error
}

var mathBenches = []mathBench{
	{"exp", [][2]float64{{-50, 50}}, func(ks *kernels.Kernels, a []*rt.Buffer[float64], out *rt.Buffer[float64]) error {
		return ks.Exp(a[0], out)
	}},
	{"log", [][2]float64{{1e-3, 1e3}}, func(ks *kernels.Kernels, a []*rt.Buffer[float64], out *rt.Buffer[float64]) error {
		return ks.Log(a[0], out)
	}},
	{"pow", [][2]float64{{0.1, 10}, {-10, 10}}, func(ks *kernels.Kernels, a []*rt.Buffer[float64], out *rt.Buffer[float64]) error {
		return ks.Pow(a[0], a[1], out)
	}},
	{"atan2", [][2]float64{{-100, 100}, {-100, 100}}, func(ks *kernels.Kernels, a []*rt.Buffer[float64], out *rt.Buffer[float64]) error {
		return ks.Atan2(a[0], a[1], out)
	}},
	{"sin", [][2]float64{{-100, 100}}, func(ks *kernels.Kernels, a []*rt.Buffer[float64], out *rt.Buffer[float64]) error {
		return ks.Sin(a[0], out)
	}},
	{"cos", [][2]float64{{-100, 100}}, func(ks *kernels.Kernels, a []*rt.Buffer[float64], out *rt.Buffer[float64]) error {
		return ks.Cos(a[0], out)
	}},
	{"tan", [][2]float64{{-100, 100}}, func(ks *kernels.Kernels, a []*rt.Buffer[float64], out *rt.Buffer[float64]) error {
		return ks.Tan(a[0], out)
	}},
}

// mathRows prints the rows of the math benchmarks.
func mathRows(row func(label, key string)) {
	for _, b := range mathBenches {
		row(fmt.Sprintf("math.%s 2^26 f64, G elements/s", b.name), "math_"+b.name+"_gps")
	}
}

// mathBenchmarks times each math kernel over mathN elements, in billions
// of elements per second.
func mathBenchmarks(dev *rt.Device, ks *kernels.Kernels, ours map[string]float64) {
	args := make([]*rt.Buffer[float64], 2)
	for i := range args {
		var err error
		args[i], err = rt.Alloc[float64](dev, mathN)
		check(err)
		defer args[i].Free()
	}
	out, err := rt.Alloc[float64](dev, mathN)
	check(err)
	defer out.Free()
	for _, b := range mathBenches {
		for i, r := range b.ranges {
			check(ks.Fill(args[i], r[0], r[1]))
		}
		for range 3 {
			check(b.run(ks, args, out))
		}
		check(dev.Synchronize())
		var secs []float64
		for range 20 {
			t0 := time.Now()
			check(b.run(ks, args, out))
			check(dev.Synchronize())
			secs = append(secs, time.Since(t0).Seconds())
		}
		ours["math_"+b.name+"_gps"] = mathN / median(secs) / 1e9
	}
}
