package ir

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Memory is the device memory seen by the interpreter.
type Memory interface {
	Load(addr uint64, t Type) (uint64, error)
	Store(addr uint64, t Type, bits uint64) error
	// Alloc returns the address of n bytes of new zeroed memory, for the
	// interpreter's own use: task variables and constant tables.
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
type Interp struct {
	Mem Memory
	// Threads is the grid size used for parallel tasks. Small grids make
	// every thread stride over several iterations.
	Threads int
	// StepLimit bounds the instructions one thread may execute; 0 means 1<<32.
	StepLimit int64

	mu     sync.Mutex
	data   map[*Kernel][]uint64 // the addresses of each kernel's tables
	shared map[*Task][]uint64   // the addresses of each task's shared variables
}

// ErrBarrier is returned for a barrier among several threads: the
// interpreter runs one thread after another, so none could wait for the
// others.
var ErrBarrier = errors.New("barrier among several threads: the interpreter runs threads one after another")

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

// varAddrs returns the addresses of t's variables for one thread: its own
// local ones, and the shared ones all threads of the run share.
func (ip *Interp) varAddrs(t *Task) []uint64 {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	shared, ok := ip.shared[t]
	if !ok {
		shared = make([]uint64, len(t.Vars))
		for i, v := range t.Vars {
			if v.Space == Shared {
				shared[i] = ip.Mem.Alloc(v.Size)
			}
		}
		if ip.shared == nil {
			ip.shared = make(map[*Task][]uint64)
		}
		ip.shared[t] = shared
	}
	addrs := make([]uint64, len(t.Vars))
	for i, v := range t.Vars {
		if v.Space == Local {
			addrs[i] = ip.Mem.Alloc(v.Size)
		} else {
			addrs[i] = shared[i]
		}
	}
	return addrs
}

// Run executes every task of k in order.
func (ip *Interp) Run(k *Kernel, args *Values) error {
	for _, t := range k.Tasks {
		threads := 1
		if t.Kind == Parallel {
			threads = max(ip.Threads, 1)
		}
		for tid := range threads {
			if err := ip.RunThread(k, t, args, int64(tid), int64(threads)); err != nil {
				return fmt.Errorf("task %s, thread %d: %w", t.Name, tid, err)
			}
		}
	}
	return nil
}

// RunThread executes task t as the thread tid of a grid of count threads.
func (ip *Interp) RunThread(k *Kernel, t *Task, args *Values, tid, count int64) error {
	regs := make([]uint64, len(t.Regs))
	limit := ip.StepLimit
	if limit == 0 {
		limit = 1 << 32
	}
	val := func(a Arg) uint64 {
		if a.Imm {
			return a.Bits
		}
		return regs[a.Reg]
	}
	data, err := ip.dataAddrs(k)
	if err != nil {
		return err
	}
	vars := ip.varAddrs(t)
	var ops [3]uint64 // the most operands an op has (fma)
	b := t.Blocks[0]
	for steps := int64(0); ; {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			if steps++; steps > limit {
				return ErrStepLimit
			}
			var r uint64
			var err error
			switch in.Op {
			case OpParam:
				r = in.Type.Normalize(args.Scalar[in.Aux])
			case OpParamBase:
				r = args.Base[in.Aux]
			case OpParamLen:
				r = uint64(args.Len[in.Aux])
			case OpThreadIndex:
				r = uint64(tid)
			case OpThreadCount:
				r = uint64(count)
			case OpAddr:
				r = vars[in.Aux]
			case OpDataAddr:
				r = data[in.Aux]
			case OpBarrier:
				if count > 1 {
					err = ErrBarrier
				}
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
				return fmt.Errorf("%s: %w", k.FormatInstr(t, in), err)
			}
			if in.Dst != NoReg {
				regs[in.Dst] = r
			}
		}
		switch b.Term.Kind {
		case Return:
			return nil
		case Jump:
			b = t.Blocks[b.Term.Succs[0]]
		case Branch:
			if val(b.Term.Cond) != 0 {
				b = t.Blocks[b.Term.Succs[0]]
			} else {
				b = t.Blocks[b.Term.Succs[1]]
			}
		}
	}
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
