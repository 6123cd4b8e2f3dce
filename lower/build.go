package lower

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// taskBuilder builds one ir.Task.
type taskBuilder struct {
	l   *lowerer
	t   *ir.Task
	cur *ir.Block // where instructions go
	// pro is the end of the prologue, the blocks at the task's entry where
	// values defined by earlier top-level statements are computed again.
	pro *ir.Block
	ext map[ssa.Value][]ir.Reg
	// bitsVar is the variable signBit reads floats' bits through, or -1.
	bitsVar int64
	// scratchReg holds the address of scratch memory once it is read.
	scratchReg *ir.Reg
	// at is the position of the Go code being lowered, which the
	// instructions that have none of their own take, for the line
	// information of device code.
	at token.Pos
}

func (l *lowerer) newTaskBuilder(kind ir.TaskKind, pos token.Pos) *taskBuilder {
	t := &ir.Task{Kind: kind, Pos: pos}
	l.taskSerial++
	t.Name = l.k.TaskName(l.taskSerial - 1)
	tb := l.builderFor(t)
	tb.at = pos
	return tb
}

// builderFor makes a builder that fills t, a task or a device function,
// from a new entry block.
func (l *lowerer) builderFor(t *ir.Task) *taskBuilder {
	entry := t.NewBlock("entry")
	return &taskBuilder{l: l, t: t, cur: entry, pro: entry, ext: make(map[ssa.Value][]ir.Reg), bitsVar: -1}
}

func (tb *taskBuilder) emit(in ir.Instr) {
	if in.Dst == 0 && in.ResultType() == ir.Invalid {
		in.Dst = ir.NoReg
	}
	if !in.Pos.IsValid() {
		in.Pos = tb.at
	}
	tb.cur.Instrs = append(tb.cur.Instrs, in)
}

// op emits an instruction with a fresh result register of type rt.
func (tb *taskBuilder) op(op ir.Op, typ ir.Type, args ...ir.Arg) ir.Reg {
	in := ir.Instr{Op: op, Type: typ, Args: args}
	dst := tb.t.NewReg(in.ResultType())
	in.Dst = dst
	tb.emit(in)
	return dst
}

func (tb *taskBuilder) move(dst ir.Reg, src ir.Arg) {
	tb.emit(ir.Instr{Op: ir.OpMove, Type: tb.t.Regs[dst], Dst: dst, Args: []ir.Arg{src}})
}

// convert converts an operand of type from to type to, if they differ.
func (tb *taskBuilder) convert(a ir.Arg, from, to ir.Type) ir.Arg {
	if from == to {
		return a
	}
	if a.Imm {
		in := ir.Instr{Op: ir.OpConvert, Type: to, From: from}
		return ir.Imm(to, evalConst(&in, a.Bits))
	}
	dst := tb.t.NewReg(to)
	tb.emit(ir.Instr{Op: ir.OpConvert, Type: to, From: from, Dst: dst, Args: []ir.Arg{a}})
	return ir.R(dst)
}

// convertInto converts an operand of type from into the register dst, of
// the same type or another.
func (tb *taskBuilder) convertInto(dst ir.Reg, a ir.Arg, from ir.Type) {
	if to := tb.t.Regs[dst]; to != from {
		tb.emit(ir.Instr{Op: ir.OpConvert, Type: to, From: from, Dst: dst, Args: []ir.Arg{a}})
		return
	}
	tb.move(dst, a)
}

// jump ends the current block with a jump to b and continues in b.
func (tb *taskBuilder) jump(b *ir.Block) {
	tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{b.Index}}
	tb.cur = b
}

// frame is one function body being lowered into a task: the kernel body or
// a stream-parallel block, whose blocks may be only partly owned by the
// task, or an inlined helper, owned whole.
type frame struct {
	tb     *taskBuilder
	fn     *ssa.Function
	parent *frame
	// at is the position of the instruction being lowered, where one is
	// known: that of an operand that has none, such as a constant.
	at    token.Pos
	vals  map[ssa.Value][]ir.Reg
	start map[*ssa.BasicBlock]*ir.Block
	owns  func(*ssa.BasicBlock) bool

	// Kernel-body frames: edges the task handles itself (a parallel loop's
	// back edges and exits) and the moves of the values carried along
	// them (its reductions'), the induction phi that has no moves, and
	// the block whose terminator ends the task.
	redirect func(from, to *ssa.BasicBlock) (*ir.Block, bool)
	carried  func(from, to *ssa.BasicBlock) ([]ir.Reg, []ir.Arg)
	// assume gives the successor a test is known to take, where it is.
	assume   func(*ssa.If) (int, bool)
	skipPhis map[*ssa.Phi]bool
	cut      *ssa.BasicBlock         // ends the task before its instruction cutAt
	cutAt    int                     //
	from     map[*ssa.BasicBlock]int // where a block's part of the task starts

	// Inlined helpers: where results go, and where control continues.
	results []ir.Reg
	cont    *ir.Block
	callPos token.Pos
	// tail marks a helper inlined at a tail call; ownParams one whose
	// parameters have registers of their own, which a tail call from
	// inside it may assign (tailcall.go).
	tail      bool
	ownParams bool
	// ended is set when an instruction ended the current block itself;
	// returns when a return of an inlined helper continues at cont.
	ended   bool
	returns bool

	// spills holds the address of the copy in memory of each array value
	// indexed by a variable (locals.go).
	spills map[ssa.Value]ir.Reg

	// Device functions (funcs.go): the frame of the body of a function,
	// whose results go to results before it returns, and the frame of the
	// call that made the function be built.
	isFunc bool
	caller *frame
}

// up is the frame that called f's function: the one it is inlined into,
// or the caller of the device function whose body it is.
func (f *frame) up() *frame {
	if f.parent != nil {
		return f.parent
	}
	return f.caller
}

// newFrame makes a frame for fn that owns the blocks of fn that owns
// accepts. Callers decide by block index, which other functions' blocks
// share: a block of another function (a value of the kernel used in a
// qd.StreamParallel block) is never owned.
func (tb *taskBuilder) newFrame(fn *ssa.Function, owns func(*ssa.BasicBlock) bool) *frame {
	return &frame{
		tb:     tb,
		fn:     fn,
		vals:   make(map[ssa.Value][]ir.Reg),
		start:  make(map[*ssa.BasicBlock]*ir.Block),
		owns:   func(b *ssa.BasicBlock) bool { return b.Parent() == fn && owns(b) },
		spills: make(map[ssa.Value]ir.Reg),
	}
}

func (f *frame) errorf(pos token.Pos, format string, args ...any) {
	if lib := f.outermostLibrary(); lib != nil {
		// Library bodies are Go's own source, which kernels accept: what
		// fails there is qd's to fix, reported where the kernel calls it.
		name := lib.fn.Pkg.Pkg.Name() + "." + lib.fn.Name()
		f.tb.l.errorf(lib.callPos, "internal error compiling %s: %s", name, fmt.Sprintf(format, args...))
		return
	}
	if !pos.IsValid() {
		pos = f.pos()
	}
	f.tb.l.errorf(pos, format, args...)
}

// outermostLibrary returns the outermost frame of f's chain that lowers a
// library function, or nil.
func (f *frame) outermostLibrary() *frame {
	var lib *frame
	for g := f; g != nil; g = g.parent {
		if g.inLibrary() {
			lib = g
		}
	}
	return lib
}

// pos is a position to blame when an instruction has none.
func (f *frame) pos() token.Pos {
	for g := f; g != nil; g = g.parent {
		if g.callPos.IsValid() {
			return g.callPos
		}
		if g.parent == nil && g.fn != nil {
			return g.fn.Pos()
		}
	}
	return token.NoPos
}

// regsFor returns the registers that hold v, allocating them on first use.
func (f *frame) regsFor(v ssa.Value) []ir.Reg {
	if r, ok := f.vals[v]; ok {
		return r
	}
	ts, err := regTypesOf(v.Type())
	if err != nil {
		if !f.tb.l.failed[v] {
			if _, isIface := v.(*ssa.MakeInterface); !isIface {
				f.errorf(v.Pos(), "%s of type %s is not supported in kernels: %v", describeValue(v), v.Type(), err)
			}
		}
		ts = []ir.Type{ir.Int64}
	}
	regs := make([]ir.Reg, len(ts))
	for i, t := range ts {
		regs[i] = f.tb.t.NewReg(t)
	}
	f.vals[v] = regs
	return regs
}

func describeValue(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.Parameter:
		return "parameter " + v.Name()
	case *ssa.Const:
		return "constant"
	case *ssa.Call:
		return "call result"
	}
	return "value"
}

// regs returns the registers holding the operand v.
func (f *frame) regs(v ssa.Value) []ir.Reg {
	if f.tb.l.failed[v] {
		return f.regsFor(v) // reported already; any registers will do
	}
	switch v := v.(type) {
	case *ssa.Const:
		return f.constRegs(v)
	case *ssa.Parameter:
		if r, ok := f.vals[v]; ok {
			return r
		}
		if f.parent == nil {
			return f.tb.param(f, v)
		}
	case *ssa.FreeVar:
		if r, ok := f.vals[v]; ok {
			return r
		}
		if a, ok := f.tb.l.freeVars[v]; ok && f.parent == nil {
			return f.tb.external(f, a)
		}
	case *ssa.Global:
		return f.tb.table(f, v)
	case *ssa.Function:
		switch {
		case v.Parent() != nil:
			f.errorf(v.Pos(), funcLitMessage)
		case syntheticMessage(v) != "":
			f.errorf(v.Pos(), "%s", syntheticMessage(v))
		default:
			f.errorf(v.Pos(), "function values are not supported in kernels: call %s directly", v.Name())
		}
		return []ir.Reg{f.tb.t.NewReg(ir.Int64)}
	case *ssa.Builtin:
		f.errorf(v.Pos(), "builtin %s can only be called", v.Name())
		return []ir.Reg{f.tb.t.NewReg(ir.Int64)}
	case ssa.Instruction:
		if v.Block() != nil && f.owns(v.Block()) {
			value := v.(ssa.Value)
			if addr, ok := f.spills[value]; ok && f.vals[value] == nil {
				return f.reload(value, addr)
			}
			return f.regsFor(value)
		}
		if f.parent == nil {
			return f.tb.external(f, v.(ssa.Value))
		}
	}
	f.errorf(v.Pos(), "internal error: no registers for %s", v)
	return f.regsFor(v)
}

// arg returns a scalar operand: an immediate for a constant.
func (f *frame) arg(v ssa.Value) ir.Arg {
	if c, ok := v.(*ssa.Const); ok {
		if t, ok := basicType(c.Type()); ok {
			return ir.Imm(t, constBits(c, t))
		}
	}
	r := f.regs(v)
	if len(r) != 1 {
		f.errorf(v.Pos(), "internal error: %s is not a scalar", v)
		return ir.R(r[0])
	}
	return ir.R(r[0])
}

func (f *frame) constRegs(c *ssa.Const) []ir.Reg {
	args, ok := constLeaves(c)
	if f.libraryNil(c) {
		args, ok = []ir.Arg{ir.Imm(ir.Ptr, 0)}, true
	}
	if !ok {
		if _, isPtr := c.Type().Underlying().(*types.Pointer); isPtr && c.IsNil() {
			// Go's nil dereference faults; a kernel's pointer is an
			// address in one of the memories its variables, slices and
			// tables live in, and nil is in none of them.
			f.errorf(f.at, "nil pointers are not supported in kernels: a pointer in a kernel points to a variable or to an element of a slice or table")
		} else if c.IsNil() {
			f.errorf(f.at, "nil %s are not supported in kernels", describeType(c.Type()))
		} else {
			f.errorf(c.Pos(), "constants of type %s are not supported in kernels: %s are not supported", c.Type(), describeType(c.Type()))
		}
		return []ir.Reg{f.tb.t.NewReg(ir.Int64)}
	}
	regs := make([]ir.Reg, len(args))
	for i, a := range args {
		regs[i] = f.tb.t.NewReg(f.tb.leafImmType(c, i))
		f.tb.emit(ir.Instr{Op: ir.OpConst, Type: f.tb.t.Regs[regs[i]], Dst: regs[i], Args: []ir.Arg{a}})
	}
	return regs
}

// libraryNil reports whether c is a nil pointer of a library function,
// which is a null address: package math starts pointers to its tables at
// nil (pzero of j0.go) and never dereferences nil. A kernel's own nil
// pointers stay unsupported, as their dereference must fault.
func (f *frame) libraryNil(c *ssa.Const) bool {
	_, isPtr := c.Type().Underlying().(*types.Pointer)
	return isPtr && c.IsNil() && f.inLibrary()
}

// leafImmType is the type of leaf i of the constant c.
func (tb *taskBuilder) leafImmType(c *ssa.Const, i int) ir.Type {
	ts, err := leafTypes(c.Type())
	if err != nil {
		return ir.Ptr // a library's nil pointer
	}
	return ts[i]
}

// param returns the registers of a kernel parameter, read in the prologue.
func (tb *taskBuilder) param(f *frame, p *ssa.Parameter) []ir.Reg {
	if r, ok := tb.ext[p]; ok {
		return r
	}
	idx, ok := tb.l.params[p]
	if v, bound := tb.l.bound[p]; bound && !ok {
		r := tb.outer(f, v)
		tb.ext[p] = r
		return r
	}
	if !ok {
		f.errorf(p.Pos(), "internal error: unknown parameter %s", p.Name())
		return f.regsFor(p)
	}
	kp := tb.l.k.Params[idx]
	var regs []ir.Reg
	tb.inPrologue(func() {
		if passedFlat(p.Type()) {
			ts, _ := leafTypes(p.Type())
			for i, t := range ts {
				r := tb.t.NewReg(t)
				tb.emit(ir.Instr{Op: ir.OpParam, Type: t, Dst: r, Aux: int64(idx + i)})
				regs = append(regs, r)
			}
		} else if kp.Slice {
			base := tb.t.NewReg(ir.Ptr)
			tb.emit(ir.Instr{Op: ir.OpParamBase, Type: ir.Ptr, Dst: base, Aux: int64(idx)})
			n := tb.t.NewReg(ir.Int64)
			tb.emit(ir.Instr{Op: ir.OpParamLen, Type: ir.Int64, Dst: n, Aux: int64(idx)})
			regs = []ir.Reg{base, n, n}
		} else {
			r := tb.t.NewReg(kp.Type)
			tb.emit(ir.Instr{Op: ir.OpParam, Type: kp.Type, Dst: r, Aux: int64(idx)})
			regs = []ir.Reg{r}
		}
	})
	tb.ext[p] = regs
	return regs
}

// inPrologue emits at the end of the prologue, which emit may extend with
// blocks of its own (an inlined call). Code that was being emitted at that
// end, such as the recomputation of a value that needs this one, goes on
// at the new end.
func (tb *taskBuilder) inPrologue(emit func()) {
	saved := tb.cur
	atEnd := saved == tb.pro
	tb.cur = tb.pro
	emit()
	tb.pro = tb.cur
	if !atEnd {
		tb.cur = saved
	}
}

// external returns the registers of a value that an earlier top-level
// statement of the kernel computed: pure values are computed again in the
// prologue; anything else cannot cross from one launch to the next.
func (tb *taskBuilder) external(f *frame, v ssa.Value) []ir.Reg {
	if r, ok := tb.ext[v]; ok {
		return r
	}
	if instr, ok := v.(ssa.Instruction); ok && f.usesFailed(instr) {
		tb.l.failed[v] = true
		return f.regsFor(v)
	}
	if red := tb.l.results[v]; red != nil {
		var r []ir.Reg
		tb.inPrologue(func() { r = []ir.Reg{tb.resultLoad(red)} })
		tb.ext[v] = r
		return r
	}
	if a, ok := v.(*ssa.Alloc); ok && tb.l.replayable(a) {
		return tb.replay(a)
	} else if ok {
		f.errorf(v.Pos(), "local variable %s is used by a later top-level statement, which runs as a separate GPU launch and so must build it again, but %s: declare it inside each loop that uses it, or build it once, in straight-line code, from parameters and constants (a struct or array parameter is passed by value); to combine values over the iterations of a parallel loop, use variables of number types updated with += and the like (reductions), or atomics on slice elements", a.Comment, tb.l.whyNotReplayable(a))
		r := f.regsFor(v)
		tb.ext[v] = r
		return r
	}
	if !tb.l.isPure(v) {
		f.errorf(v.Pos(), "this value is computed by an earlier top-level statement, which runs as a separate GPU launch, and it depends on memory or on control flow, so it cannot be recomputed here; compute it where it is used, or keep it in a slice element")
		r := f.regsFor(v)
		tb.ext[v] = r
		return r
	}
	ts, _ := regTypes(v.Type())
	dst := make([]ir.Reg, len(ts))
	for i, t := range ts {
		dst[i] = tb.t.NewReg(t)
	}
	tb.ext[v] = dst
	tb.inPrologue(func() {
		f.valueInto(v.(ssa.Instruction), dst)
		f.ended = false // a value that never returns ends the prologue, not f's block
	})
	return dst
}

// evalPure computes the pure value v at the current position, recomputing
// any pure values it depends on that the frame owns.
func (f *frame) evalPure(v ssa.Value) []ir.Reg {
	instr, ok := v.(ssa.Instruction)
	if !ok || instr.Block() == nil || !f.owns(instr.Block()) {
		return f.regs(v)
	}
	var ops [8]*ssa.Value
	for _, op := range instr.Operands(ops[:0]) {
		switch (*op).(type) {
		case nil, *ssa.Const, *ssa.Builtin, *ssa.Function, *ssa.Alloc, *ssa.FreeVar:
			// Cells of captured variables are read through capturedCell.
		default:
			f.evalPure(*op)
		}
	}
	dst := f.regsFor(v)
	f.valueInto(instr, dst)
	return dst
}

// lowerBlock lowers the instructions and terminator of the owned block b.
func (f *frame) lowerBlock(b *ssa.BasicBlock) {
	f.tb.cur = f.start[b]
	from, end := f.from[b], len(b.Instrs)-1
	if b == f.cut {
		end = f.cutAt
	}
	for _, instr := range b.Instrs[from:end] {
		if phi, ok := instr.(*ssa.Phi); ok && !f.skipPhis[phi] {
			if red := f.tb.l.results[phi]; red != nil && phi != red.phi {
				// A reduction's value after a loop tested at its end.
				f.tb.emit(ir.Instr{Op: ir.OpMove, Type: red.typ, Dst: f.regsFor(phi)[0], Args: []ir.Arg{ir.R(f.tb.resultLoad(red))}})
				continue
			}
			f.checkPointerPhi(phi)
			f.regsFor(phi)
			if needsMemory(phi) {
				f.defineInMemory(phi)
			}
		}
	}
	for _, instr := range b.Instrs[from:end] {
		if _, ok := instr.(*ssa.Phi); !ok {
			f.instr(instr)
			if f.ended {
				f.ended = false
				return
			}
		}
	}
	f.terminate(b)
}

// terminate lowers the terminator of b at the end of the current block,
// with the moves of the phis of its successors.
func (f *frame) terminate(b *ssa.BasicBlock) {
	tb := f.tb
	if b == f.cut {
		tb.cur.Term = ir.Term{Kind: ir.Return}
		return
	}
	switch last := b.Instrs[len(b.Instrs)-1].(type) {
	case *ssa.Jump:
		target := f.edge(b, b.Succs[0], true)
		tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{target.Index}}
	case *ssa.If:
		if s, ok := constantSuccessor(b); ok && f.parent != nil {
			target := f.edge(b, s, true) // the other successor is not lowered
			tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{target.Index}}
			return
		}
		if f.assume != nil {
			if k, ok := f.assume(last); ok {
				target := f.edge(b, b.Succs[k], true)
				tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{target.Index}}
				return
			}
		}
		cond := f.arg(last.Cond)
		from := tb.cur
		t := f.edge(b, b.Succs[0], false)
		e := f.edge(b, b.Succs[1], false)
		from.Term = ir.Term{Kind: ir.Branch, Cond: cond, Succs: [2]int{t.Index, e.Index}}
	case *ssa.Return:
		if f.parent == nil && !f.isFunc {
			tb.cur.Term = ir.Term{Kind: ir.Return}
			return
		}
		var srcs []ir.Arg
		for _, r := range last.Results {
			srcs = append(srcs, f.leafArgs(r)...)
		}
		if len(srcs) == len(f.results) {
			tb.parallelMove(f.results, srcs)
		}
		if f.isFunc {
			tb.cur.Term = ir.Term{Kind: ir.Return}
			return
		}
		tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{f.cont.Index}}
		f.returns = true
	case *ssa.Panic:
		if f.inLibrary() {
			f.libraryPanic(last)
			return
		}
		if !afterNoReturn(last) {
			f.errorf(last.Pos(), "panic is not supported in kernels: a kernel cannot stop; write an error flag into a slice instead")
		}
		tb.cur.Term = ir.Term{Kind: ir.Return}
	default:
		f.errorf(last.Pos(), "internal error: unexpected terminator %T", last)
	}
}

// afterNoReturn reports whether p is the panic go/ssa puts after a call of
// a function it knows never returns, which is unreachable: the callee is
// what gets reported (a loop that never ends, a panic of its own).
func afterNoReturn(p *ssa.Panic) bool {
	mi, ok := p.X.(*ssa.MakeInterface)
	if !ok {
		return false
	}
	c, ok := mi.X.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.String || constant.StringVal(c.Value) != "noreturn" {
		return false
	}
	instrs := p.Block().Instrs
	for i := len(instrs) - 2; i >= 0; i-- {
		if call, ok := instrs[i].(*ssa.Call); ok {
			return call.Pos() == p.Pos()
		}
	}
	return false
}

// edge returns the IR block that the edge b→s leads to, placing the moves
// of s's phis. A single-successor edge gets its moves at the end of the
// current block; otherwise the edge is split by a block of its own.
func (f *frame) edge(b, s *ssa.BasicBlock, single bool) *ir.Block {
	if f.redirect != nil {
		if target, ok := f.redirect(b, s); ok {
			var dsts []ir.Reg
			var srcs []ir.Arg
			if f.carried != nil {
				dsts, srcs = f.carried(b, s)
			}
			return f.place(b, s, target, dsts, srcs, single)
		}
	}
	if !f.owns(s) {
		f.errorf(blockPos(b, f.fn), "internal error: control leaves the task from block %d to block %d", b.Index, s.Index)
		return f.tb.cur
	}
	var dsts []ir.Reg
	var srcs []ir.Arg
	f.at = useAfterPhis(s, f.fn)
	for _, instr := range s.Instrs {
		phi, ok := instr.(*ssa.Phi)
		if !ok {
			break
		}
		if f.skipPhis[phi] {
			continue
		}
		d, a := f.phiMove(f.regsFor(phi), phi.Edges[predIndex(s, b)])
		dsts, srcs = append(dsts, d...), append(srcs, a...)
	}
	return f.place(b, s, f.start[s], dsts, srcs, single)
}

// useAfterPhis is the position of the first instruction of b after its
// phis that has one: where a constant that a phi merges in is first read.
func useAfterPhis(b *ssa.BasicBlock, fn *ssa.Function) token.Pos {
	for _, instr := range b.Instrs {
		if _, phi := instr.(*ssa.Phi); !phi && instr.Pos().IsValid() {
			return instr.Pos()
		}
	}
	return blockPos(b, fn)
}

func predIndex(s, b *ssa.BasicBlock) int {
	for i, p := range s.Preds {
		if p == b {
			return i
		}
	}
	return -1
}

// phiMove returns the moves that give the registers dst the value edge.
func (f *frame) phiMove(dst []ir.Reg, edge ssa.Value) ([]ir.Reg, []ir.Arg) {
	srcs := f.leafArgs(edge)
	return dst[:len(srcs)], srcs
}

// place returns the block the edge b→s leads to, target, with the moves
// dsts = srcs on the way: at the end of the current block for a
// single-successor edge, otherwise in a block of the edge's own.
func (f *frame) place(b, s *ssa.BasicBlock, target *ir.Block, dsts []ir.Reg, srcs []ir.Arg, single bool) *ir.Block {
	if len(dsts) == 0 {
		return target
	}
	if single {
		f.tb.parallelMove(dsts, srcs)
		return target
	}
	saved := f.tb.cur
	split := f.tb.t.NewBlock(fmt.Sprintf("edge %d→%d", b.Index, s.Index))
	f.tb.cur = split
	f.tb.parallelMove(dsts, srcs)
	split.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{target.Index}}
	f.tb.cur = saved
	return split
}

// parallelMove emits moves that assign every srcs[i] to dsts[i] as if all
// at once, ordering them so that no source is overwritten before it is read
// and breaking cycles with a temporary.
func (tb *taskBuilder) parallelMove(dsts []ir.Reg, srcs []ir.Arg) {
	type mv struct {
		dst ir.Reg
		src ir.Arg
	}
	var pending []mv
	for i, d := range dsts {
		if srcs[i].Imm || srcs[i].Reg != d {
			pending = append(pending, mv{d, srcs[i]})
		}
	}
	for len(pending) > 0 {
		progress := false
		for i := 0; i < len(pending); i++ {
			m := pending[i]
			blocked := false
			for j, o := range pending {
				if j != i && !o.src.Imm && o.src.Reg == m.dst {
					blocked = true
					break
				}
			}
			if blocked {
				continue
			}
			tb.move(m.dst, m.src)
			pending = append(pending[:i], pending[i+1:]...)
			i--
			progress = true
		}
		if !progress {
			// Every pending destination is still to be read: a cycle.
			d := pending[0].dst
			tmp := tb.t.NewReg(tb.t.Regs[d])
			tb.move(tmp, ir.R(d))
			for j := range pending {
				if !pending[j].src.Imm && pending[j].src.Reg == d {
					pending[j].src = ir.R(tmp)
				}
			}
		}
	}
}
