package lower

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file gives kernels local variables that live in memory: variables
// whose address is taken (a struct whose fields are assigned, an array
// indexed, a value a method with a pointer receiver changes, a composite
// literal being built) and the copies of array values indexed by a
// variable. Each is a task variable in local memory (ir.Var), one per
// thread, zeroed where Go creates the variable. Package opt moves those
// accessed only at constant offsets into registers, so small structs and
// arrays cost no memory at all.

// zeroByLeaves bounds the leaves a variable is zeroed by one store each;
// larger ones are zeroed by a loop.
const zeroByLeaves = 64

// newVar declares a thread's local variable of type t and returns its
// index in the task.
func (tb *taskBuilder) newVar(name string, t types.Type) int64 {
	name = identifier(name)
	base, taken := name, func(n string) bool {
		for _, v := range tb.t.Vars {
			if v.Name == n {
				return true
			}
		}
		return false
	}
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	tb.t.Vars = append(tb.t.Vars, ir.Var{Name: name, Space: ir.Local,
		Size: int(max(hostSizes.Sizeof(t), 1)), Align: int(hostSizes.Alignof(t))})
	return int64(len(tb.t.Vars) - 1)
}

// identifier makes a Go name an ASCII identifier every emitter accepts.
func identifier(name string) string {
	var b strings.Builder
	for i, c := range name {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9' && i > 0:
			b.WriteRune(c)
		default:
			fmt.Fprintf(&b, "_%x", c)
		}
	}
	if b.Len() == 0 {
		return "v"
	}
	return b.String()
}

// alloc lowers a local variable whose address is taken: a zeroed task
// variable. The allocations kernels cannot have are reported.
func (f *frame) alloc(v *ssa.Alloc) {
	elem := v.Type().Underlying().(*types.Pointer).Elem()
	switch v.Comment {
	case "makeslice", "slicelit", "varargs":
		f.errorf(v.Pos(), "%s", f.allocMessage(v))
		return
	}
	if _, err := leaves(elem); err != nil {
		f.errorf(v.Pos(), "local variable %s of type %s is not supported in kernels: %v", v.Comment, elem, err)
		return
	}
	if own, ok := f.tb.l.threadAllocs[v]; ok {
		f.threadAlloc(v, own)
		return
	}
	if f.tb.l.sharedAllocs[v] {
		f.sharedAlloc(v, elem)
		return
	}
	if updatedAtomically(v) {
		f.errorf(v.Pos(), "%s", atomicOnLocal("variable "+v.Comment))
		return
	}
	dst := f.regsFor(v)[0]
	f.tb.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: dst, Aux: f.tb.newVar(v.Comment, elem), Pos: v.Pos()})
	f.zero(ir.R(dst), elem, v.Pos())
}

// zero stores the zero value of type t at addr.
func (f *frame) zero(addr ir.Arg, t types.Type, pos token.Pos) {
	ls, _ := leaves(t)
	if len(ls) <= zeroByLeaves {
		zeros := make([]ir.Arg, len(ls))
		for i, l := range ls {
			zeros[i] = ir.Imm(l.typ, 0)
		}
		f.storeValue(addr, t, zeros, pos)
		return
	}
	word := wordOf(t)
	f.wordLoop(hostSizes.Sizeof(t)/int64(word.Size()), pos, func(i ir.Arg) {
		at := f.tb.t.NewReg(ir.Ptr)
		f.tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: at, Args: []ir.Arg{addr, i}, Aux: int64(word.Size()), Pos: pos})
		f.tb.emit(ir.Instr{Op: ir.OpStore, Type: word, Dst: ir.NoReg, Args: []ir.Arg{ir.R(at), ir.Imm(word, 0)}, Pos: pos})
	})
}

// wordOf is the widest unsigned type that divides t's alignment: the
// words a loop zeroes or copies a value of t by.
func wordOf(t types.Type) ir.Type {
	for _, w := range []ir.Type{ir.Uint64, ir.Uint32, ir.Uint16} {
		if hostSizes.Alignof(t) >= int64(w.Size()) {
			return w
		}
	}
	return ir.Uint8
}

// wordLoop emits a loop that runs body for i from 0 to n-1.
func (f *frame) wordLoop(n int64, pos token.Pos, body func(i ir.Arg)) {
	tb := f.tb
	i := tb.t.NewReg(ir.Int64)
	tb.move(i, ir.Imm(ir.Int64, 0))
	head, loop, done := tb.t.NewBlock("words.head"), tb.t.NewBlock("words.body"), tb.t.NewBlock("words.done")
	tb.jump(head)
	more := tb.op(ir.OpLt, ir.Int64, ir.R(i), ir.Imm(ir.Int64, uint64(n)))
	head.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(more), Succs: [2]int{loop.Index, done.Index}}
	tb.cur = loop
	body(ir.R(i))
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: ir.Int64, Dst: i, Args: []ir.Arg{ir.R(i), ir.Imm(ir.Int64, 1)}})
	tb.jump(head)
	tb.cur = done
}

// needsMemory reports whether v is an array value that is indexed by a
// variable: it is then kept in a local variable and indexed there.
func needsMemory(v ssa.Value) bool {
	if _, ok := v.Type().Underlying().(*types.Array); !ok || v.Referrers() == nil {
		return false
	}
	for _, r := range *v.Referrers() {
		if ix, ok := r.(*ssa.Index); ok && ix.X == v {
			if _, isConst := ix.Index.(*ssa.Const); !isConst {
				return true
			}
		}
	}
	return false
}

// inMemory returns the address of the copy in memory of an array value
// indexed by a variable.
func (f *frame) inMemory(v ssa.Value) (ir.Reg, bool) {
	r, ok := f.spills[v]
	return r, ok
}

// defineInMemory computes an array value indexed by a variable into a
// variable of its own: a load is copied from memory to memory, anything
// else is computed into registers and stored.
func (f *frame) defineInMemory(v ssa.Value) {
	addr := f.tb.t.NewReg(ir.Ptr)
	f.tb.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: addr, Aux: f.tb.newVar("copy", v.Type()), Pos: v.Pos()})
	f.spills[v] = addr
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		if _, cell := f.capturedCell(load.X); !cell {
			f.copyValue(ir.R(addr), f.arg(load.X), v.Type(), v.Pos())
			return
		}
	}
	if instr, ok := v.(ssa.Instruction); ok && !isPhi(v) {
		f.valueInto(instr, f.regsFor(v))
	}
	f.storeValue(ir.R(addr), v.Type(), f.leafArgs(v), v.Pos())
}

func isPhi(v ssa.Value) bool {
	_, ok := v.(*ssa.Phi)
	return ok
}

// reload loads a value kept in memory into new registers, for a use that
// needs it whole.
func (f *frame) reload(v ssa.Value, addr ir.Reg) []ir.Reg {
	ts, _ := leafTypes(v.Type())
	regs := make([]ir.Reg, len(ts))
	for i, t := range ts {
		regs[i] = f.tb.t.NewReg(t)
	}
	f.loadValue(ir.R(addr), v.Type(), regs, v.Pos())
	return regs
}

// atomicOnLocal is the diagnostic for an atomic on a local variable.
func atomicOnLocal(what string) string {
	return fmt.Sprintf("%s is updated with an atomic, but local variables belong to one thread and need none; atomics update slice elements, as atomic.AddInt32(&s[i], 1)", what)
}

// updatedAtomically reports whether an atomic function is called on the
// address v or on the address of a part of it.
func updatedAtomically(v ssa.Value) bool {
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.Call:
			if _, atomic, _ := atomicCallee(r.Common().StaticCallee()); atomic {
				return true
			}
		case *ssa.FieldAddr, *ssa.IndexAddr:
			if updatedAtomically(r.(ssa.Value)) {
				return true
			}
		}
	}
	return false
}

// checkPointerPhi reports a pointer that a loop carries from one iteration
// to the next into a local variable created in the loop: Go gives each
// iteration a variable of its own, a kernel reuses one thread's memory.
func (f *frame) checkPointerPhi(phi *ssa.Phi) {
	if _, ok := phi.Type().Underlying().(*types.Pointer); !ok {
		return
	}
	head := phi.Block()
	for i, e := range phi.Edges {
		if a := localRoot(e); a != nil && head.Dominates(head.Preds[i]) && head.Dominates(a.Block()) {
			f.errorf(phi.Pos(), "a pointer to variable %s is kept from one iteration of this loop to the next, but the variable is made again in each iteration, reusing its memory: copy its value instead of keeping a pointer", a.Comment)
			return
		}
	}
}
