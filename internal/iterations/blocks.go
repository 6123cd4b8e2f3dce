package iterations

import (
	"fmt"
	"math/rand/v2"

	"github.com/qdgo/qd/ir"
)

// maxBlocks bounds the blocks of a block-level task; with more, each
// block strides over several of the task's, as on a GPU.
const maxBlocks = 64

// blocks runs the block-level task t: its blocks shuffled over
// goroutines, and the threads of each block at the same time between its
// barriers, so that two threads of a thread loop, or two blocks, that
// touch one element without an atomic are a data race.
func (r *run) blocks(t int) error {
	task := r.k.Tasks[t]
	n := int64(maxBlocks)
	if c := r.counts[t]; c != UnknownCount {
		if c <= 0 {
			return nil // not launched, as on a GPU
		}
		n = min(c, maxBlocks)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	rand.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
	g := min(len(ids), goroutines)
	return parallel(g, func(k int) error {
		ip := &ir.Interp{Mem: &memory{regions: r.regions}, Scratch: r.scratch, ConcurrentThreads: true}
		for _, id := range ids[k*len(ids)/g : (k+1)*len(ids)/g] {
			if err := ip.RunBlock(r.k, task, r.vals, id, n); err != nil {
				return fmt.Errorf("%s, block %d: %w", task.Name, id, err)
			}
		}
		return nil
	})
}
