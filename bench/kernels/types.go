package kernels

import "math"

// The kernels of this file measure what Go's types and loop nests cost on
// the GPU; bench/baseline/types.cu has them in CUDA C and bench/qdtypes
// runs both.

// Vec3 is a position, velocity or acceleration.
type Vec3 struct{ X, Y, Z float32 }

// Add, Sub, Scale and Dot are vector arithmetic on values.
func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }
func (a Vec3) Sub(b Vec3) Vec3      { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }
func (a Vec3) Scale(s float32) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }
func (a Vec3) Dot(b Vec3) float32   { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// invSqrt is 1/sqrt(r2), rounded as CUDA C's 1.0f / sqrtf(r2).
func invSqrt(r2 float32) float32 { return 1 / float32(math.Sqrt(float64(r2))) }

// Particle is one body of NBodyAoS: 28 bytes, as in CUDA C.
type Particle struct {
	Pos, Vel Vec3
	Mass     float32
}

// NBodyAoS advances an n-body system by one step, its bodies an array of
// structs.
//
//qd:kernel
func NBodyAoS(ps []Particle, dt, soft float32) {
	for i := range ps {
		pi := ps[i].Pos
		var acc Vec3
		for j := range ps {
			d := ps[j].Pos.Sub(pi)
			inv := invSqrt(d.Dot(d) + soft)
			acc = acc.Add(d.Scale(ps[j].Mass * inv * inv * inv))
		}
		ps[i].Vel = ps[i].Vel.Add(acc.Scale(dt))
	}
	for i := range ps {
		p := &ps[i]
		p.Pos = p.Pos.Add(p.Vel.Scale(dt))
	}
}

// NBodySoA is NBodyAoS with one slice per field.
//
//qd:kernel
func NBodySoA(x, y, z, vx, vy, vz, m []float32, dt, soft float32) {
	n := min(len(x), len(y), len(z), len(vx), len(vy), len(vz), len(m))
	for i := range n {
		xi, yi, zi := x[i], y[i], z[i]
		var ax, ay, az float32
		for j := range n {
			dx, dy, dz := x[j]-xi, y[j]-yi, z[j]-zi
			inv := invSqrt(dx*dx + dy*dy + dz*dz + soft)
			s := m[j] * inv * inv * inv
			ax, ay, az = ax+dx*s, ay+dy*s, az+dz*s
		}
		vx[i], vy[i], vz[i] = vx[i]+ax*dt, vy[i]+ay*dt, vz[i]+az*dt
	}
	for i := range n {
		x[i], y[i], z[i] = x[i]+vx[i]*dt, y[i]+vy[i]*dt, z[i]+vz[i]*dt
	}
}

// Shade2D computes each element of a w×h image from both its indices, as
// a perfectly nested pair of loops: one parallel loop over all pixels.
//
//qd:kernel
func Shade2D(out, in []float32, w, h int) {
	for y := range h {
		for x := range w {
			i := y*w + x
			out[i] = in[i]*0.5 + float32(x*3+y)
		}
	}
}

// Shade1D is Shade2D as one loop that divides each index into x and y.
//
//qd:kernel
func Shade1D(out, in []float32, w int) {
	for i := range min(len(out), len(in)) {
		y, x := i/w, i%w
		out[i] = in[i]*0.5 + float32(x*3+y)
	}
}
