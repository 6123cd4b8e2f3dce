package main

import "github.com/qdgo/qd"

//go:generate go tool qdgen

// The tiling: each block computes a tile×tile tile of c from depth-wide
// slabs of a and b staged in shared memory, and each of its 256 threads
// keeps a per×per sub-tile of sums in registers.
const (
	tile    = 128
	depth   = 8
	per     = 8
	side    = tile / per // threads along each side of the tile
	threads = side * side
)

// Sgemm sets c = a·b for row-major a (m×k), b (k×n) and c (m×n), with m
// and n multiples of 128 and k a multiple of 8. Thread (ty, tx) of a
// block owns rows ty, ty+16, … and columns tx, tx+16, … of the block's
// tile, so a warp's reads of shared memory hit 32 different banks or the
// same word. Each element of c is summed in the order of k, from zero,
// as the naive triple loop sums it, so the result equals that loop's bit
// for bit.
//
//qd:kernel
func Sgemm(a, b, c []float32, m, n, k int) {
	for by := range qd.Blocks(m / tile) {
		for bx := range qd.Blocks(n / tile) {
			// a's slab is stored transposed, one row of it per k; the
			// padding of 4 lets a warp store a 4×8 corner of a without
			// two threads in one bank.
			var as [depth][tile + 4]float32
			var bs [depth][tile]float32
			var acc [side][side][per][per]float32 // each thread's own: registers
			for k0 := 0; k0 < k; k0 += depth {
				for ty := range qd.Threads(side) {
					for tx := range qd.Threads(side) {
						for l := range tile * depth / threads {
							e := l*threads + ty*side + tx
							row, col := e/depth, e%depth
							as[col][row] = a[(by*tile+row)*k+k0+col]
							row, col = e/tile, e%tile
							bs[row][col] = b[(k0+row)*n+bx*tile+col]
						}
					}
				}
				for ty := range qd.Threads(side) {
					for tx := range qd.Threads(side) {
						for kk := range depth {
							var ra, rb [per]float32
							for i := range per {
								ra[i] = as[kk][ty+i*side]
								rb[i] = bs[kk][tx+i*side]
							}
							for i := range per {
								for j := range per {
									acc[ty][tx][i][j] += ra[i] * rb[j]
								}
							}
						}
					}
				}
			}
			for ty := range qd.Threads(side) {
				for tx := range qd.Threads(side) {
					for i := range per {
						for j := range per {
							c[(by*tile+ty+i*side)*n+bx*tile+tx+j*side] = acc[ty][tx][i][j]
						}
					}
				}
			}
		}
	}
}

// SgemmFMA is Sgemm with fused multiply-adds (the fma option): each
// acc += a·b is one instruction, rounded once, as in cuBLAS, where Sgemm
// rounds the product and the sum apiece, as Go on amd64 does. Its
// elements differ from Go's in the last bits, within the bound near
// (main.go) states.
//
//qd:kernel fma
func SgemmFMA(a, b, c []float32, m, n, k int) {
	Sgemm(a, b, c, m, n, k)
}
