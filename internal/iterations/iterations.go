// Package iterations runs kernels on the CPU the way a GPU runs them, for
// tests under the race detector: through their compiled IR, on the IR
// interpreter, over the buffers' own host memory, with the iterations of
// each parallel loop spread over goroutines in shuffled order. Iterations
// that conflict through memory then touch the same Go memory from
// different goroutines with nothing ordering them, which go test -race
// reports; the Go function, run serially, would hide the conflict.
//
// Nothing synchronizes the goroutines of one loop but atomics of the
// kernel itself: each has an interpreter and a memory of its own, and its
// share of the iterations is fixed before it starts.
package iterations

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/qdgo/qd/ir"
)

var concurrent atomic.Bool

func init() {
	concurrent.Store(os.Getenv("QD_CPU_ITERATIONS") == "concurrent")
}

// SetConcurrent turns the mode on or off.
func SetConcurrent(on bool) { concurrent.Store(on) }

// Concurrent reports whether the mode is on.
func Concurrent() bool { return concurrent.Load() }

const (
	// goroutines is the most goroutines one loop is spread over.
	goroutines = 8
	// maxThreads bounds the threads of a loop; with more iterations, each
	// thread strides over several, as on a GPU.
	maxThreads = 1 << 14
	// unknownThreads is the grid of a loop whose iteration count the host
	// cannot compute (rtimpl.UnknownCount).
	unknownThreads = 64
)

// UnknownCount marks a parallel task whose iteration count the host
// cannot compute; rtimpl.UnknownCount is this value.
const UnknownCount = math.MinInt64

// Run runs kernel k on the CPU: counts and args are what a GPU launch
// takes (each parallel task's iteration count, and the packed arguments of
// ir.Kernel.ArgSlots), and bufs holds the memory of each slice parameter,
// in the order of the parameters. With blocks, the qd.StreamParallel
// blocks of a group run as goroutines too, in random order.
func Run(k *ir.Kernel, counts []int64, args []byte, bufs []Buffer, blocks bool) error {
	vals, regions, err := values(k, args, bufs)
	if err != nil {
		return err
	}
	r := &run{k: k, vals: vals, regions: regions, counts: counts}
	if k.Reductions > 0 {
		// Each thread is a block of its own: scratch memory holds a
		// partial result per thread, for every goroutine to read.
		b := make([]byte, k.ScratchFixed()+maxThreads*k.ScratchPerBlock())
		r.regions = append(r.regions, region{data: unsafe.Pointer(&b[0]), size: uint64(len(b)), own: b})
		r.scratch = uint64(len(r.regions)) << regionShift
	}
	for i := 0; i < len(k.Tasks); {
		j := i + 1
		for j < len(k.Tasks) && k.Tasks[i].Group != 0 && k.Tasks[j].Group == k.Tasks[i].Group {
			j++
		}
		if err := r.group(i, j, blocks); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// run is the state of one kernel run, which its goroutines only read.
type run struct {
	k       *ir.Kernel
	vals    *ir.Values
	regions []region
	counts  []int64
	scratch uint64 // the address of the region of scratch memory
}

// group runs tasks [i, j): one task, or the tasks of a stream-parallel
// group, whose blocks run concurrently when blocks is set.
func (r *run) group(i, j int, blocks bool) error {
	var chains [][]int
	for t := i; t < j; t++ {
		if t == i || blocks && r.k.Tasks[t].StreamBlock != r.k.Tasks[t-1].StreamBlock {
			chains = append(chains, nil)
		}
		chains[len(chains)-1] = append(chains[len(chains)-1], t)
	}
	if len(chains) == 1 {
		return r.chain(chains[0])
	}
	rand.Shuffle(len(chains), func(a, b int) { chains[a], chains[b] = chains[b], chains[a] })
	return parallel(len(chains), func(c int) error { return r.chain(chains[c]) })
}

// chain runs tasks one after the other.
func (r *run) chain(tasks []int) error {
	for _, t := range tasks {
		if err := r.task(t); err != nil {
			return err
		}
	}
	return nil
}

// task runs task t: a serial task on one thread, a parallel one on
// threads shuffled over goroutines.
func (r *run) task(t int) error {
	task := r.k.Tasks[t]
	if task.Kind == ir.Serial {
		return r.threads(task, []int64{0}, 1)
	}
	if task.Kind == ir.BlockLevel {
		return r.blocks(t)
	}
	threads := int64(unknownThreads)
	if c := r.counts[t]; c != UnknownCount {
		if c <= 0 {
			return nil // not launched, as on a GPU
		}
		threads = min(c, maxThreads)
	}
	ids := make([]int64, threads)
	for i := range ids {
		ids[i] = int64(i)
	}
	rand.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
	n := min(len(ids), goroutines)
	return parallel(n, func(g int) error {
		return r.threads(task, ids[g*len(ids)/n:(g+1)*len(ids)/n], threads)
	})
}

// threads runs the threads ids of a grid of count threads, on an
// interpreter and a memory of their own.
func (r *run) threads(task *ir.Task, ids []int64, count int64) error {
	ip := &ir.Interp{Mem: &memory{regions: r.regions}, Scratch: r.scratch}
	for _, id := range ids {
		if err := ip.RunThread(r.k, task, r.vals, id, count); err != nil {
			return fmt.Errorf("%s, thread %d: %w", task.Name, id, err)
		}
	}
	return nil
}

// parallel runs f(0), ..., f(n-1) as goroutines and returns the first
// error; a panic in one is returned as an error.
func parallel(n int, f func(int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					errs[i] = fmt.Errorf("panic: %v", v)
				}
			}()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// values decodes the packed arguments and gives each slice parameter an
// address in its own region of memory.
func values(k *ir.Kernel, args []byte, bufs []Buffer) (*ir.Values, []region, error) {
	n := len(k.Params)
	vals := &ir.Values{Scalar: make([]uint64, n), Base: make([]uint64, n), Len: make([]int64, n)}
	var regions []region
	slots, size := k.ArgSlots()
	if len(args) != size {
		return nil, nil, fmt.Errorf("kernel %s: %d bytes of arguments, want %d", k.Name, len(args), size)
	}
	for _, s := range slots {
		if s.Param < 0 {
			continue // the runtime's own: the interpreter has its scratch memory and faults
		}
		p := k.Params[s.Param]
		switch s.Part {
		case ir.SlotValue:
			vals.Scalar[s.Param] = s.Type.Normalize(readBits(args[s.Offset:], s.Type.Size()))
		case ir.SlotLen:
			vals.Len[s.Param] = int64(binary.LittleEndian.Uint64(args[s.Offset:]))
		case ir.SlotBase:
			if len(regions) >= len(bufs) {
				return nil, nil, fmt.Errorf("kernel %s: %d buffers for more slice parameters", k.Name, len(bufs))
			}
			b := bufs[len(regions)]
			regions = append(regions, region{data: b.Data, size: uint64(b.Len) * uint64(p.ElemBytes()), name: p.Name})
			vals.Base[s.Param] = uint64(len(regions)) << regionShift
		}
	}
	if len(regions) != len(bufs) {
		return nil, nil, fmt.Errorf("kernel %s: %d buffers for %d slice parameters", k.Name, len(bufs), len(regions))
	}
	return vals, regions, nil
}

func readBits(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}
