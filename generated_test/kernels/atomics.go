package kernels

import (
	"sync/atomic"

	"github.com/qdgo/qd"
)

// Histogram counts the bytes of data in 256 bins.
//
//qd:kernel
func Histogram(data []uint8, bins []uint32) {
	for _, b := range data {
		atomic.AddUint32(&bins[b], 1)
	}
}

// Slots hands every iteration a slot of order with a counter, and adds up
// the indexes with 64-bit atomics.
//
//qd:kernel
func Slots(order []int32, count []int32, total []uint64, signed []int64) {
	for i := range order {
		slot := atomic.AddInt32(&count[0], 1) - 1
		order[slot] = int32(i)
		atomic.AddUint64(&total[0], uint64(i))
		atomic.AddInt64(&signed[0], -int64(i))
	}
}

// FloatSums adds x into four buckets, in float32 and in float64.
//
//qd:kernel
func FloatSums(x []float32, bucket []uint8, sums32 []float32, sums64 []float64) {
	for i, v := range x {
		b := bucket[i] % 4
		qd.AtomicAdd(&sums32[b], v)
		qd.AtomicAdd(&sums64[b], float64(v))
	}
}

// Extremes keeps minima and maxima of floats, NaN and zeros included, and
// of integers, and updates narrow elements that share a word.
//
//qd:kernel
func Extremes(x []float64, lo, hi []float64, ilo, ihi []int64, small []int8, narrow []uint16, fmax []float32) {
	for i, v := range x {
		qd.AtomicMin(&lo[0], v)
		qd.AtomicMax(&hi[0], v)
		n := int64(i*7919%1000) - 500
		qd.AtomicMin(&ilo[0], n)
		qd.AtomicMax(&ihi[0], n)
		qd.AtomicAdd(&small[i%3], 1)
		qd.AtomicMax(&narrow[i%5], uint16(i))
		qd.AtomicMin(&narrow[5+i%3], uint16(i+1))
		qd.AtomicMax(&fmax[i%2], float32(v))
	}
}

// Bits sets a bit for each value present, clears bits of a mask, swaps
// and stores elements of its own and finds a maximum with a
// compare-and-swap loop.
//
//qd:kernel
func Bits(data []uint8, present []uint32, mask []uint64, prev, old []int64, seen []int32, top []int32) {
	for i, b := range data {
		atomic.OrUint32(&present[b/32], 1<<(b%32))
		atomic.AndUint64(&mask[0], ^(uint64(1) << (b % 64)))
		old[i] = atomic.SwapInt64(&prev[i], int64(b))
		atomic.StoreInt32(&seen[i], atomic.LoadInt32(&seen[i])+1)
		v := int32(b) * int32(i%7)
		for {
			m := atomic.LoadInt32(&top[0])
			if v <= m || atomic.CompareAndSwapInt32(&top[0], m, v) {
				break
			}
		}
	}
}
