package main

import "github.com/qdgo/qd"

//go:generate go tool qdgen

// A block computes a side×side tile of points with rows×side threads,
// each thread side/rows points of a column.
const (
	side = 32
	rows = 8
)

// point is the 5-point stencil: the centre c and its neighbours north,
// south, west and east.
func point(c, n, s, w, e float32) float32 {
	return 0.5*c + 0.125*(n+s+w+e)
}

// StencilHalo applies the stencil to the interior points of the ny×nx
// grid in, writing out, a tile per block. The block loads its tile and
// the tile's halo (a ring one point wide) into shared memory once, so
// each point of in is read from global memory about once rather than
// five times.
//
//qd:kernel
func StencilHalo(in, out []float32, nx, ny int) {
	for by := range qd.Blocks((ny + side - 1) / side) {
		for bx := range qd.Blocks((nx + side - 1) / side) {
			const wide = side + 2 // the tile and its halo
			var tile [wide][wide]float32
			for ty := range qd.Threads(rows) {
				for tx := range qd.Threads(side) {
					for e := ty*side + tx; e < wide*wide; e += rows * side {
						r, c := e/wide, e%wide
						y, x := by*side-1+r, bx*side-1+c
						if y >= 0 && y < ny && x >= 0 && x < nx {
							tile[r][c] = in[y*nx+x]
						}
					}
				}
			}
			for ty := range qd.Threads(rows) {
				for tx := range qd.Threads(side) {
					for j := range side / rows {
						y, x := by*side+ty+j*rows, bx*side+tx
						if y >= 1 && y < ny-1 && x >= 1 && x < nx-1 {
							r, c := ty+j*rows+1, tx+1
							out[y*nx+x] = point(tile[r][c], tile[r-1][c], tile[r+1][c], tile[r][c-1], tile[r][c+1])
						}
					}
				}
			}
		}
	}
}

// StencilFlat is StencilHalo written as a plain loop nest over the
// interior points, one per GPU thread, reading its five points from
// global memory (and the caches).
//
//qd:kernel
func StencilFlat(in, out []float32, nx, ny int) {
	for y := 1; y < ny-1; y++ {
		for x := 1; x < nx-1; x++ {
			i := y*nx + x
			out[i] = point(in[i], in[i-nx], in[i+nx], in[i-1], in[i+1])
		}
	}
}
