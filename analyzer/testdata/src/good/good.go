package good

import (
	"math"
	"math/bits"

	"helperpkg"
)

//qd:kernel
func Saxpy(a float32, x, y []float32, n int) {
	for i := range n {
		y[i] = a*x[i] + y[i]
	}
}

//qd:kernel
func Everything(a []int64, f []float64, n int, flag bool) {
	a[0] = 1
	for i := range len(a) {
		v := a[i]
		for j := range 4 {
			if j == 2 {
				continue
			}
			v += int64(j) << uint(j)
		}
		switch {
		case v > 10 && flag:
			v /= 3
		case v < 0 || !flag:
			v %= 7
		}
		a[i] = v
	}
	m := min(n, len(f))
	for i := 0; i < m; i++ {
		f[i] = math.Sqrt(math.Abs(f[i])) + float64(helperpkg.Twice(int32(i)))
	}
	for i, v := range f {
		f[i] = v * 2
	}
}

//qd:kernel
func CallsExternal(s []int32) {
	for i := range s {
		helperpkg.Store(s, i, helperpkg.Twice(s[i]))
	}
}

type particle struct {
	Pos, Vel [2]float32
	Alive    bool
}

func (p *particle) step(dt float32) {
	for k := range p.Pos {
		p.Pos[k] += p.Vel[k] * dt
	}
}

var taps = [...]float32{1, 2, 1}

//qd:kernel
func Structs(ps []particle, out []complex128, dt float32, w int) {
	weights := [2]float32{0.5, 0.5}
	for i := range ps {
		p := &ps[i]
		if p.Alive {
			p.step(dt * weights[i%2] * taps[i%3])
		}
	}
	for y := range len(out) / w {
		for x := range w {
			out[y*w+x] = complex(float64(x), float64(y)) / complex(1, float64(x))
		}
	}
}

//qd:kernel
func Library(f []float64, u []uint64, n int) {
	for i := range n {
		f[i] = math.Pow(math.Exp(f[i]), math.Atan2(f[i], 2)) + math.FMA(f[i], 2, 1)
		hi, lo := bits.Mul64(u[i], u[i])
		u[i] = uint64(bits.OnesCount64(hi)) + bits.RotateLeft64(lo, 3) + math.Float64bits(f[i])
		u[i], _ = bits.Div64(hi%7, lo, 7)
	}
}

type saxpyParams struct {
	A     float32
	N     int
	Scale [4]float32
}

// StructParams reads a struct parameter, indexed by a variable, in two
// top-level loops, each a launch of its own.
//
//qd:kernel
func StructParams(p saxpyParams, x, y []float32) {
	for i := range p.N {
		y[i] = p.A*x[i]*p.Scale[i%4] + y[i]
	}
	for i := range p.N {
		x[i] = p.Scale[i%4]
	}
}
