package lower

import (
	"go/constant"
	"go/token"
	"go/types"

	"github.com/qdgo/qd/internal/fault"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lowers values of struct, array and complex types. Such a
// value is held in one register per leaf (layout.go), so passing it to a
// helper, returning it, or assigning it is a move of each register; in
// memory (a slice element, a local variable, a constant table) it is one
// load or store per leaf at the offsets Go's host layout gives.

// leafArgs returns the operands that hold the value v, one per leaf:
// immediates for a constant.
func (f *frame) leafArgs(v ssa.Value) []ir.Arg {
	if c, ok := v.(*ssa.Const); ok {
		if args, ok := constLeaves(c); ok {
			return args
		}
		if f.libraryNil(c) {
			return []ir.Arg{ir.Imm(ir.Ptr, 0)}
		}
	}
	regs := f.regs(v)
	args := make([]ir.Arg, len(regs))
	for i, r := range regs {
		args[i] = ir.R(r)
	}
	return args
}

// constLeaves returns the leaves of a constant of a number, bool, complex,
// struct or array type as immediates; only zero values of structs and
// arrays are constants.
func constLeaves(c *ssa.Const) ([]ir.Arg, bool) {
	switch c.Type().Underlying().(type) {
	case *types.Slice, *types.Pointer:
		return nil, false
	}
	ls, err := leaves(c.Type())
	if err != nil {
		return nil, false
	}
	args := make([]ir.Arg, len(ls))
	for i, l := range ls {
		args[i] = ir.Imm(l.typ, 0)
	}
	if c.Value == nil {
		return args, true
	}
	if isComplex(c.Type()) {
		return []ir.Arg{
			ir.Imm(ls[0].typ, floatBits(constant.Real(c.Value), ls[0].typ)),
			ir.Imm(ls[1].typ, floatBits(constant.Imag(c.Value), ls[1].typ)),
		}, true
	}
	if len(ls) != 1 {
		return nil, false
	}
	return []ir.Arg{ir.Imm(ls[0].typ, constBits(c, ls[0].typ))}, true
}

func isComplex(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsComplex != 0
}

// floatBits returns the bits of a constant as a float of type t.
func floatBits(v constant.Value, t ir.Type) uint64 {
	return constBits(&ssa.Const{Value: constant.ToFloat(v)}, t)
}

// offset computes base+off into a new register.
func (f *frame) offset(base ir.Arg, off int64, pos token.Pos) ir.Reg {
	dst := f.tb.t.NewReg(ir.Ptr)
	f.tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: dst, Args: []ir.Arg{base, ir.Imm(ir.Int64, uint64(off))}, Aux: 1, Pos: pos})
	return dst
}

// loadValue loads the value of type t at addr into dst, leaf by leaf.
func (f *frame) loadValue(addr ir.Arg, t types.Type, dst []ir.Reg, pos token.Pos) {
	ls, _ := leaves(t)
	for i, l := range ls {
		a := addr
		if l.off != 0 {
			a = ir.R(f.offset(addr, l.off, pos))
		}
		f.tb.emit(ir.Instr{Op: ir.OpLoad, Type: l.typ, Dst: dst[i], Args: []ir.Arg{a}, Pos: pos})
	}
}

// storeValue stores the leaves srcs of a value of type t at addr.
func (f *frame) storeValue(addr ir.Arg, t types.Type, srcs []ir.Arg, pos token.Pos) {
	ls, _ := leaves(t)
	for i, l := range ls {
		a := addr
		if l.off != 0 {
			a = ir.R(f.offset(addr, l.off, pos))
		}
		f.tb.emit(ir.Instr{Op: ir.OpStore, Type: l.typ, Dst: ir.NoReg, Args: []ir.Arg{a, srcs[i]}, Pos: pos})
	}
}

// copyValue copies a value of type t from one address to another, leaf
// by leaf, or word by word in a loop when it has many leaves.
func (f *frame) copyValue(to, from ir.Arg, t types.Type, pos token.Pos) {
	tb := f.tb
	ls, _ := leaves(t)
	if len(ls) > zeroByLeaves {
		word := wordOf(t)
		f.wordLoop(hostSizes.Sizeof(t)/int64(word.Size()), pos, func(i ir.Arg) {
			src, dst, v := tb.t.NewReg(ir.Ptr), tb.t.NewReg(ir.Ptr), tb.t.NewReg(word)
			tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: src, Args: []ir.Arg{from, i}, Aux: int64(word.Size()), Pos: pos})
			tb.emit(ir.Instr{Op: ir.OpLoad, Type: word, Dst: v, Args: []ir.Arg{ir.R(src)}, Pos: pos})
			tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: dst, Args: []ir.Arg{to, i}, Aux: int64(word.Size()), Pos: pos})
			tb.emit(ir.Instr{Op: ir.OpStore, Type: word, Dst: ir.NoReg, Args: []ir.Arg{ir.R(dst), ir.R(v)}, Pos: pos})
		})
		return
	}
	for _, l := range ls {
		src, dst := from, to
		if l.off != 0 {
			src, dst = ir.R(f.offset(from, l.off, pos)), ir.R(f.offset(to, l.off, pos))
		}
		v := tb.t.NewReg(l.typ)
		tb.emit(ir.Instr{Op: ir.OpLoad, Type: l.typ, Dst: v, Args: []ir.Arg{src}, Pos: pos})
		tb.emit(ir.Instr{Op: ir.OpStore, Type: l.typ, Dst: ir.NoReg, Args: []ir.Arg{dst, ir.R(v)}, Pos: pos})
	}
}

// isMemoryCopy reports whether v loads a struct or array only to store it
// elsewhere, with nothing in between that could change memory: the value
// then goes from memory to memory without being held in registers,
// however large it is.
func isMemoryCopy(v ssa.Value) bool {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL || !isAggregate(v.Type()) || v.Referrers() == nil || len(*v.Referrers()) != 1 {
		return false
	}
	switch x := load.X.(type) {
	case *ssa.FreeVar:
		return false
	case *ssa.Alloc:
		if capturedByBlock(x) {
			return false
		}
	}
	st, ok := (*v.Referrers())[0].(*ssa.Store)
	if !ok || st.Val != v || st.Block() != load.Block() {
		return false
	}
	between := false
	for _, instr := range load.Block().Instrs {
		switch {
		case instr == ssa.Instruction(load):
			between = true
		case instr == ssa.Instruction(st):
			return true
		case between:
			switch instr.(type) {
			case *ssa.Store, *ssa.Call, *ssa.Go, *ssa.Defer, *ssa.MapUpdate, *ssa.Send:
				return false
			}
		}
	}
	return false
}

// field lowers x.f of a struct value x: its leaves are a range of x's.
func (f *frame) field(v *ssa.Field, dst []ir.Reg) {
	start, n := partRange(v.X.Type(), v.Field)
	src := f.leafArgs(v.X)
	for i := range n {
		f.tb.move(dst[i], src[start+i])
	}
}

// fieldAddr lowers &x.f: the field's offset from x.
func (f *frame) fieldAddr(v *ssa.FieldAddr, dst []ir.Reg) {
	st := v.X.Type().Underlying().(*types.Pointer).Elem()
	f.tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: dst[0],
		Args: []ir.Arg{f.arg(v.X), ir.Imm(ir.Int64, uint64(fieldOffset(st, v.Field)))}, Aux: 1, Pos: v.Pos()})
}

// indexAddr lowers &s[i] of a slice s or of a pointer to an array, with
// the check of i against the length of s, in elements, or of the array.
func (f *frame) indexAddr(v *ssa.IndexAddr, dst []ir.Reg) {
	x := f.regs(v.X)
	idx := f.indexArg(v.Index)
	var elem types.Type
	switch u := v.X.Type().Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
		if !f.inBounds(v.X, v.Index, v.Block()) {
			f.check(v.Pos(), fault.Index, v.Index, idx, ir.R(x[1]))
		}
	case *types.Pointer:
		at := u.Elem().Underlying().(*types.Array)
		elem = at.Elem()
		f.checkArrayIndex(v.Pos(), at, v.Index, idx, v.Block())
	}
	f.tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: dst[0],
		Args: []ir.Arg{ir.R(x[0]), idx}, Aux: elemSize(elem), Pos: v.Pos()})
}

// checkArrayIndex checks the index of an element of an array of type at,
// unless Go's compiler has (a constant), a loop's test keeps it in range,
// or the array is one of a total library's tables (totalLibrary).
func (f *frame) checkArrayIndex(pos token.Pos, at *types.Array, index ssa.Value, idx ir.Arg, b *ssa.BasicBlock) {
	if _, ok := index.(*ssa.Const); ok || f.inArray(index, b, at.Len()) || totalLibrary(f.fn) {
		return
	}
	f.check(pos, fault.Index, index, idx, imm64(at.Len()))
}

// index lowers a[i] of an array value a: a range of a's leaves for a
// constant index, otherwise a load from the copy of a in memory.
func (f *frame) index(v *ssa.Index, dst []ir.Reg) {
	at := v.X.Type().Underlying().(*types.Array)
	if addr, ok := f.inMemory(v.X); ok {
		idx := f.indexArg(v.Index)
		f.checkArrayIndex(v.Pos(), at, v.Index, idx, v.Block())
		elem := f.tb.t.NewReg(ir.Ptr)
		f.tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: elem,
			Args: []ir.Arg{ir.R(addr), idx}, Aux: elemSize(at.Elem()), Pos: v.Pos()})
		f.loadValue(ir.R(elem), at.Elem(), dst, v.Pos())
		return
	}
	if _, zero := v.X.(*ssa.Const); zero {
		f.checkArrayIndex(v.Pos(), at, v.Index, f.indexArg(v.Index), v.Block())
		ts, _ := leafTypes(at.Elem())
		for j, t := range ts {
			f.tb.move(dst[j], ir.Imm(t, 0)) // every element of a zero array
		}
		return
	}
	c, ok := v.Index.(*ssa.Const)
	if !ok {
		f.errorf(v.Pos(), "internal error: array indexed by a variable is not in memory")
		return
	}
	i, _ := constant.Int64Val(c.Value)
	start, n := partRange(at, int(i))
	src := f.leafArgs(v.X)
	for j := range n {
		f.tb.move(dst[j], src[start+j])
	}
}

// sliceArray lowers a[lo:hi:max] of a pointer to an array a.
func (f *frame) sliceArray(v *ssa.Slice, dst []ir.Reg) {
	at := v.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array)
	n := ir.Imm(ir.Int64, uint64(at.Len()))
	f.sliceOf(v, f.regs(v.X)[0], n, n, elemSize(at.Elem()), dst)
}

// compareAggregates lowers x == y and x != y of structs, arrays and
// complex numbers: every leaf equal, as Go compares them (so a NaN field
// makes two structs unequal, and +0 equals -0).
func (f *frame) compareAggregates(v *ssa.BinOp, dst []ir.Reg) {
	ls, _ := leaves(v.X.Type())
	x, y := f.leafArgs(v.X), f.leafArgs(v.Y)
	tb := f.tb
	acc := ir.Imm(ir.Bool, 1)
	for i, l := range ls {
		eq := ir.R(tb.op(ir.OpEq, l.typ, x[i], y[i]))
		if i == 0 {
			acc = eq
			continue
		}
		acc = ir.R(tb.op(ir.OpAnd, ir.Bool, acc, eq))
	}
	if v.Op == token.NEQ {
		tb.emit(ir.Instr{Op: ir.OpNot, Type: ir.Bool, Dst: dst[0], Args: []ir.Arg{acc}, Pos: v.Pos()})
		return
	}
	tb.move(dst[0], acc)
}
