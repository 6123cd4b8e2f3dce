package kernels

// Particle has fields of several sizes, so its layout has padding.
type Particle struct {
	X, V  float32
	Mass  float64
	Alive bool
}

// Step has a pointer receiver.
func (p *Particle) Step(dt float32) { p.X += p.V * dt }

// Move steps the live particles through a pointer to their element.
//
//qd:kernel
func Move(ps []Particle, dt float32) {
	for i := range ps {
		p := &ps[i]
		if p.Alive {
			p.Step(dt)
		}
	}
}

var weights = [4]float32{0.125, 0.375, 0.375, 0.125}

var gain = 2.0

// Filter reads a constant table by a variable and by constants, and a
// local array by constants only, which lives in registers.
//
//qd:kernel
func Filter(in, out []float32) {
	for i := range out {
		pair := [2]float32{in[i], in[min(i+1, len(in)-1)]}
		out[i] = (pair[0]*weights[1]+pair[1]*weights[2])*float32(gain) + weights[i%4]
	}
}

// Divide divides complex numbers.
//
//qd:kernel
func Divide(a, b []complex64) {
	for i := range a {
		a[i] /= b[i]
	}
}

// Image runs both loops of a perfectly nested pair in parallel.
//
//qd:kernel
func Image(pix []uint8, w, h int) {
	for y := range h {
		for x := range w {
			pix[y*w+x] = uint8(x ^ y)
		}
	}
}

// Outer runs a loop nest whose own tests keep the indices of a and b in
// range: only out's index is checked.
//
//qd:kernel
func Outer(out, a, b []float32) {
	for y := range len(a) {
		for x := range len(b) {
			out[y*len(b)+x] = a[y] * b[x]
		}
	}
}

// NestSum sums a w×h image through a loop nest that runs as one loop, with
// one partial sum per thread over all its levels.
//
//qd:kernel
func NestSum(pix []float32, w, h int, out []float32) {
	var sum float32
	for y := range h {
		for x := range w {
			sum += pix[y*w+x]
		}
	}
	out[0] = sum
}

// MatAcc sums a matrix product in its output: the k loop writes the same
// element in each of its iterations, so it runs serially in each (i, j),
// and i and j still run as one parallel loop.
//
//qd:kernel
func MatAcc(c, a, b []float32, n int) {
	for i := range n {
		for j := range n {
			for k := range n {
				c[i*n+j] += a[i*n+k] * b[k*n+j]
			}
		}
	}
}

// NestStencil is a 5-point stencil over the interior of a w×h grid as a
// loop nest: the head of the nest tests each level's offset, which bounds
// y and x for the checks (opt.HoistChecks).
//
//qd:kernel
func NestStencil(out, in []float32, w, h int) {
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			out[y*w+x] = in[y*w+x-1] + in[y*w+x+1] + in[(y-1)*w+x] + in[(y+1)*w+x]
		}
	}
}

// TriRows sums the first i+1 elements of row i: the loop's test is k <= i,
// which decides its checks before it as k < i+1 would (opt.HoistChecks).
//
//qd:kernel
func TriRows(out, a []float32, n int) {
	for i := range n {
		var sum float32
		for k := 0; k <= i; k++ {
			sum += a[i*n+k]
		}
		out[i] = sum
	}
}

// Lookup indexes a local array and a table by variables: an index is
// checked against the array's length unless a loop's test, a remainder or
// a mask keeps it in range.
//
//qd:kernel
func Lookup(out []float32, idx []int32) {
	for i := range out {
		taps := [4]float32{1, 2, 3, 4}
		v := weights[idx[i]&3] + taps[i%4]
		for k := range len(taps) {
			v += taps[k]
		}
		out[i] = v * weights[idx[i]]
	}
}
