package main

import "github.com/qdgo/qd"

//go:generate go tool qdgen

// A block scans a tile of items×threads elements: each thread scans a run
// of items consecutive elements, and the block scans the runs' totals.
const (
	threads = 256
	items   = 16
	tile    = threads * items
)

// TileSums sets sums[b] to the sum of x's b-th tile, the first pass of a
// device-wide scan. Consecutive threads read consecutive elements; the
// block adds up its threads' sums, and one thread writes the total.
//
//qd:kernel
func TileSums(x, sums []int32, n int) {
	for b := range qd.Blocks((n + tile - 1) / tile) {
		var part [threads]int32
		for t := range qd.Threads(threads) {
			var s int32
			for i := range items {
				if j := b*tile + i*threads + t; j < n {
					s += x[j]
				}
			}
			part[t] = s
		}
		total := qd.Sum(part[:])
		for range qd.Threads(1) {
			sums[b] = total
		}
	}
}

// ScanTiles sets y to the inclusive prefix sum of x, given scanned, the
// inclusive prefix sum of x's tile sums (TileSums'): each block scans its
// tile and adds the sum of the tiles before it. The tile goes through
// shared memory so that the loads and stores of global memory are
// coalesced while each thread scans consecutive elements; at spreads the
// runs by one element so that a warp's threads, reading the i-th element
// of their runs, hit different banks.
//
//qd:kernel
func ScanTiles(x, y, scanned []int32, n int) {
	for b := range qd.Blocks((n + tile - 1) / tile) {
		var v [tile + tile/items]int32
		var part [threads]int32
		for t := range qd.Threads(threads) {
			for i := range items {
				j := i*threads + t
				if b*tile+j < n {
					v[at(j)] = x[b*tile+j]
				} else {
					v[at(j)] = 0
				}
			}
		}
		for t := range qd.Threads(threads) {
			var s int32
			for i := range items {
				s += v[at(t*items+i)]
				v[at(t*items+i)] = s
			}
			part[t] = s
		}
		qd.ExclusiveScan(part[:])
		for t := range qd.Threads(threads) {
			var before int32
			if b > 0 {
				before = scanned[b-1]
			}
			for i := range items {
				j := i*threads + t
				if b*tile+j < n {
					y[b*tile+j] = v[at(j)] + part[j/items] + before
				}
			}
		}
	}
}

// at is where element j of a tile lives in shared memory: one padding
// element after each run of items.
func at(j int) int { return j + j/items }
