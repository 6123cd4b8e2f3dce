// Package ir defines the backend-neutral kernel IR that package lower
// produces from go/ssa and that the emitters (emit/ptx, emit/hip) translate
// into device code.
//
// A Kernel is a list of Tasks launched in order. Each Task is a small
// control-flow graph of Blocks over typed virtual registers; it is not in SSA
// form: phis have already been replaced by moves at the ends of predecessor
// blocks, with critical edges split. A parallel task runs on many GPU threads;
// its body reads ThreadIndex and ThreadCount and strides over its iteration
// space itself, so emitters need no notion of loops.
//
// Every instruction has a printed form, shown in the comments of the Op
// constants; Kernel.String prints a whole kernel and Parse reads it back, so
// golden files of that text test the lowering, each pass and the emitters.
// The facts about each op (its types, operands, memory effect and more) are
// rows of one table, in ops.go.
//
// Memory has three spaces (memory.go): global memory holds the slices a
// kernel is passed and its constant tables (Kernel.Data, "dataaddr");
// a task declares shared memory, one copy per block of threads, and local
// memory, one copy per thread, as variables (Task.Vars, "addr"). An address
// stays in the space it came from, and loads and stores name that space.
//
// Device functions. Helpers are inlined while they are small; a helper
// whose inlined code would grow past a budget becomes a function of the
// kernel, one of Kernel.Funcs, which tasks and other functions call with
// OpCall. A function is a Task of kind Function: the same registers and
// blocks, never launched. On entry its registers Params hold the
// arguments; when it returns, its registers Results hold the results. A
// call copies its operands into the callee's Params, runs the callee with
// registers of its own, and copies the callee's Results into the call's
// Results registers: "r5, r6 = call K$divmod(r1, r2)". Functions are
// listed before their callers and never recurse, so each emitter writes
// them in order (PTX .func with .param arguments, HIP static __device__
// functions with their results through pointers) and may inline them if
// it likes. A call's effects on memory are those of its callee. Addresses
// passed to a function point into global memory, which its loads and
// stores name; a call that would pass another space's is inlined instead.
package ir

import (
	"fmt"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reg names a virtual register of a Task. Its type is Task.Regs[reg].
type Reg int32

// NoReg marks an instruction without a result.
const NoReg Reg = -1

// Op is an instruction's operation. Its properties are its row of the op
// table (Op.Info).
type Op uint8

const (
	OpInvalid Op = iota

	// OpConst loads an immediate: "r1 = const.i64 42".
	OpConst
	// OpParam reads a scalar kernel parameter: "r1 = param.f32 a".
	OpParam
	// OpParamBase reads the device address of a slice parameter: "r1 = base x".
	OpParamBase
	// OpParamLen reads the length of a slice parameter: "r1 = len x".
	OpParamLen
	// OpThreadIndex is the linear index of the executing thread in the
	// launch grid, as i64: "r1 = threadindex".
	OpThreadIndex
	// OpThreadCount is the number of threads in the launch grid, as i64:
	// "r1 = threadcount".
	OpThreadCount

	// OpMove copies a register or immediate: "r2 = move.i64 r1".
	OpMove

	// OpNeg is arithmetic negation with wraparound: "r2 = neg.i32 r1".
	OpNeg
	// OpNot is bitwise complement for integers, logical not for bool:
	// "r2 = not.u8 r1".
	OpNot

	// Binary arithmetic with Go's semantics: integer wraparound, truncated
	// division and remainder (x / -1 wraps, never traps), IEEE floats with
	// round-to-nearest and no contraction. "r3 = add.f32 r1, r2". And, or
	// and xor also combine bools: "r3 = and.bool r1, r2".
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpRem
	OpAnd
	OpOr
	OpXor
	OpAndNot

	// Shifts take the value's type in Type and the count's type in From.
	// A count at or above the width gives 0 (or the sign fill for a signed
	// right shift); counts are read as unsigned. "r3 = shl.i64.u32 r1, r2".
	OpShl
	OpShr

	// OpMulHi is the high half of the double-width product of two integers,
	// signed or unsigned by Type: "r3 = mulhi.u64 r1, r2".
	OpMulHi

	// Comparisons compare operands of Type and give bool: "r3 = lt.f64 r1, r2".
	// Float comparisons are ordered except ne, which is true for NaN.
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe

	// OpConvert converts between numeric types, to Type from From, with Go's
	// semantics: "r2 = convert.f32.i64 r1".
	OpConvert

	// OpMin and OpMax are Go's min and max builtins on two operands,
	// including NaN propagation and the ordering -0 < +0 for floats:
	// "r3 = min.f32 r1, r2".
	OpMin
	OpMax

	// Float intrinsics with the results of package math: "r2 = sqrt.f64 r1".
	OpSqrt
	OpAbs
	OpFloor
	OpCeil
	OpTrunc
	// OpRoundEven rounds to the nearest integer, ties to even, as
	// math.RoundToEven: "r2 = roundeven.f64 r1".
	OpRoundEven
	// OpFMA is x*y+z rounded once, as math.FMA does for float64: "r4 =
	// fma.f64 r1, r2, r3". Fusing kernels (Kernel.FMA) use it for float32
	// too.
	OpFMA

	// OpBitcast reinterprets the bits of a value of type From as a value of
	// Type, of the same size, as math.Float64bits and Float64frombits do:
	// "r2 = bitcast.u64.f64 r1".
	OpBitcast

	// Bit counts and permutations of unsigned integers, with the results of
	// package math/bits: the number of one bits, of leading and trailing
	// zero bits (the width for 0), the bits and the bytes in reverse order.
	// "r2 = popcount.u32 r1", "r2 = bswap.u64 r1".
	OpPopCount
	OpLeadingZeros
	OpTrailingZeros
	OpBitReverse
	OpByteSwap

	// OpElemAddr is the address of element index of the array at base, whose
	// elements are Aux bytes wide: "r3 = elemaddr r1, r2, 4". The index is i64.
	OpElemAddr
	// OpLoad reads device memory: "r2 = load.f32 r1". A bool is one byte in
	// memory, 0 or 1, as in Go.
	OpLoad
	// OpStore writes device memory; it has no result: "store.f32 r1, r2".
	OpStore

	// OpCall calls the function Kernel.Funcs[Aux] with the operands as its
	// arguments and writes its results into the registers Results:
	// "r3, r4 = call K$divmod(r1, 7)".
	OpCall

	// OpAddr is the address of the task's variable number Aux (Task.Vars),
	// in the variable's space: "r1 = addr acc".
	OpAddr
	// OpDataAddr is the address of the kernel's constant table number Aux
	// (Kernel.Data), in global memory: "r1 = dataaddr gauss5".
	OpDataAddr
	// OpBarrier waits until every thread of the thread's block has reached
	// it, and makes their earlier writes to shared memory visible: "barrier".
	// Threads that have ended are not waited for.
	OpBarrier

	// The place of a thread in its block and grid, as i64, for the code
	// that combines the work of a block's threads (reductions). The block
	// index: "r1 = blockindex"; the number of blocks in the grid: "r1 =
	// blockcount"; the thread's index in its block: "r1 = blockthread"; the
	// number of threads in a block: "r1 = blocksize".
	OpBlockIndex
	OpBlockCount
	OpBlockThread
	OpBlockSize
	// A block's threads run in warps (waves on AMD GPUs) of warpsize
	// threads, which the GPU fixes: 32 on NVIDIA's, 64 on AMD's data-centre
	// GPUs. The thread's index in its warp: "r1 = lane"; its warp's index
	// in the block: "r1 = warpindex"; the warp size: "r1 = warpsize".
	OpLane
	OpWarpIndex
	OpWarpSize
	// OpShuffleDown reads operand 0 as the thread delta lanes above in the
	// same warp holds it, or its own value when there is no such lane:
	// "r3 = shuffledown.f32 r1, r2", delta an i64. Every thread of the warp
	// that has not ended must execute it together; a thread that has ended
	// gives an unspecified value.
	OpShuffleDown
	// OpShuffleUp is OpShuffleDown from the lane delta below: "r3 =
	// shuffleup.i32 r1, r2"; a lane with none below keeps its own value.
	OpShuffleUp

	// OpScratch is the address of the launch's scratch memory in global
	// memory, where reductions keep their partial and final results:
	// "r1 = scratch", laid out as fault.go says.
	OpScratch

	// Checks end the thread with a fault, recording it, when their
	// condition fails; Aux is the fault site (Kernel.Sites). OpCheckIndex
	// needs x < y and OpCheckSlice x <= y, both i64 compared as unsigned,
	// so that a negative x fails: "checkindex r1, r2, site 0". OpCheckDivide
	// needs a non-zero divisor: "checkdiv.i32 r1, site 1"; with 0 it always
	// fails, as a panic of math/bits (a site of kind overflow) does.
	OpCheckIndex
	OpCheckSlice
	OpCheckDivide
	// Atomic operations on the element at the address, each one indivisible
	// step that concurrent threads never see half done; AtomicUpdate in
	// eval.go defines what each writes. All but atomstore give the
	// element's old value.
	//
	// OpAtomicAdd adds the operand: "r3 = atomadd.u32 r1, r2".
	OpAtomicAdd
	// OpAtomicMin and OpAtomicMax store Go's min or max of the element and
	// the operand: "r3 = atommax.f64 r1, r2".
	OpAtomicMin
	OpAtomicMax
	// OpAtomicAnd and OpAtomicOr combine the element with a mask:
	// "r3 = atomor.u64 r1, r2".
	OpAtomicAnd
	OpAtomicOr
	// OpAtomicSwap stores the operand: "r3 = atomswap.i32 r1, r2".
	OpAtomicSwap
	// OpAtomicCAS stores its third operand if the element equals its second:
	// "r4 = atomcas.i64 r1, r2, r3".
	OpAtomicCAS
	// OpAtomicLoad reads the element: "r2 = atomload.u32 r1".
	OpAtomicLoad
	// OpAtomicStore writes the element; it has no result: "atomstore.u32 r1, r2".
	OpAtomicStore

	// OpPrint writes the kernel's format Kernel.Prints[Aux] with its
	// operands, as device printf does, one whole line per thread whose
	// order among threads is not defined: "print r1, r2, format 0". Its
	// operands have the format's types and stay registers, as a call's do.
	OpPrint

	numOps
)

// Arg is an instruction operand: a register, or an immediate whose bits are
// normalized to the operand's type (see Type.Normalize).
type Arg struct {
	Reg  Reg
	Imm  bool
	Bits uint64
}

// R makes a register operand.
func R(r Reg) Arg { return Arg{Reg: r} }

// Imm makes an immediate operand of type t.
func Imm(t Type, bits uint64) Arg { return Arg{Reg: NoReg, Imm: true, Bits: t.Normalize(bits)} }

// Instr is one three-address instruction.
type Instr struct {
	Op   Op
	Type Type // the operation's type; see each Op for its meaning
	From Type // the source type of a conversion, the count type of a shift
	Dst  Reg  // NoReg when the instruction has no result
	Args []Arg
	Aux  int64 // parameter index, element size, variable, table, site or function index
	// Space is the memory the address operand of a load, store or atomic
	// points into; it is printed after the op name unless it is Global:
	// "r2 = load.shared.f32 r1".
	Space Space
	Pos   token.Pos
	// Results are the registers a call writes, one per result of its
	// callee; Dst is NoReg. Other ops have none.
	Results []Reg
}

// Defs lists the registers the instruction writes: its Dst, or a call's
// Results.
func (in *Instr) Defs() []Reg {
	if in.Op == OpCall {
		return in.Results
	}
	if in.Dst == NoReg {
		return nil
	}
	return []Reg{in.Dst}
}

// TermKind is the kind of a block terminator.
type TermKind uint8

const (
	// Return ends the thread: "return".
	Return TermKind = iota
	// Jump continues at Succs[0]: "jump b3".
	Jump
	// Branch continues at Succs[0] if Cond is true, else at Succs[1]:
	// "branch r4, b1, b2".
	Branch
)

// Term ends a block.
type Term struct {
	Kind  TermKind
	Cond  Arg // for Branch, a bool
	Succs [2]int
}

// Successors lists the indices of the blocks control may pass to.
func (t *Term) Successors() []int {
	switch t.Kind {
	case Jump:
		return t.Succs[:1]
	case Branch:
		return t.Succs[:2]
	}
	return nil
}

// Block is a basic block: straight-line instructions and a terminator.
type Block struct {
	Index   int    // position in Task.Blocks
	Comment string // for people reading dumps; never has meaning
	// Checked marks the blocks of a loop's copy that keeps the checks
	// opt.HoistChecks took out of the loop itself: the copy runs only
	// where one of them could fail, to fault as Go does. Copies of a
	// block keep the mark.
	Checked bool
	// Fallback, on the header of a loop that HoistChecks versioned, is
	// the header of that copy, which the test before the loop enters when
	// a check could fail; 0 when there is none (the entry block heads no
	// loop).
	Fallback int
	Instrs   []Instr
	Term     Term
}

// TaskKind says how a task is launched.
type TaskKind uint8

const (
	// Serial tasks run on a single thread.
	Serial TaskKind = iota
	// Parallel tasks run on a grid of threads that share the iterations of
	// one top-level loop, each thread striding by ThreadCount.
	Parallel
	// Function tasks are device functions that other tasks call (OpCall);
	// they are never launched. They are the kernel's Funcs.
	Function
	// BlockLevel tasks run a kernel's qd.Blocks loop: a grid of blocks of
	// Task.Threads threads each, which stride over the loop's iterations
	// one block at a time, so that the threads of a block share its
	// shared variables and wait for each other at barriers.
	BlockLevel
)

func (k TaskKind) String() string {
	switch k {
	case Parallel:
		return "parallel"
	case Function:
		return "func"
	case BlockLevel:
		return "blocks"
	}
	return "serial"
}

// Task is one GPU launch of a kernel.
type Task struct {
	Name string // the entry point's symbol name
	Kind TaskKind
	// Count is the iteration count of a parallel task, as a pure expression
	// of the kernel's parameters, when the host can compute it before the
	// launch to size the grid; nil otherwise.
	Count *Expr
	// Stream-parallel placement: tasks with StreamBlock > 0 belong to the
	// qd.StreamParallel block of that number; consecutive blocks of one Group
	// run concurrently. StreamBlock 0 runs on the launching stream.
	StreamBlock int
	Group       int
	// MaxRegs, when not 0, is the most registers a thread of the task may
	// use, so that a multiprocessor holds as many of its threads as it can.
	MaxRegs int
	// Threads is the number of threads in each block of a BlockLevel
	// task, which its code is written for; its Count is then its number
	// of blocks (iterations of its qd.Blocks loop).
	Threads int
	Pos     token.Pos // the loop or first statement the task comes from
	Regs    []Type    // the type of each register
	Vars    []Var     // the task's local and shared memory
	Blocks  []*Block  // Blocks[0] is the entry
	// A function's registers that hold its arguments on entry and its
	// results when it returns.
	Params, Results []Reg
	// Uneven marks a parallel task whose iterations may take very
	// different times: one holding a loop that leaves on a value it
	// computes, such as an escape-time fractal's. The runtime gives it a
	// thread an iteration, not a few waves of threads striding over them,
	// so that multiprocessors take new blocks as their slow ones finish.
	Uneven bool
}

// NewReg adds a register of type t.
func (t *Task) NewReg(typ Type) Reg {
	t.Regs = append(t.Regs, typ)
	return Reg(len(t.Regs) - 1)
}

// NewBlock appends an empty block.
func (t *Task) NewBlock(comment string) *Block {
	b := &Block{Index: len(t.Blocks), Comment: comment}
	t.Blocks = append(t.Blocks, b)
	return b
}

// Param is a kernel parameter.
type Param struct {
	Name  string
	Slice bool // a slice of Type, passed as device address and length
	Type  Type // the scalar type, or the slice's element type
	// ElemSize is the size in bytes of the elements of a slice of structs,
	// arrays or complex numbers, whose Type is Invalid: "ps []24".
	ElemSize int
}

// String writes p as the IR does: "a []f32", "ps []24", "n i64".
func (p *Param) String() string {
	switch {
	case p.Slice && p.Type == Invalid:
		return fmt.Sprintf("%s []%d", p.Name, p.ElemSize)
	case p.Slice:
		return fmt.Sprintf("%s []%s", p.Name, p.Type)
	}
	return fmt.Sprintf("%s %s", p.Name, p.Type)
}

// ElemBytes is the size in bytes of the elements of a slice parameter.
func (p *Param) ElemBytes() int {
	if p.Type == Invalid {
		return p.ElemSize
	}
	return p.Type.Size()
}

// Kernel is a lowered //qd:kernel function.
type Kernel struct {
	Name   string
	Params []Param
	Tasks  []*Task
	Pos    token.Pos
	// Conflicts lists pairs of slice parameters that blocks of one
	// stream-parallel group would race through if they overlapped in
	// memory; launches check that they do not.
	Conflicts [][2]int
	// Groups holds the number of qd.StreamParallel blocks of each group,
	// in order, counting blocks whose tasks were all removed.
	Groups []int
	// Data holds the constant tables the kernel's tasks read.
	Data []Data
	// Sites are the places in the source where a check may fail, which
	// checks name by index (fault.go).
	Sites []Site
	// Reductions is the number of reduction results the kernel's tasks
	// keep in scratch memory.
	Reductions int
	// Funcs are the device functions the tasks call, each listed after
	// the functions it calls.
	Funcs []*Task
	// Prints are the formats the kernel's print instructions write.
	Prints []Print
	// FMA marks a kernel whose float multiplies and adds may be fused into
	// one rounding (//qd:kernel fma), as the Go specification allows: its
	// results may then differ from Go's on amd64 in the last bits. The
	// lowering rounds a product an explicit conversion rounds with a
	// convert of the same type (convert.f64.f64), which no fusion crosses.
	FMA bool
	// Source resolves the positions of the kernel's code (Instr.Pos) to
	// files and lines for device code's line information (lines.go); nil
	// for a kernel read from text, whose code has no positions.
	Source *token.FileSet
}

// Bodies returns the kernel's functions and tasks, everything with code:
// what a pass over every body of code visits.
func (k *Kernel) Bodies() []*Task {
	return append(k.Funcs[:len(k.Funcs):len(k.Funcs)], k.Tasks...)
}

// Symbol returns name as a symbol of device code: ASCII letters, digits
// and _ are kept, and every other character becomes $ followed by its code
// point in six hex digits. Go names have no $, so distinct names give
// distinct symbols, which every assembler accepts.
func Symbol(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "$%06x", r)
		}
	}
	return b.String()
}

// TaskName is the name of the kernel's task number i, its entry point's
// symbol.
func (k *Kernel) TaskName(i int) string { return fmt.Sprintf("%s_%d", Symbol(k.Name), i) }
