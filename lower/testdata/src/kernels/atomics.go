package kernels

import (
	"sync/atomic"

	"github.com/qdgo/qd"
)

// Atomics lowers each kind of atomic: sync/atomic's results are computed
// from the old value the IR op gives.
//
//qd:kernel
func Atomics(data []uint8, bins []uint32, count []int32, sum []float64, small []int8) {
	for i, b := range data {
		atomic.AddUint32(&bins[b], 1)
		slot := atomic.AddInt32(&count[0], 1)
		if atomic.CompareAndSwapInt32(&count[1], 0, slot) {
			atomic.StoreInt32(&count[2], atomic.LoadInt32(&count[1]))
		}
		qd.AtomicAdd(&sum[0], float64(b))
		qd.AtomicMax(&sum[1], float64(i))
		qd.AtomicMin(&small[i%4], int8(b))
	}
}
