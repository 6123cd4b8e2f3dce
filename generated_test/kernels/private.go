package kernels

import (
	"sync/atomic"

	"github.com/qdgo/qd"
)

// Histograms and counters whose atomics the compiler moves into a copy of
// the slice in each block's shared memory (opt.PrivatizeAtomics).

// CountBytes counts the bytes of data: the indices stay below 256 whatever
// the length of bins.
//
//qd:kernel
func CountBytes(data []uint8, bins []uint32) {
	for _, b := range data {
		atomic.AddUint32(&bins[b], 1)
	}
}

// CountValues counts data modulo the number of bins, known only at run
// time: bins beyond what a block's copy holds are counted in place.
//
//qd:kernel
func CountValues(data []uint32, bins []uint32) {
	for _, v := range data {
		atomic.AddUint32(&bins[v%uint32(len(bins))], 1)
	}
}

// WeighValues adds each weight to the bin of its value, in 64 bits.
//
//qd:kernel
func WeighValues(data []uint32, weights []int64, sums []int64) {
	for i, v := range data {
		atomic.AddInt64(&sums[int(v)%len(sums)], weights[i])
	}
}

// BinExtremes keeps the least and the greatest value of each bin.
//
//qd:kernel
func BinExtremes(data []uint32, values []int32, lo, hi []int32) {
	for i, v := range data {
		k := int(v % uint32(len(lo)))
		qd.AtomicMin(&lo[k], values[i])
		qd.AtomicMax(&hi[k], values[i])
	}
}

// FloatBins adds x into the bins its bytes name.
//
//qd:kernel
func FloatBins(data []uint8, x []float32, sums []float32) {
	for i, b := range data {
		qd.AtomicAdd(&sums[b], x[i])
	}
}

// CountEven counts the even values: one counter, a copy of one element.
//
//qd:kernel
func CountEven(data []int32, count []int32) {
	for _, v := range data {
		if v%2 == 0 {
			atomic.AddInt32(&count[0], 1)
		}
	}
}
