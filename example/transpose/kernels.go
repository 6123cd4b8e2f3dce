package main

import "github.com/qdgo/qd"

//go:generate go tool qdgen

// side is the side of the tiles a block moves; a block's threads stand in
// rows of lanes, and each moves side/rows · side/lanes elements, sixteen,
// so that many loads are in flight per thread.
const (
	side  = 64
	rows  = 8
	lanes = 32
)

// Transpose sets out (width×height) to the transpose of in (height×width),
// one 64×64 tile per block. A block reads its tile's rows from in, which
// consecutive threads read at consecutive addresses, into shared memory,
// and writes the tile's columns as rows of out, again at consecutive
// addresses. The tile's 65th column is padding: it puts the 32 elements
// a warp reads down a tile column in 32 different banks of shared memory.
//
//qd:kernel
func Transpose(in, out []float32, height, width int) {
	for by := range qd.Blocks((height + side - 1) / side) {
		for bx := range qd.Blocks((width + side - 1) / side) {
			var tile [side][side + 1]float32
			for ty := range qd.Threads(rows) {
				for tx := range qd.Threads(lanes) {
					for j := range side / rows {
						for i := range side / lanes {
							r, c := ty+j*rows, tx+i*lanes
							y, x := by*side+r, bx*side+c
							if y < height && x < width {
								tile[r][c] = in[y*width+x]
							}
						}
					}
				}
			}
			for ty := range qd.Threads(rows) {
				for tx := range qd.Threads(lanes) {
					for j := range side / rows {
						for i := range side / lanes {
							r, c := ty+j*rows, tx+i*lanes
							y, x := bx*side+r, by*side+c
							if y < width && x < height {
								out[y*height+x] = tile[c][r]
							}
						}
					}
				}
			}
		}
	}
}
