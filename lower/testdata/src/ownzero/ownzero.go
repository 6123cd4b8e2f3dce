// Package ownzero holds block-level kernels whose shared tile is zeroed
// and then first used by a thread loop; TestZeroBarrier checks which of
// them keep the barrier after the zeroes. A block has 256 threads.
package ownzero

import "github.com/qdgo/qd"

// Flat loads a tile of 300 words, thread t words t and t+256, the words
// the thread zeroed: no barrier after the zeroes.
//
//qd:kernel
func Flat(x, y []float32) {
	for b := range qd.Blocks(len(x) / 300) {
		var tile [300]float32
		for t := range qd.Threads(256) {
			for e := t; e < 300; e += 256 {
				if e%3 != 0 {
					tile[e] = x[b*300+e]
				}
			}
		}
		for t := range qd.Threads(256) {
			y[b*300+t] = tile[t] + tile[t+1]
		}
	}
}

// Rows is the halo's load: a 2-D block's linear index walks a 34×34
// tile in steps of the block's threads, as tile[e/34][e%34], and reads
// back what it stored.
//
//qd:kernel
func Rows(x, y []float32) {
	for b := range qd.Blocks(len(x) / 1156) {
		var tile [34][34]float32
		for ty := range qd.Threads(8) {
			for tx := range qd.Threads(32) {
				for e := ty*32 + tx; e < 34*34; e += 8 * 32 {
					if e%5 != 0 {
						tile[e/34][e%34] = x[b*1156+e]
					}
					tile[e/34][e%34] += 1
				}
			}
		}
		for ty := range qd.Threads(8) {
			for tx := range qd.Threads(32) {
				y[b*256+ty*32+tx] = tile[ty][tx] + tile[ty+1][tx]
			}
		}
	}
}

// HalfStep steps by half the block: thread t stores words t+128 that
// thread t+128 zeroed, so the barrier stays.
//
//qd:kernel
func HalfStep(x, y []float32) {
	for b := range qd.Blocks(len(x) / 300) {
		var tile [300]float32
		for t := range qd.Threads(256) {
			for e := t; e < 300; e += 128 {
				tile[e] = x[b*300+e]
			}
		}
		for t := range qd.Threads(256) {
			y[b*300+t] = tile[t]
		}
	}
}

// Neighbour reads the word after its own, which another thread zeroed:
// the barrier stays.
//
//qd:kernel
func Neighbour(x, y []float32) {
	for b := range qd.Blocks(len(x) / 300) {
		var tile [300]float32
		for t := range qd.Threads(256) {
			tile[t] = x[b*300+t] + tile[t+1]
		}
		for t := range qd.Threads(256) {
			y[b*300+t] = tile[t]
		}
	}
}

// Columns walks the tile with the 2-D block's index transposed, tx*8+ty,
// not the thread's linear index: the barrier stays.
//
//qd:kernel
func Columns(x, y []float32) {
	for b := range qd.Blocks(len(x) / 300) {
		var tile [300]float32
		for ty := range qd.Threads(8) {
			for tx := range qd.Threads(32) {
				e := tx*8 + ty
				if e%2 == 0 {
					tile[e] = x[b*300+e]
				}
			}
		}
		for t := range qd.Threads(256) {
			y[b*300+t] = tile[t]
		}
	}
}

// Rows33 divides by 33 a tile of rows of 34: tile[e/33][e%33] is not
// word e, and the barrier stays.
//
//qd:kernel
func Rows33(x, y []float32) {
	for b := range qd.Blocks(len(x) / 1156) {
		var tile [34][34]float32
		for t := range qd.Threads(256) {
			for e := t; e < 33*33; e += 256 {
				if e%2 == 0 {
					tile[e/33][e%33] = x[b*1156+e]
				}
			}
		}
		for t := range qd.Threads(256) {
			y[b*256+t] = tile[0][t%34]
		}
	}
}
