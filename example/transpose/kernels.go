package main

import "github.com/qdgo/qd"

//go:generate go tool qdgen

// side is the side of the tiles a block moves, and rows the number of
// rows of threads of a block: each thread moves side/rows elements.
const (
	side = 32
	rows = 8
)

// Transpose sets out (width×height) to the transpose of in (height×width), one
// 32×32 tile per block. A block reads its tile's rows from in, which
// consecutive threads read at consecutive addresses, into shared memory,
// and writes the tile's columns as rows of out, again at consecutive
// addresses. The tile's 33rd column is padding: it puts the 32 elements
// of a tile column in 32 different banks of shared memory.
//
//qd:kernel
func Transpose(in, out []float32, height, width int) {
	for by := range qd.Blocks((height + side - 1) / side) {
		for bx := range qd.Blocks((width + side - 1) / side) {
			var tile [side][side + 1]float32
			for ty := range qd.Threads(rows) {
				for tx := range qd.Threads(side) {
					for j := range side / rows {
						r := ty + j*rows
						y, x := by*side+r, bx*side+tx
						if y < height && x < width {
							tile[r][tx] = in[y*width+x]
						}
					}
				}
			}
			for ty := range qd.Threads(rows) {
				for tx := range qd.Threads(side) {
					for j := range side / rows {
						r := ty + j*rows
						y, x := bx*side+r, by*side+tx
						if y < width && x < height {
							out[y*height+x] = tile[tx][r]
						}
					}
				}
			}
		}
	}
}
