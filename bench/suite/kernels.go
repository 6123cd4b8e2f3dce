// Package suite holds realistic benchmark kernels: stencils, matrix
// products, image filters, integer and float loops (kernels.go), and loop
// nests as a Go programmer first writes them (nests.go).
// bench/baseline/suite.cu and nests.cu have the same algorithms in CUDA C
// as a CUDA programmer writes them, with 32-bit int indices and 2-D
// blocks, and bench/qdsuite times both and compares their checksums.
package suite

import "math"

//go:generate go run github.com/qdgo/qd/cmd/qdgen

// Stencil2D is a 5-point Jacobi step on a w×h grid; the border is copied.
//
//qd:kernel
func Stencil2D(out, in []float32, w, h int) {
	for p := range len(out) {
		x, y := p%w, p/w
		if x > 0 && x < w-1 && y > 0 && y < h-1 {
			out[p] = 0.5*in[p] + 0.125*(in[p-1]+in[p+1]+in[p-w]+in[p+w])
		} else {
			out[p] = in[p]
		}
	}
}

// Stencil3D is a 7-point Laplacian on a w×h×d grid; the border is zero.
//
//qd:kernel
func Stencil3D(out, in []float32, w, h, d int) {
	for p := range len(out) {
		x, y, z := p%w, (p/w)%h, p/(w*h)
		if x > 0 && x < w-1 && y > 0 && y < h-1 && z > 0 && z < d-1 {
			plane := w * h
			out[p] = in[p-1] + in[p+1] + in[p-w] + in[p+w] + in[p-plane] + in[p+plane] - 6*in[p]
		} else {
			out[p] = 0
		}
	}
}

// Matmul is the naive n×n matrix product c = a·b, one output per thread.
//
//qd:kernel
func Matmul(c, a, b []float32, n int) {
	for p := range n * n {
		i, j := p/n, p%n
		var sum float32
		for k := 0; k < n; k++ {
			sum += a[i*n+k] * b[k*n+j]
		}
		c[p] = sum
	}
}

// Blur is a 3×3 box blur of an 8-bit w×h image, clamping at the edges.
//
//qd:kernel
func Blur(out, in []uint8, w, h int) {
	for p := range len(out) {
		x, y := p%w, p/w
		sum := 0
		for dy := -1; dy <= 1; dy++ {
			yy := min(max(y+dy, 0), h-1)
			for dx := -1; dx <= 1; dx++ {
				xx := min(max(x+dx, 0), w-1)
				sum += int(in[yy*w+xx])
			}
		}
		out[p] = uint8(sum / 9)
	}
}

// DigitSum sums the digits of each value in a base known only at run time.
//
//qd:kernel
func DigitSum(out, in []int, base int) {
	for i := range len(out) {
		x := in[i]
		s := 0
		for x > 0 {
			s += x % base
			x /= base
		}
		out[i] = s
	}
}

// Options prices a call on each spot price as the mean payoff over a
// small fixed ladder of scenarios, with divisions by constants.
//
//qd:kernel
func Options(out, spot []float32, strike float32) {
	for i := range len(out) {
		s := spot[i]
		var payoff float32
		for k := 0; k < 8; k++ {
			price := s * (1 + float32(k-4)/16)
			payoff += max(price-strike, 0)
		}
		out[i] = payoff / 8 * 0.95 / 3
	}
}

// NBody computes the softened gravitational acceleration on each of n
// bodies from all the others, in float32.
//
//qd:kernel
func NBody(ax, ay, az, px, py, pz []float32) {
	for i := range len(ax) {
		xi, yi, zi := px[i], py[i], pz[i]
		var fx, fy, fz float32
		for j := range len(px) {
			dx, dy, dz := px[j]-xi, py[j]-yi, pz[j]-zi
			d2 := dx*dx + dy*dy + dz*dz + 0.01
			inv := 1 / float32(math.Sqrt(float64(d2)))
			inv3 := inv * inv * inv
			fx += dx * inv3
			fy += dy * inv3
			fz += dz * inv3
		}
		ax[i], ay[i], az[i] = fx, fy, fz
	}
}

// Mandelbrot64 is the escape count of each pixel of a w×h image, in float64.
//
//qd:kernel
func Mandelbrot64(counts []int32, w, h int, maxIter int32) {
	for p := range len(counts) {
		cx := -2.2 + 3.2*float64(p%w)/float64(w)
		cy := -1.2 + 2.4*float64(p/w)/float64(h)
		x, y := 0.0, 0.0
		n := int32(0)
		for ; n < maxIter; n++ {
			x2, y2 := x*x, y*y
			if x2+y2 > 4 {
				break
			}
			y = 2*x*y + cy
			x = x2 - y2 + cx
		}
		counts[p] = n
	}
}

// Mandelbrot32 is Mandelbrot64 in float32.
//
//qd:kernel
func Mandelbrot32(counts []int32, w, h int, maxIter int32) {
	for p := range len(counts) {
		cx := -2.2 + 3.2*float32(p%w)/float32(w)
		cy := -1.2 + 2.4*float32(p/w)/float32(h)
		var x, y float32
		n := int32(0)
		for ; n < maxIter; n++ {
			x2, y2 := x*x, y*y
			if x2+y2 > 4 {
				break
			}
			y = 2*x*y + cy
			x = x2 - y2 + cx
		}
		counts[p] = n
	}
}

// Xorshift runs rounds of the xorshift32 generator from each seed.
//
//qd:kernel
func Xorshift(out, seeds []uint32, rounds int) {
	for i := range len(out) {
		x := seeds[i] | 1
		for r := 0; r < rounds; r++ {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
		}
		out[i] = x
	}
}

// MatVec is the product y = A·x of an m×n row-major matrix and a vector.
//
//qd:kernel
func MatVec(y, a, x []float32, n int) {
	for i := range len(y) {
		var sum float32
		row := a[i*n : i*n+n]
		for j := range row {
			sum += row[j] * x[j]
		}
		y[i] = sum
	}
}

// Daxpy is y = a·x + y in float64.
//
//qd:kernel
func Daxpy(a float64, x, y []float64) {
	for i := range len(y) {
		y[i] = a*x[i] + y[i]
	}
}

// Hash mixes each key through rounds of the splitmix64 finalizer.
//
//qd:kernel
func Hash(out, keys []uint64, rounds int) {
	for i := range len(out) {
		h := keys[i]
		for r := 0; r < rounds; r++ {
			h += 0x9e3779b97f4a7c15
			h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
			h = (h ^ h>>27) * 0x94d049bb133111eb
			h ^= h >> 31
		}
		out[i] = h
	}
}

// Transpose writes the transpose of an h×w matrix of float64, through
// index arithmetic in both directions.
//
//qd:kernel
func Transpose(out, in []float64, w, h int) {
	for p := range len(out) {
		r, c := p/h, p%h
		out[p] = in[c*w+r]
	}
}
