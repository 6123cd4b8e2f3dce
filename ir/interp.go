package ir

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
)

// Memory is the device memory seen by the interpreter.
type Memory interface {
	Load(addr uint64, t Type) (uint64, error)
	Store(addr uint64, t Type, bits uint64) error
	// Alloc returns the address of n bytes of new zeroed memory, for the
	// interpreter's own use: task variables, constant tables and scratch
	// memory.
	Alloc(n int) uint64
	// Atomic replaces the element of type t at addr by what update makes of
	// its old bits, when update says to write, as one indivisible step, and
	// returns the old bits.
	Atomic(addr uint64, t Type, update func(old uint64) (uint64, bool)) (uint64, error)
}

// Values are the arguments of one kernel run, indexed by parameter: Scalar
// holds a scalar parameter's normalized bits; Base and Len describe a slice.
type Values struct {
	Scalar []uint64
	Base   []uint64
	Len    []int64
}

// ErrStepLimit is returned when a thread runs longer than the interpreter's
// step limit, which catches lowering bugs that loop forever.
var ErrStepLimit = errors.New("step limit reached")

// Interp runs kernels instruction by instruction. It is the oracle for the
// lowering: a kernel interpreted here must compute what the Go function
// computes, before any emitter is involved.
//
// A parallel task runs on a grid of Threads threads in blocks of BlockSize,
// one block after another. The threads of a block take turns, each running
// until it reaches a barrier or a shuffle, where it waits for the others as
// a GPU's would; shared variables are per block.
type Interp struct {
	Mem Memory
	// Threads is the grid size used for parallel tasks. Small grids make
	// every thread stride over several iterations.
	Threads int
	// BlockSize is the number of threads per block; 0 means one block of
	// Threads threads, or blocks of 256 when there are more than 1024.
	BlockSize int
	// WarpSize is the number of threads that shuffle values among
	// themselves; 0 means 32.
	WarpSize int
	// StepLimit bounds the instructions one thread may execute; 0 means 1<<32.
	StepLimit int64
	// Scratch is the address of scratch memory for kernels with
	// reductions, which interpreters running parts of one launch share;
	// when 0, each Run and RunThread allocates its own.
	Scratch uint64
	// ConcurrentThreads runs the threads of a block as goroutines between
	// barriers, for the race detector to see what two of them touch.
	ConcurrentThreads bool
	// Out receives what print instructions write, a whole print at a
	// time; nil means os.Stdout, where device printf writes.
	Out io.Writer
	// Visit, when not nil, is called each time a thread of task t begins
	// block b, for tests that must know which version of a loop ran (the
	// checked or the unchecked, the 64-bit or the 32-bit). With
	// ConcurrentThreads it is called from several goroutines at once.
	Visit func(t *Task, b *Block)

	mu   sync.Mutex
	data map[*Kernel][]uint64 // the addresses of each kernel's tables
}

// dataAddrs returns the addresses of k's constant tables, copying them into
// memory the first time.
func (ip *Interp) dataAddrs(k *Kernel) ([]uint64, error) {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	if addrs, ok := ip.data[k]; ok {
		return addrs, nil
	}
	addrs := make([]uint64, len(k.Data))
	for i, d := range k.Data {
		addrs[i] = ip.Mem.Alloc(len(d.Bytes))
		for j, c := range d.Bytes {
			if err := ip.Mem.Store(addrs[i]+uint64(j), Uint8, uint64(c)); err != nil {
				return nil, err
			}
		}
	}
	if ip.data == nil {
		ip.data = make(map[*Kernel][]uint64)
	}
	ip.data[k] = addrs
	return addrs, nil
}

// geometry returns the grid of a task: its number of blocks and threads
// per block.
func (ip *Interp) geometry(t *Task) (blocks, size int) {
	if t.Kind == BlockLevel {
		// The task's code strides over its blocks: any grid runs it.
		return max(ip.Threads/max(t.Threads, 1), 1), t.Threads
	}
	if t.Kind != Parallel {
		return 1, 1
	}
	threads := max(ip.Threads, 1)
	size = ip.BlockSize
	switch {
	case size > 0:
	case threads <= 1024:
		size = threads
	default:
		size = 256
	}
	return (threads + size - 1) / size, size
}

// launch is what the threads of one run of a kernel share.
type launch struct {
	k       *Kernel
	args    *Values
	data    []uint64
	scratch uint64
	mu      sync.Mutex // guards fault
	fault   *Fault
}

// Run executes every task of k in order. A check that fails ends its
// thread, as on a GPU; the task's other threads finish, and Run returns
// the first fault, a *Fault, without running the tasks after it.
func (ip *Interp) Run(k *Kernel, args *Values) error {
	data, err := ip.dataAddrs(k)
	if err != nil {
		return err
	}
	run := &launch{k: k, args: args, data: data, scratch: ip.Scratch}
	if k.Reductions > 0 && run.scratch == 0 {
		most := 1
		for _, t := range k.Tasks {
			blocks, _ := ip.geometry(t)
			most = max(most, blocks)
		}
		run.scratch = ip.Mem.Alloc(k.ScratchFixed() + most*k.ScratchPerBlock())
	}
	for _, t := range k.Tasks {
		blocks, size := ip.geometry(t)
		for b := range blocks {
			if err := ip.runBlock(run, t, b, blocks, size); err != nil {
				return fmt.Errorf("task %s, block %d: %w", t.Name, b, err)
			}
		}
		if run.fault != nil {
			return run.fault
		}
	}
	return nil
}

// RunThread executes task t as the thread tid of a grid of count threads,
// each a block of its own. A failed check ends the thread and is returned
// as a *Fault.
func (ip *Interp) RunThread(k *Kernel, t *Task, args *Values, tid, count int64) error {
	data, err := ip.dataAddrs(k)
	if err != nil {
		return err
	}
	run := &launch{k: k, args: args, data: data, scratch: ip.Scratch}
	if k.Reductions > 0 && run.scratch == 0 {
		run.scratch = ip.Mem.Alloc(k.ScratchFixed() + int(count)*k.ScratchPerBlock())
	}
	if err := ip.runBlock(run, t, int(tid), int(count), 1); err != nil {
		return err
	}
	if run.fault != nil {
		return run.fault
	}
	return nil
}

// RunBlock executes block b of a grid of blocks of a BlockLevel task t,
// its threads taking turns between barriers as Run's do, or running at
// the same time when ConcurrentThreads is set. A failed check ends its
// thread and is returned as a *Fault.
func (ip *Interp) RunBlock(k *Kernel, t *Task, args *Values, b, blocks int64) error {
	data, err := ip.dataAddrs(k)
	if err != nil {
		return err
	}
	run := &launch{k: k, args: args, data: data, scratch: ip.Scratch}
	if err := ip.runBlock(run, t, int(b), int(blocks), t.Threads); err != nil {
		return err
	}
	if run.fault != nil {
		return run.fault
	}
	return nil
}

// threadState says whether a thread runs, waits for its block or warp, or
// has ended.
type threadState uint8

const (
	running threadState = iota
	atBarrier
	atShuffle
	ended
)

// thread is one thread of a block.
type thread struct {
	regs   []uint64
	vars   []uint64
	b      *Block
	i      int // the next instruction of b
	steps  int64
	state  threadState
	failed bool // ended by a failed check
	// Where the thread is in the grid.
	index, count, block, blocks, inBlock, blockSize int64
	// At a shuffle: the value it offers and the lane it reads, from below
	// where negative.
	offer uint64
	from  int64
}

// sharedJunk is what every byte of a block's shared memory holds when the
// block starts: a GPU's is left over from other blocks, not zeroed, and
// a kernel that reads an element before writing it must show it.
const sharedJunk = 0xa5

// runBlock runs block b of a grid of blocks, of size threads each.
func (ip *Interp) runBlock(run *launch, t *Task, b, blocks, size int) error {
	threads := make([]*thread, size)
	vars := make([]uint64, len(t.Vars))
	for i, v := range t.Vars {
		if v.Space == Shared {
			vars[i] = ip.Mem.Alloc(v.Size)
			for k := range v.Size {
				_ = ip.Mem.Store(vars[i]+uint64(k), Uint8, sharedJunk) // in the region just made
			}
		}
	}
	for i := range threads {
		th := &thread{regs: make([]uint64, len(t.Regs)), vars: make([]uint64, len(vars)), b: t.Blocks[0],
			index: int64(b*size + i), count: int64(blocks * size), block: int64(b), blocks: int64(blocks),
			inBlock: int64(i), blockSize: int64(size)}
		for j, v := range t.Vars {
			th.vars[j] = vars[j]
			if v.Space == Local {
				th.vars[j] = ip.Mem.Alloc(v.Size)
			}
		}
		threads[i] = th
	}
	warp := int64(ip.WarpSize)
	if warp <= 0 {
		warp = 32
	}
	for {
		if err := ip.step(run, t, threads); err != nil {
			return err
		}
		if done, err := release(threads, warp); done || err != nil {
			return err
		}
	}
}

// step runs each running thread of a block until it ends or waits.
func (ip *Interp) step(run *launch, t *Task, threads []*thread) error {
	if ip.ConcurrentThreads {
		return ip.stepConcurrently(run, t, threads)
	}
	for i, th := range threads {
		if th.state != running {
			continue
		}
		if err := ip.exec(run, t, th); err != nil {
			return fmt.Errorf("thread %d: %w", i, err)
		}
	}
	return nil
}

// stepConcurrently runs step's threads as goroutines.
func (ip *Interp) stepConcurrently(run *launch, t *Task, threads []*thread) error {
	errs := make([]error, len(threads))
	var wg sync.WaitGroup
	for i, th := range threads {
		if th.state != running {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ip.exec(run, t, th); err != nil {
				errs[i] = fmt.Errorf("thread %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// release lets waiting threads go on once every thread they wait for has
// arrived: a warp's threads at a shuffle, or the block's at a barrier. It
// reports whether every thread has ended.
func release(threads []*thread, warp int64) (done bool, err error) {
	live, barrier := 0, 0
	for _, th := range threads {
		switch th.state {
		case atBarrier:
			barrier++
			live++
		case atShuffle:
			live++
		}
	}
	if live == 0 {
		return true, nil
	}
	released := false
	for lo := int64(0); lo < int64(len(threads)); lo += warp {
		lanes := threads[lo:min(lo+warp, int64(len(threads)))]
		waiting := true
		for _, th := range lanes {
			waiting = waiting && (th.state == atShuffle || th.state == ended)
		}
		if !waiting {
			continue
		}
		values := make([]uint64, len(lanes))
		for l, th := range lanes {
			values[l] = th.offer
			if src := int64(l) + th.from; th.state == atShuffle && src >= 0 && src < int64(len(lanes)) && lanes[src].state == atShuffle {
				values[l] = lanes[src].offer
			}
		}
		for l, th := range lanes {
			if th.state == atShuffle {
				th.regs[th.b.Instrs[th.i-1].Dst] = values[l]
				th.state = running
				released = true
			}
		}
	}
	switch {
	case released:
	case barrier == live:
		for _, th := range threads {
			if th.state == atBarrier {
				th.state = running
			}
		}
	default:
		return false, errors.New("the threads of a block wait at different synchronizations: some at a barrier, some at a shuffle")
	}
	return false, nil
}

// exec runs th until it ends or waits for other threads.
func (ip *Interp) exec(run *launch, t *Task, th *thread) error {
	limit := ip.StepLimit
	if limit == 0 {
		limit = 1 << 32
	}
	regs := th.regs
	val := func(a Arg) uint64 {
		if a.Imm {
			return a.Bits
		}
		return regs[a.Reg]
	}
	var ops [3]uint64 // the most operands an op has (fma)
	for {
		b := th.b
		if th.i == 0 && ip.Visit != nil {
			ip.Visit(t, b)
		}
		for th.i < len(b.Instrs) {
			in := &b.Instrs[th.i]
			th.i++
			if th.steps++; th.steps > limit {
				return ErrStepLimit
			}
			var r uint64
			var err error
			switch in.Op {
			case OpParam:
				r = in.Type.Normalize(run.args.Scalar[in.Aux])
			case OpParamBase:
				r = run.args.Base[in.Aux]
			case OpParamLen:
				r = uint64(run.args.Len[in.Aux])
			case OpThreadIndex:
				r = uint64(th.index)
			case OpThreadCount:
				r = uint64(th.count)
			case OpBlockIndex:
				r = uint64(th.block)
			case OpBlockCount:
				r = uint64(th.blocks)
			case OpBlockThread:
				r = uint64(th.inBlock)
			case OpBlockSize:
				r = uint64(th.blockSize)
			case OpLane:
				r = uint64(th.inBlock % ip.warp())
			case OpWarpIndex:
				r = uint64(th.inBlock / ip.warp())
			case OpWarpSize:
				r = uint64(ip.warp())
			case OpScratch:
				r = run.scratch
			case OpAddr:
				r = th.vars[in.Aux]
			case OpDataAddr:
				r = run.data[in.Aux]
			case OpBarrier:
				th.state = atBarrier
				return nil
			case OpShuffleDown, OpShuffleUp:
				// A delta past any warp reads no lane.
				th.offer, th.from = in.Type.Normalize(val(in.Args[0])), int64(min(val(in.Args[1]), 1<<31))
				if in.Op == OpShuffleUp {
					th.from = -th.from
				}
				th.state = atShuffle
				return nil
			case OpCheckIndex, OpCheckSlice, OpCheckDivide:
				vs := ops[:len(in.Args)]
				for j, a := range in.Args {
					vs[j] = val(a)
				}
				if failed, x, y := Failed(in, vs); failed {
					run.mu.Lock() // threads may run at the same time (ConcurrentThreads)
					if run.fault == nil {
						run.fault = &Fault{Task: t.Name, Site: run.k.Sites[in.Aux], X: x, Y: y}
					}
					run.mu.Unlock()
					th.state, th.failed = ended, true
					return nil
				}
				continue
			case OpCall:
				var done bool
				if done, err = ip.call(run, th, in, val); done {
					return nil // a check in the callee failed
				}
			case OpPrint:
				err = ip.print(run.k, in, val)
			case OpLoad:
				r, err = ip.Mem.Load(val(in.Args[0]), in.Type)
			case OpStore:
				err = ip.Mem.Store(val(in.Args[0]), in.Type, in.Type.Normalize(val(in.Args[1])))
			default:
				if in.Op.Info().Atomic {
					r, err = ip.atomic(in, val)
					break
				}
				vs := ops[:len(in.Args)]
				for j, a := range in.Args {
					vs[j] = val(a)
				}
				r, err = evalPure(in, vs)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", run.k.FormatInstr(t, in), err)
			}
			if in.Dst != NoReg {
				regs[in.Dst] = r
			}
		}
		switch b.Term.Kind {
		case Return:
			th.state = ended
			return nil
		case Jump:
			th.b = t.Blocks[b.Term.Succs[0]]
		case Branch:
			if val(b.Term.Cond) != 0 {
				th.b = t.Blocks[b.Term.Succs[0]]
			} else {
				th.b = t.Blocks[b.Term.Succs[1]]
			}
		}
		th.i = 0
	}
}

// print writes the format of a print instruction with its operands.
func (ip *Interp) print(k *Kernel, in *Instr, val func(Arg) uint64) error {
	args := make([]uint64, len(in.Args))
	for i, a := range in.Args {
		args[i] = val(a)
	}
	ip.mu.Lock()
	defer ip.mu.Unlock()
	out := ip.Out
	if out == nil {
		out = os.Stdout
	}
	return k.Prints[in.Aux].Write(out, args)
}

// call runs the callee of in to its end, on registers and local variables
// of its own, and puts its results into the call's result registers. It
// reports whether a check in the callee failed, which ends the thread.
func (ip *Interp) call(run *launch, th *thread, in *Instr, val func(Arg) uint64) (bool, error) {
	f := run.k.Callee(in)
	sub := *th
	sub.regs, sub.vars, sub.b, sub.i = make([]uint64, len(f.Regs)), make([]uint64, len(f.Vars)), f.Blocks[0], 0
	for i, v := range f.Vars {
		sub.vars[i] = ip.Mem.Alloc(v.Size) // functions have local memory only
	}
	for i, r := range f.Params {
		sub.regs[r] = val(in.Args[i])
	}
	if err := ip.exec(run, f, &sub); err != nil {
		return false, fmt.Errorf("in %s: %w", f.Name, err)
	}
	th.steps = sub.steps
	switch {
	case sub.state != ended:
		return false, fmt.Errorf("in %s: a device function cannot wait for other threads", f.Name)
	case sub.failed:
		th.state, th.failed = ended, true
		return true, nil
	}
	for i, r := range in.Results {
		th.regs[r] = sub.regs[f.Results[i]]
	}
	return false, nil
}

func (ip *Interp) warp() int64 {
	if ip.WarpSize > 0 {
		return int64(ip.WarpSize)
	}
	return 32
}

// atomic runs an atomic op through the memory's Atomic.
func (ip *Interp) atomic(in *Instr, val func(Arg) uint64) (uint64, error) {
	var ops [2]uint64
	vs := ops[:len(in.Args)-1]
	for j, a := range in.Args[1:] {
		vs[j] = in.Type.Normalize(val(a))
	}
	return ip.Mem.Atomic(val(in.Args[0]), in.Type, func(old uint64) (uint64, bool) {
		return AtomicUpdate(in, old, vs)
	})
}

// Heap is a Memory made of separately allocated regions, so that any access
// outside an allocation is an error rather than silent corruption.
type Heap struct {
	regions [][]byte
}

const regionShift = 40

// Alloc adds a zeroed region of n bytes and returns its base address.
func (h *Heap) Alloc(n int) uint64 {
	h.regions = append(h.regions, make([]byte, n))
	return uint64(len(h.regions)) << regionShift
}

// Bytes returns the storage of the region at base.
func (h *Heap) Bytes(base uint64) []byte {
	return h.regions[(base>>regionShift)-1]
}

func (h *Heap) locate(addr uint64, size int) ([]byte, error) {
	r := int(addr>>regionShift) - 1
	off := addr & (1<<regionShift - 1)
	if r < 0 || r >= len(h.regions) || off+uint64(size) > uint64(len(h.regions[r])) {
		return nil, fmt.Errorf("access of %d bytes at %#x is outside every allocation", size, addr)
	}
	if off%uint64(size) != 0 {
		return nil, fmt.Errorf("misaligned access of %d bytes at %#x", size, addr)
	}
	return h.regions[r][off : off+uint64(size)], nil
}

func (h *Heap) Load(addr uint64, t Type) (uint64, error) {
	b, err := h.locate(addr, t.Size())
	if err != nil {
		return 0, err
	}
	var v uint64
	switch len(b) {
	case 1:
		v = uint64(b[0])
	case 2:
		v = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		v = uint64(binary.LittleEndian.Uint32(b))
	case 8:
		v = binary.LittleEndian.Uint64(b)
	}
	return t.Normalize(v), nil
}

// Atomic updates an element; a Heap is used by one goroutine at a time,
// so a load and a store make one step.
func (h *Heap) Atomic(addr uint64, t Type, update func(uint64) (uint64, bool)) (uint64, error) {
	old, err := h.Load(addr, t)
	if err != nil {
		return 0, err
	}
	if v, write := update(old); write {
		return old, h.Store(addr, t, v)
	}
	return old, nil
}

func (h *Heap) Store(addr uint64, t Type, v uint64) error {
	b, err := h.locate(addr, t.Size())
	if err != nil {
		return err
	}
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	}
	return nil
}

// Bits returns the normalized bits of a Go value of a type the IR supports,
// and its IR type.
func Bits(v any) (uint64, Type) {
	switch v := v.(type) {
	case bool:
		return b2u(v), Bool
	case int8:
		return Int8.Normalize(uint64(v)), Int8
	case int16:
		return Int16.Normalize(uint64(v)), Int16
	case int32:
		return Int32.Normalize(uint64(v)), Int32
	case int64:
		return uint64(v), Int64
	case int:
		return uint64(v), Int64
	case uint8:
		return uint64(v), Uint8
	case uint16:
		return uint64(v), Uint16
	case uint32:
		return uint64(v), Uint32
	case uint64:
		return v, Uint64
	case uint:
		return uint64(v), Uint64
	case uintptr:
		return uint64(v), Uint64
	case float32:
		return uint64(math.Float32bits(v)), Float32
	case float64:
		return math.Float64bits(v), Float64
	}
	return 0, Invalid
}
