package kernels

import (
	"math"

	"github.com/qdgo/qd/generated_test/helpers"
)

// This file holds kernels over Go's composite types: structs, arrays,
// constant tables, bools and complex numbers.

// Vec is a small struct passed and returned by value.
type Vec struct{ X, Y, Z float32 }

// Add returns v+w.
func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y, v.Z + w.Z} }

// Scale returns v*s.
func (v Vec) Scale(s float32) Vec { return Vec{X: v.X * s, Y: v.Y * s, Z: v.Z * s} }

// Dot returns the dot product of v and w.
func (v Vec) Dot(w Vec) float32 { return v.X*w.X + v.Y*w.Y + v.Z*w.Z }

// Body is a struct with fields of every size, so its layout has padding.
type Body struct {
	Pos, Vel Vec
	Mass     float64
	Alive    bool
	Tag      int16
	Hist     [3]float32
	Kind     uint8
}

// Step advances b by dt; it has a pointer receiver and changes b.
func (b *Body) Step(dt float32) {
	b.Pos = b.Pos.Add(b.Vel.Scale(dt))
	b.Hist[2], b.Hist[1], b.Hist[0] = b.Hist[1], b.Hist[0], b.Pos.X
	b.Tag++
}

// Energy has a value receiver.
func (b Body) Energy() float64 {
	return 0.5 * b.Mass * float64(b.Vel.Dot(b.Vel))
}

// Advance moves every live body, through a pointer to its element.
//
//qd:kernel
func Advance(bs []Body, dt float32) {
	for i := range bs {
		b := &bs[i]
		if b.Alive {
			b.Step(dt)
		}
		bs[i].Vel.Y -= 9.81 * dt
		bs[i].Kind = uint8(i)
	}
}

// Energies reads whole structs, calls value methods and builds struct
// values locally.
//
//qd:kernel
func Energies(bs []Body, out []float64, moved []Vec) {
	for i := range min(len(bs), len(out), len(moved)) {
		b := bs[i]
		out[i] = b.Energy()
		if b == bs[len(bs)-1-i] {
			out[i] = -out[i]
		}
		v := Vec{Z: 1}
		v.X = b.Pos.X
		v = v.Add(b.Vel)
		moved[i] = v
	}
}

// gauss5 and the other tables are package-level variables the kernels
// only read: constant tables.
var gauss5 = [...]float32{1, 4, 6, 4, 1}

var scale = 2.5 * math.Pi

var corners = [4]Vec{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {X: -1, Y: -1}}

var rotation = [3][3]float64{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}

// Blur5 filters with a table indexed by a variable, and a local array of
// taps indexed by constants and by variables.
//
//qd:kernel
func Blur5(in, out []float32) {
	for i := range out {
		var sum float32
		for k := range len(gauss5) {
			j := min(max(i+k-2, 0), len(in)-1)
			sum += gauss5[k] * in[j]
		}
		taps := [3]float32{0.25, 0.5, 0.25}
		left, right := in[max(i-1, 0)], in[min(i+1, len(in)-1)]
		smooth := taps[0]*left + taps[1]*in[i] + taps[2]*right
		for k := range taps {
			taps[k] *= float32(scale)
		}
		out[i] = sum/16 + smooth + taps[i%3]
	}
}

// Rotate multiplies by a 3×3 table and a local 3×3 matrix, passes arrays
// by value to a helper and ranges over them.
//
//qd:kernel
func Rotate(v []Vec, out []Vec, n []float64) {
	for i := range min(len(v), len(out), len(n)) {
		p := [3]float64{float64(v[i].X), float64(v[i].Y), float64(v[i].Z)}
		q := mulMat(rotation, p)
		var m [3][3]float64
		for r := range 3 {
			m[r][r] = n[i]
			m[r][(r+1)%3] = 1
		}
		q = mulMat(m, q)
		out[i] = Vec{float32(q[0]), float32(q[1]), float32(q[2])}.Add(corners[i%len(corners)])
		sum := 0.0
		for j, x := range q {
			sum += x * float64(j+1)
		}
		n[i] = sum
	}
}

func mulMat(m [3][3]float64, v [3]float64) [3]float64 {
	var r [3]float64
	for i, row := range m {
		for j := range row {
			r[i] += row[j] * v[j]
		}
	}
	return r
}

// Pick indexes array values by variables: a copy of a local array and a
// row of a table.
//
//qd:kernel
func Pick(idx []int32, out []float64) {
	for i := range min(len(idx), len(out)) {
		k := int(uint32(idx[i]) % 3)
		row := rotation[k]
		local := [4]float64{1.5, -2, float64(k), 8}
		local[k+1] = row[2-k]
		copyOf := local
		local[0] = 7
		out[i] = row[k] + copyOf[k] + copyOf[3-k] + local[0]
	}
}

// Masks reads and writes bools, alone and in structs.
//
//qd:kernel
func Masks(mask []bool, x []float32, out []float32, flags []Flags) {
	for i := range min(len(mask), len(x), len(out), len(flags)) {
		f := flags[i]
		keep := mask[i] && !f.Skip || f.Force
		if keep {
			out[i] = x[i]
		} else {
			out[i] = 0
		}
		mask[i] = x[i] > 0 != keep
		flags[i].Skip = !f.Skip
		flags[i].Count += uint16(boolInt(keep))
	}
}

// Flags mixes bools and a narrow integer.
type Flags struct {
	Skip, Force bool
	Count       uint16
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Complex128Ops computes every complex128 operator Go has.
//
//qd:kernel
func Complex128Ops(a, b []complex128, sum, prod, quot []complex128, eq []bool) {
	for i := range min(len(a), len(b), len(sum), len(prod), len(quot), len(eq)) {
		x, y := a[i], b[i]
		sum[i] = x + y - complex(real(y), 0) + complex(0, imag(x)) - complex(0, imag(x))
		prod[i] = x * y
		quot[i] = x / y
		eq[i] = x == y || -x != y
	}
}

// Complex64Ops does the same in complex64, with conversions.
//
//qd:kernel
func Complex64Ops(a, b []complex64, prod, quot []complex64, wide []complex128) {
	for i := range min(len(a), len(b), len(prod), len(quot), len(wide)) {
		x, y := a[i], b[i]
		prod[i] = x*y + 1i
		quot[i] = x / y
		wide[i] = complex128(x) / complex128(y)
		a[i] = complex64(wide[i]) - quot[i]
	}
}

// Julia iterates z = z² + c, with a complex parameter in a struct.
//
//qd:kernel
func Julia(cs []complex128, params []JuliaParams, out []int32) {
	for i := range min(len(cs), len(out)) {
		p := params[0]
		z := cs[i]
		n := int32(0)
		for n < p.MaxIter && real(z)*real(z)+imag(z)*imag(z) <= p.Radius {
			z = z*z + p.C
			n++
		}
		out[i] = n
	}
}

// JuliaParams are the constants of Julia.
type JuliaParams struct {
	C       complex128
	Radius  float64
	MaxIter int32
}

// Weights is built before Smooth's parallel loop.
type Weights struct{ Center, Edge float32 }

// Smooth uses filter taps, a struct and an array built before its parallel
// loop: the loop's task builds them again.
//
//qd:kernel
func Smooth(in, out []float32, bias float32) {
	taps := [5]float32{1, 4, 6, 4, 1}
	w := Weights{Center: 0.5, Edge: bias}
	var norm [2]float32
	norm[0] = 1.0 / 16
	norm[1] = bias * 2
	for i := range min(len(in), len(out)) {
		var s float32
		for k := range taps {
			j := min(max(i+k-2, 0), len(in)-1)
			s += taps[k] * in[j]
		}
		out[i] = s*norm[0]*w.Center + w.Edge + norm[i%2]
	}
}

// Quads takes slices of arrays, of arrays of another package's structs,
// and of anonymous structs.
//
//qd:kernel
func Quads(qs [][4]float32, pairs [][2]helpers.Pair, tagged []struct {
	On  bool
	Val int16
}, out []int64) {
	for i := range min(len(qs), len(pairs), len(tagged), len(out)) {
		q := qs[i]
		s := int64(q[0]+q[1]*2) + int64(q[2]) - int64(q[3])
		for _, p := range pairs[i] {
			s += p.Sum()
		}
		if tagged[i].On {
			s += int64(tagged[i].Val)
		}
		out[i] = s
		qs[i][3] = float32(s)
	}
}

// Centered uses struct values computed before its parallel loop: a
// composite literal and a helper's result, neither of them a variable
// whose address is taken.
//
//qd:kernel
func Centered(v []Vec, out []float32, s float32) {
	center := Vec{1, 2, 3}.Scale(s)
	axis := unit(center)
	for i := range min(len(v), len(out)) {
		out[i] = v[i].Sub(center).Dot(axis)
	}
}

// Sub returns v-w.
func (v Vec) Sub(w Vec) Vec { return Vec{v.X - w.X, v.Y - w.Y, v.Z - w.Z} }

func unit(v Vec) Vec {
	return v.Scale(1 / float32(math.Sqrt(float64(v.Dot(v)))))
}

// Accum sums vectors; its methods have pointer receivers.
type Accum struct {
	Sum   Vec
	Count int32
}

func (a *Accum) add(v Vec) {
	a.Sum = a.Sum.Add(v)
	a.Count++
}

func (a *Accum) mean() Vec { return a.Sum.Scale(1 / float32(a.Count)) }

// LocalMethods calls methods with pointer receivers on a local struct,
// and on an element of a local array of structs.
//
//qd:kernel
func LocalMethods(v []Vec, out []Vec) {
	for i := range min(len(v), len(out)) {
		var acc Accum
		var parts [2]Accum
		for k := range 3 {
			w := v[(i+k)%len(v)]
			acc.add(w)
			parts[k%2].add(w.Scale(float32(k)))
		}
		p := &parts[1]
		p.add(acc.mean())
		out[i] = p.mean().Add(parts[0].Sum)
	}
}

// PCG is a permuted congruential generator: a struct with a method that
// changes it.
type PCG struct{ state, inc uint64 }

// Next advances the generator and returns 32 random bits.
func (p *PCG) Next() uint32 {
	old := p.state
	p.state = old*6364136223846793005 + p.inc
	xorshifted := uint32(((old >> 18) ^ old) >> 27)
	rot := uint32(old >> 59)
	return xorshifted>>rot | xorshifted<<((-rot)&31)
}

// RandomFill gives each element a generator of its own.
//
//qd:kernel
func RandomFill(out []uint32, seed uint64) {
	for i := range out {
		rng := PCG{state: seed, inc: uint64(i)<<1 | 1}
		rng.Next()
		out[i] = rng.Next() ^ rng.Next()
	}
}
