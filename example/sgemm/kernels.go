package main

import "github.com/qdgo/qd"

//go:generate go tool qdgen

// The tiling: each block computes a tile×tile tile of c from depth-wide
// slabs of a and b staged in shared memory, and each of its 256 threads
// keeps a per×per sub-tile of sums in registers. A thread's rows (and
// columns) of the tile come in two runs of four, half a tile apart, so
// it reads each run of a slab row with one 16-byte load of shared memory.
const (
	tile    = 128
	depth   = 8
	per     = 8
	run     = 4          // a thread's rows come in runs of run
	side    = tile / per // threads along each side of the tile
	threads = side * side
)

// Sgemm sets c = a·b for row-major a (m×k), b (k×n) and c (m×n), with m
// and n multiples of 128 and k a multiple of 8. Thread (ty, tx) of a
// block owns rows 4ty…4ty+3 and 64+4ty…64+4ty+3 of the block's tile, and
// the same columns of tx. The block keeps two slabs of a and b: while
// its threads sum from one, each holds its share of the next slab in
// registers, loaded from global memory before the sums and stored into
// the other slab after them, so one barrier per slab suffices and the
// loads' latency hides behind the arithmetic. The loads need no test:
// in the last slab, a thread loads that slab again, into the slab no one
// reads, which keeps the loop free of branches. Each element of c is
// summed in the order of k, from zero, as the naive triple loop sums it,
// so the result equals that loop's bit for bit.
//
//qd:kernel
func Sgemm(a, b, c []float32, m, n, k int) {
	slabs := k / depth
	for by := range qd.Blocks(m / tile) {
		for bx := range qd.Blocks(n / tile) {
			// a's slabs are stored transposed, one row per k; the padding
			// of 4 puts the rows two threads store at once in different
			// banks.
			var as [2][depth][tile + 4]float32
			var bs [2][depth][tile]float32
			var acc [side][side][per][per]float32 // each thread's own: registers
			var next [side][side][2][run]float32  // each thread's share of the next slabs: registers
			// Thread t moves a run of four elements of row t/2 of a's
			// slab and four of row t/32 of b's.
			for ty := range qd.Threads(side) {
				for tx := range qd.Threads(side) {
					t := ty*side + tx
					ar, ac, br, bc := t/2, t%2*run, t/32, t%32*run
					for q := range run {
						as[0][ac+q][ar] = a[(by*tile+ar)*k+ac+q]
						bs[0][br][bc+q] = b[br*n+bx*tile+bc+q]
					}
				}
			}
			for s := range slabs {
				cur, nxt := s%2, min(s+1, slabs-1)
				for ty := range qd.Threads(side) {
					for tx := range qd.Threads(side) {
						t := ty*side + tx
						ar, ac, br, bc := t/2, t%2*run, t/32, t%32*run
						for q := range run {
							next[ty][tx][0][q] = a[(by*tile+ar)*k+nxt*depth+ac+q]
							next[ty][tx][1][q] = b[(nxt*depth+br)*n+bx*tile+bc+q]
						}
						for kk := range depth {
							var ra, rb [per]float32
							for i := range run {
								ra[i] = as[cur][kk][ty*run+i]
								ra[run+i] = as[cur][kk][tile/2+ty*run+i]
								rb[i] = bs[cur][kk][tx*run+i]
								rb[run+i] = bs[cur][kk][tile/2+tx*run+i]
							}
							for i := range per {
								for j := range per {
									acc[ty][tx][i][j] += ra[i] * rb[j]
								}
							}
						}
						for q := range run {
							as[1-cur][ac+q][ar] = next[ty][tx][0][q]
							bs[1-cur][br][bc+q] = next[ty][tx][1][q]
						}
					}
				}
			}
			for ty := range qd.Threads(side) {
				for tx := range qd.Threads(side) {
					for i := range per {
						for j := range per {
							row := i/run*(tile/2) + ty*run + i%run
							col := j/run*(tile/2) + tx*run + j%run
							c[(by*tile+row)*n+bx*tile+col] = acc[ty][tx][i][j]
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
