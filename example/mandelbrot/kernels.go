package main

//go:generate go tool qdgen

// Mandelbrot computes the escape count of every pixel of a width×height
// image of the region [x0,x1]×[y0,y1]: one GPU thread per pixel, each
// running the inner iteration loop on its own.
//
//qd:kernel
func Mandelbrot(counts []int32, width, height int, x0, y0, x1, y1 float64, maxIter int32) {
	for p := range width * height {
		px, py := p%width, p/width
		cx := x0 + (x1-x0)*float64(px)/float64(width)
		cy := y0 + (y1-y0)*float64(py)/float64(height)
		counts[p] = escape(cx, cy, maxIter)
	}
}

// escape iterates z = z² + c from 0 until |z| > 2 or maxIter iterations.
func escape(cx, cy float64, maxIter int32) int32 {
	x, y := 0.0, 0.0
	for i := int32(0); i < maxIter; i++ {
		x2, y2 := x*x, y*y
		if x2+y2 > 4 {
			return i
		}
		y = 2*x*y + cy
		x = x2 - y2 + cx
	}
	return maxIter
}
