// Package blocks holds block-level kernels for the end-to-end tests: loops
// over qd.Blocks whose thread loops share memory and wait for each other,
// each compared with its Go function.
package blocks

//go:generate go tool qdgen

import "github.com/qdgo/qd"

// tile is the side of Transpose's tiles and of Stencil's blocks.
const tile = 16

// Transpose writes the transpose of the h×w matrix in into out (w×h),
// through a shared tile, so that both the reads and the writes of a warp
// touch neighbouring elements. The tile has a column more than it needs,
// so that a warp reading a column of it reads different banks.
//
//qd:kernel
func Transpose(out, in []float32, w, h int) {
	for by := range qd.Blocks((h + tile - 1) / tile) {
		for bx := range qd.Blocks((w + tile - 1) / tile) {
			var t [tile][tile + 1]float32
			for ty := range qd.Threads(tile) {
				for tx := range qd.Threads(tile) {
					y, x := by*tile+ty, bx*tile+tx
					if y < h && x < w {
						t[ty][tx] = in[y*w+x]
					}
				}
			}
			for ty := range qd.Threads(tile) {
				for tx := range qd.Threads(tile) {
					y, x := bx*tile+ty, by*tile+tx // out's row and column
					if y < w && x < h {
						out[y*h+x] = t[tx][ty]
					}
				}
			}
		}
	}
}

// Stencil averages each element of in with its four neighbours into out,
// the h×w matrices' borders copied. Each block loads its tile and the
// halo around it into shared memory once.
//
//qd:kernel
func Stencil(out, in []float32, w, h int) {
	for by := range qd.Blocks((h + tile - 1) / tile) {
		for bx := range qd.Blocks((w + tile - 1) / tile) {
			var s [tile + 2][tile + 2]float32
			for i := range qd.Threads(tile * tile) {
				// (tile+2)² halo cells, loaded by tile² threads in turns.
				for c := i; c < (tile+2)*(tile+2); c += tile * tile {
					y, x := by*tile+c/(tile+2)-1, bx*tile+c%(tile+2)-1
					if y >= 0 && y < h && x >= 0 && x < w {
						s[c/(tile+2)][c%(tile+2)] = in[y*w+x]
					}
				}
			}
			for ty := range qd.Threads(tile) {
				for tx := range qd.Threads(tile) {
					y, x := by*tile+ty, bx*tile+tx
					switch {
					case y >= h || x >= w:
					case y == 0 || x == 0 || y == h-1 || x == w-1:
						out[y*w+x] = in[y*w+x]
					default:
						c := s[ty+1][tx+1] + s[ty][tx+1] + s[ty+2][tx+1] + s[ty+1][tx] + s[ty+1][tx+2]
						out[y*w+x] = c / 5
					}
				}
			}
		}
	}
}

// Reverse reverses each block of 128 elements of x through shared memory,
// with a thread loop of fewer threads than the block has.
//
//qd:kernel
func Reverse(x []int32) {
	const n = 128
	for b := range qd.Blocks(len(x) / n) {
		var v [n]int32
		for t := range qd.Threads(n) {
			v[t] = x[b*n+t]
		}
		for t := range qd.Threads(n / 2) {
			v[t], v[n-1-t] = v[n-1-t], v[t]
		}
		for t := range qd.Threads(n) {
			x[b*n+t] = v[t]
		}
	}
}

// Sums writes the sum of each block of 64 elements of x into sums, by a
// tree of pairwise sums in shared memory: a serial loop of thread loops.
//
//qd:kernel
func Sums(sums []int64, x []int64) {
	const n = 64
	for b := range qd.Blocks(min(len(x)/n, len(sums))) {
		var v [n]int64
		for t := range qd.Threads(n) {
			v[t] = x[b*n+t]
		}
		for half := n / 2; half > 0; half /= 2 {
			for t := range qd.Threads(n) {
				if t < half {
					v[t] += v[t+half]
				}
			}
		}
		for t := range qd.Threads(1) {
			sums[b+t] = v[0]
		}
	}
}

// MatMul sets c = a×b for n×n matrices, a block of threads computing a
// 32×32 tile of c, each of its 8×8 threads a 4×4 part of it in its own
// registers (acc), from 32×8 and 8×32 tiles of a and b in shared memory.
//
//qd:kernel
func MatMul(c, a, b []float32, n int) {
	const bs, ts, ks = 32, 4, 8 // the tile of a block, of a thread, and the step along k
	for by := range qd.Blocks((n + bs - 1) / bs) {
		for bx := range qd.Blocks((n + bs - 1) / bs) {
			var at [ks][bs]float32 // a's tile, transposed
			var bt [ks][bs]float32
			var acc [bs / ts][bs / ts][ts][ts]float32
			for k0 := 0; k0 < n; k0 += ks {
				for t := range qd.Threads(bs / ts * bs / ts) {
					for e := t; e < bs*ks; e += bs / ts * bs / ts {
						r, k := e/ks, e%ks
						var v float32
						if by*bs+r < n && k0+k < n {
							v = a[(by*bs+r)*n+k0+k]
						}
						at[k][r] = v
						k, col := e/bs, e%bs
						var w float32
						if k0+k < n && bx*bs+col < n {
							w = b[(k0+k)*n+bx*bs+col]
						}
						bt[k][col] = w
					}
				}
				for ty := range qd.Threads(bs / ts) {
					for tx := range qd.Threads(bs / ts) {
						for k := range ks {
							for i := range ts {
								for j := range ts {
									acc[ty][tx][i][j] += at[k][ty*ts+i] * bt[k][tx*ts+j]
								}
							}
						}
					}
				}
			}
			for ty := range qd.Threads(bs / ts) {
				for tx := range qd.Threads(bs / ts) {
					for i := range ts {
						for j := range ts {
							if r, col := by*bs+ty*ts+i, bx*bs+tx*ts+j; r < n && col < n {
								c[r*n+col] = acc[ty][tx][i][j]
							}
						}
					}
				}
			}
		}
	}
}

// BlockScan replaces each block of 256 elements of x by its prefix sums,
// and writes the sum of those into totals.
//
//qd:kernel
func BlockScan(x, totals []int32) {
	const n = 256
	for b := range qd.Blocks(min(len(x)/n, len(totals))) {
		var v [n]int32
		for t := range qd.Threads(n) {
			v[t] = x[b*n+t]
		}
		qd.InclusiveScan(v[:])
		s := qd.Sum(v[:])
		for t := range qd.Threads(n) {
			x[b*n+t] = v[t]
		}
		for t := range qd.Threads(1) {
			totals[b+t] = s
		}
	}
}

// Exclusive adds to each element of a block of 100 of x the sum of those
// before it and of the whole block, on blocks of 128 threads.
//
//qd:kernel
func Exclusive(x []int64) {
	const n = 100
	for b := range qd.Blocks(len(x) / n) {
		var v [n]int64
		for t := range qd.Threads(128) {
			if t < n {
				v[t] = x[b*n+t]
			}
		}
		total := qd.ExclusiveScan(v[:])
		for t := range qd.Threads(n) {
			x[b*n+t] = v[t] + total
		}
	}
}

// WideSums writes the sum of each block of 600 elements of x into sums,
// on blocks of 96 threads, each adding several elements.
//
//qd:kernel
func WideSums(sums, x []int32) {
	const n = 600
	for b := range qd.Blocks(min(len(x)/n, len(sums))) {
		var v [n]int32
		for t := range qd.Threads(96) {
			for i := t; i < n; i += 96 {
				v[i] = x[b*n+i]
			}
		}
		s := qd.Sum(v[:])
		for t := range qd.Threads(1) {
			sums[b+t] = s
		}
	}
}

// Gaps reverses each block of 64 elements of x through shared memory, but
// only every third element is stored there, so the others read back the
// zero that declaring the array gave them.
//
//qd:kernel
func Gaps(x []int32) {
	const n = 64
	for b := range qd.Blocks(len(x) / n) {
		var v [n]int32
		for t := range qd.Threads(n) {
			if t%3 == 0 {
				v[t] = x[b*n+t]
			}
		}
		for t := range qd.Threads(n) {
			x[b*n+t] = v[n-1-t]
		}
	}
}

// Rounds adds, twice, each element of a block of 32 of x to its mirror:
// the first round reads the shared array before any thread loop stores
// all of it, so it reads zeroes.
//
//qd:kernel
func Rounds(x []int32) {
	const n = 32
	for b := range qd.Blocks(len(x) / n) {
		var v [n]int32
		for range 2 {
			for t := range qd.Threads(n) {
				x[b*n+t] += v[n-1-t]
			}
			for t := range qd.Threads(n) {
				v[t] = x[b*n+t]
			}
		}
	}
}

// Grid copies each 8×8 block of 64 elements of x, transposed, through a
// shared array that a 2-D thread loop stores all of first.
//
//qd:kernel
func Grid(x []int32) {
	const n = 8
	for b := range qd.Blocks(len(x) / (n * n)) {
		var v [n][n]int32
		for ty := range qd.Threads(n) {
			for tx := range qd.Threads(n) {
				v[ty][tx] = x[b*n*n+ty*n+tx]
			}
		}
		for ty := range qd.Threads(n) {
			for tx := range qd.Threads(n) {
				x[b*n*n+ty*n+tx] = v[tx][ty]
			}
		}
	}
}
