// Package reduce holds kernels with reductions, accepted, and with
// carried variables that are not reductions, rejected.
package reduce

import "github.com/qdgo/qd"

//qd:kernel
func Sum(x, out []float32) {
	var sum float32
	for i := range x {
		sum += x[i]
	}
	out[0] = sum
}

//qd:kernel
func Several(x []int32, out []int64, n int) {
	var sum, count int64
	lo, hi := int32(1<<31-1), int32(-1<<31)
	bits := uint32(0)
	prod := int64(1)
	for i := range n {
		v := x[i]
		sum += int64(v)
		sum -= 1
		if v > 0 {
			count++
		}
		lo = min(lo, v)
		hi = max(hi, v, 7)
		bits |= uint32(v)
		prod *= int64(v)
	}
	out[0], out[1], out[2], out[3], out[4], out[5] = sum, count, int64(lo), int64(hi), int64(bits), prod
}

//qd:kernel
func MeanThenCenter(x, centered []float64) {
	var sum float64
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(len(x))
	for i := range x {
		centered[i] = x[i] - mean
	}
}

//qd:kernel
func Nested(m []float64, rows, cols int, out []float64) {
	total := 0.0
	for r := range rows {
		for c := range cols {
			if m[r*cols+c] > 0 {
				total += m[r*cols+c]
			}
		}
	}
	out[0] = total
}

//qd:kernel
func InBlocks(a, b, outA, outB []int32) {
	qd.StreamParallel(func() {
		var s int32
		for i := range a {
			s ^= a[i]
		}
		outA[0] = s
	})
	qd.StreamParallel(func() {
		var s int32
		for i := range b {
			s &= b[i]
		}
		outB[0] = s
	})
}

//qd:kernel
func PrefixSum(a []int32) {
	sum := int32(0)
	for i := range a {
		sum += a[i]
		a[i] = sum // want `variable sum is carried from one iteration of this parallel loop to the next, and it is read in the loop other than to update it: .*a reduction.*an atomic \(sync/atomic, qd.AtomicAdd`
	}
}

//qd:kernel
func Last(a, out []int32) {
	last := int32(0)
	for i := range a { // want `variable last is carried from one iteration of this parallel loop to the next, and it is assigned, not updated`
		last = a[i]
	}
	out[0] = last
}

//qd:kernel
func MaxByIf(a, out []int32) {
	m := int32(0)
	for i := range a {
		if a[i] > m { // want `variable m is carried .* and it is read in the loop other than to update it.*m = min\(m, v\) or max\(m, v\)`
			m = a[i]
		}
	}
	out[0] = m
}

//qd:kernel
func Mixed(a, out []int64) {
	s := int64(0)
	for i := range a {
		s += a[i]
		s *= 2 // want `variable s is carried .* and it is updated with different operations`
	}
	out[0] = s
}

//qd:kernel
func Reversed(a, out []int64) {
	s := int64(0)
	for i := range a {
		s = a[i] - s // want `variable s is carried .* and it is subtracted from another value`
	}
	out[0] = s
}

//qd:kernel
func Twice(a, out []int64) {
	s := int64(1)
	for i := range a {
		s = s + s + a[i] // want `variable s is carried .* and it is combined with itself`
	}
	out[0] = s
}

//qd:kernel
func ResetOnPath(a, out []int64) {
	s := int64(0)
	for i := range a { // want `variable s is carried .* and it is assigned, not updated, on some path`
		if a[i] < 0 {
			s = 0
		} else {
			s += a[i]
		}
	}
	out[0] = s
}

//qd:kernel nobound // want `unknown //qd:kernel option "nobound": the options are nobounds`
func Option(a []int64) {
	for i := range a {
		a[i] = 1
	}
}

// P is a struct whose fields reductions read.
type P struct {
	Mass float64
	Vel  [3]float32
}

func (p P) add(q P) P { return P{p.Mass + q.Mass, p.Vel} }

//qd:kernel
func Fields(ps []P, out []float64) {
	var mass, speed float64
	for i := range ps {
		p := &ps[i]
		mass += p.Mass
		for k := range len(p.Vel) {
			speed = max(speed, float64(p.Vel[k]))
		}
	}
	out[0], out[1] = mass, speed
}

//qd:kernel
func NestedLevels(m []int32, rows, cols int, out []int64) {
	var sum int64
	for r := range rows {
		for c := range cols {
			sum += int64(m[r*cols+c])
		}
	}
	out[0] = sum
}

//qd:kernel
func RowPrefixes(a []int32, w, h int) {
	for y := range h {
		s := int32(0)
		for x := range w { // an inner loop that is no reduction runs serially
			s += a[y*w+x]
			a[y*w+x] = s
		}
	}
}

//qd:kernel
func Accumulator(ps, out []P) {
	var acc P
	for i := range ps { // want `variable acc is carried .* and it has type P, and reductions combine numbers: give each field or element a variable of its own`
		acc = acc.add(ps[i])
	}
	out[0] = acc
}

//qd:kernel
func ComplexSum(c, out []complex128) {
	var z complex128
	for i := range c { // want `variable z is carried .* and it has type complex128, and reductions combine numbers: combine the real and imaginary parts in two variables`
		z += c[i]
	}
	out[0] = z
}
