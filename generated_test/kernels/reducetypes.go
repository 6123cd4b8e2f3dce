package kernels

import "math"

// This file holds reductions over Go's composite types and over loop
// nests: values read from struct fields, methods and arrays, combined
// over all the iterations of a parallel loop or of a nest that runs as
// one.

// BodyStats sums the kinetic energy of the bodies, counts the live ones
// and finds the largest mass: reductions of fields and of a value
// method's result, read through a pointer to each element.
//
//qd:kernel
func BodyStats(bs []Body, out []float64) {
	var energy float64
	var alive int64
	heaviest := -math.MaxFloat64
	for i := range bs {
		b := &bs[i]
		energy += b.Energy()
		if b.Alive {
			alive++
		}
		heaviest = max(heaviest, b.Mass)
	}
	out[0], out[1], out[2] = energy, float64(alive), heaviest
}

// QuadSums weights the elements of each array of qs by a local array
// and sums them, and finds the largest element: the inner loop over an
// array's elements is perfectly nested, so the two loops run as one
// parallel loop whose iterations the reductions combine.
//
//qd:kernel
func QuadSums(qs [][4]int32, out []int64) {
	weights := [4]int64{1, -2, 3, -4}
	var sum int64
	hi := int32(math.MinInt32)
	for i := range qs {
		for k := range len(weights) {
			sum += int64(qs[i][k]) * weights[k]
			hi = max(hi, qs[i][k])
		}
	}
	out[0], out[1] = sum, int64(hi)
}

// ImageStats sums a w×h image, counts its bright pixels and finds its
// darkest: reductions over a loop nest, one under an if.
//
//qd:kernel
func ImageStats(pix []uint8, w, h int, out []int64) {
	var sum, bright int64
	dark := uint8(255)
	for y := range h {
		for x := range w {
			v := pix[y*w+x]
			sum += int64(v)
			if v > 200 {
				bright++
			}
			dark = min(dark, v)
		}
	}
	out[0], out[1], out[2] = sum, bright, int64(dark)
}

// Normalize divides a d×h×w volume by its largest magnitude and returns
// its sum before: a float reduction over a nest of three levels, whose
// result a later nest reads.
//
//qd:kernel
func Normalize(vox []float64, w, h, d int, out []float64) {
	var sum, peak float64
	for z := range d {
		for y := range h {
			for x := range w {
				v := vox[(z*h+y)*w+x]
				sum += v
				peak = max(peak, math.Abs(v))
			}
		}
	}
	for z := range d {
		for y := range h {
			for x := range w {
				vox[(z*h+y)*w+x] /= peak
			}
		}
	}
	out[0] = sum
}

// countAbove counts the elements of x above t and leaves the count in
// out[0]: a helper called as a statement, whose loop runs in parallel with
// a reduction.
func countAbove(out []int64, x []float32, t float32) {
	var n int64
	for i := range x {
		if x[i] > t {
			n++
		}
	}
	out[0] = n
}

// HelperCounts counts the elements of x above 0 and those of its first
// half above 1, through a helper planned as the kernel's body.
//
//qd:kernel
func HelperCounts(x []float32, out []int64) {
	countAbove(out, x, 0)
	countAbove(out[1:], x[:len(x)/2], 1)
}
