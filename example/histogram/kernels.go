package main

import "github.com/qdgo/qd"

//go:generate go tool qdgen

// bins is the number of bins, one per byte value, and threads the size of
// a block: one bin per thread to clear and merge.
const (
	bins    = 256
	threads = 256
)

// Histogram adds to hist[v] the number of bytes of data equal to v,
// with blocks blocks of threads that stride over data. Each block counts
// into a histogram of its own in shared memory, with atomic adds that
// contend only within the block, and then adds its counts to hist with
// one atomic add per bin.
//
//qd:kernel
func Histogram(data []uint8, hist []uint32, blocks int) {
	for b := range qd.Blocks(blocks) {
		var local [bins]uint32
		for t := range qd.Threads(threads) {
			for i := b*threads + t; i < len(data); i += blocks * threads {
				qd.AtomicAdd(&local[data[i]], 1)
			}
		}
		for t := range qd.Threads(threads) {
			if local[t] != 0 {
				qd.AtomicAdd(&hist[t], local[t])
			}
		}
	}
}
