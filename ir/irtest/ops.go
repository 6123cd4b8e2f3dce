// Package irtest builds IR for the tests of package ir and the emitters.
package irtest

import (
	"github.com/qdgo/qd/internal/fault"
	"github.com/qdgo/qd/ir"
)

// OpKernels returns a small kernel for every op and every type it takes
// (and every From type it allows with it, for the ops that have one): a parallel task that
// sets up the operands, runs the op once and returns. With immediates, the
// operands that are not addresses are immediates instead of registers.
//
// Each kernel has the parameters s []E and p T, where T is the op's type
// when a scalar parameter can have it and E the op's type when memory can
// hold it (else i64 and i32), so that Values fits every one of them; a
// 16-byte constant table d, and a 16-byte variable v in the space of the
// op's address (local when it has none); the fault sites Sites, and one
// reduction's scratch memory. Ops with an address in shared or
// local memory take the address of v.
func OpKernels(immediates bool) []*ir.Kernel {
	var ks []*ir.Kernel
	for _, op := range ir.Ops() {
		info := op.Info()
		types := info.Types.List()
		if info.Types == 0 {
			types = []ir.Type{info.Result.Of(&ir.Instr{})} // fixed
		}
		froms := info.From.List()
		if info.From == 0 {
			froms = []ir.Type{ir.Invalid}
		}
		spaces := []ir.Space{ir.Global}
		if info.Spaces {
			spaces = append(spaces, ir.Shared, ir.Local)
		}
		for _, typ := range types {
			for _, from := range froms {
				if info.SameSize && typ.Size() != from.Size() {
					continue
				}
				for _, space := range spaces {
					ks = append(ks, opKernel(ir.Instr{Op: op, Type: typ, From: from, Space: space}, immediates))
				}
			}
		}
	}
	return ks
}

func opKernel(in ir.Instr, immediates bool) *ir.Kernel {
	if in.Op == ir.OpCall {
		return CallKernel(immediates)
	}
	if in.Op == ir.OpPrint {
		return PrintKernel(immediates)
	}
	name := in.Op.String()
	if in.Op.Info().Types != 0 {
		name += "_" + in.Type.String()
	}
	if in.From != ir.Invalid {
		name += "_" + in.From.String()
	}
	if in.Space != ir.Global {
		name += "_" + in.Space.String()
	}
	if immediates {
		name += "_imm"
	}
	elem, scalar := ir.Int32, ir.Int64
	if ir.Numeric.Has(in.Type) {
		elem = in.Type
	}
	if ir.Scalars.Has(in.Type) {
		scalar = in.Type
	}
	k := &ir.Kernel{Name: name, Params: []ir.Param{{Name: "s", Slice: true, Type: elem}, {Name: "p", Type: scalar}},
		Data: []ir.Data{{Name: "d", Bytes: make([]byte, 16), Align: 8}}, Sites: Sites, Reductions: 1}
	t := &ir.Task{Name: name + "_0", Kind: ir.Parallel}
	space := in.Space
	if space == ir.Global {
		space = ir.Local
	}
	t.Vars = []ir.Var{{Name: "v", Space: space, Size: 16, Align: 8}}
	b := t.NewBlock("entry")
	for _, typ := range in.ArgTypes() {
		switch {
		case typ == ir.Ptr && in.Space != ir.Global:
			r := t.NewReg(ir.Ptr)
			b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Dst: r, Aux: 0})
			in.Args = append(in.Args, ir.R(r))
		case typ == ir.Ptr:
			r := t.NewReg(ir.Ptr)
			b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpParamBase, Type: ir.Ptr, Dst: r, Aux: 0})
			in.Args = append(in.Args, ir.R(r))
		case len(in.Args) == 0 && in.Op == ir.OpCheckIndex:
			in.Args = append(in.Args, ir.Imm(typ, 0)) // a check that passes
		case immediates || in.Op == ir.OpConst:
			in.Args = append(in.Args, One(typ))
		default:
			r := t.NewReg(typ)
			b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpConst, Type: typ, Dst: r, Args: []ir.Arg{One(typ)}})
			in.Args = append(in.Args, ir.R(r))
		}
	}
	switch in.Op.Info().Aux {
	case ir.ScalarParam:
		in.Aux = 1
	case ir.SliceParam:
		in.Aux = 0
	case ir.ElemSize:
		in.Aux = int64(elem.Size())
	case ir.SiteIndex:
		in.Aux = map[ir.Op]int64{ir.OpCheckIndex: 0, ir.OpCheckSlice: 1, ir.OpCheckDivide: 2}[in.Op]
	}
	in.Dst = ir.NoReg
	if rt := in.ResultType(); rt != ir.Invalid {
		in.Dst = t.NewReg(rt)
	}
	b.Instrs = append(b.Instrs, in)
	b.Term = ir.Term{Kind: ir.Return}
	k.Tasks = []*ir.Task{t}
	return k
}

// CallKernel calls a function of three parameters and two results, which
// calls one without any and stores through its pointer; the call is the
// task's last instruction.
func CallKernel(immediates bool) *ir.Kernel {
	name := "call"
	if immediates {
		name += "_imm"
	}
	k := &ir.Kernel{Name: name, Params: []ir.Param{{Name: "s", Slice: true, Type: ir.Int64}, {Name: "p", Type: ir.Int64}}}
	none := &ir.Task{Name: name + "$none", Kind: ir.Function}
	none.NewBlock("entry").Term = ir.Term{Kind: ir.Return}
	f := &ir.Task{Name: name + "$f", Kind: ir.Function}
	p, x, y, sum := f.NewReg(ir.Ptr), f.NewReg(ir.Int64), f.NewReg(ir.Bool), f.NewReg(ir.Int64)
	f.Params, f.Results = []ir.Reg{p, x, y}, []ir.Reg{sum, y}
	fb := f.NewBlock("entry")
	fb.Instrs = []ir.Instr{
		{Op: ir.OpCall, Dst: ir.NoReg, Aux: 0},
		{Op: ir.OpAdd, Type: ir.Int64, Dst: sum, Args: []ir.Arg{ir.R(x), One(ir.Int64)}},
		{Op: ir.OpStore, Type: ir.Int64, Dst: ir.NoReg, Args: []ir.Arg{ir.R(p), ir.R(sum)}},
	}
	fb.Term = ir.Term{Kind: ir.Return}
	k.Funcs = []*ir.Task{none, f}

	t := &ir.Task{Name: name + "_0", Kind: ir.Parallel}
	b := t.NewBlock("entry")
	base := t.NewReg(ir.Ptr)
	b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpParamBase, Type: ir.Ptr, Dst: base, Aux: 0})
	args := []ir.Arg{ir.R(base), One(ir.Int64), One(ir.Bool)}
	if !immediates {
		for i, typ := range []ir.Type{ir.Int64, ir.Bool} {
			r := t.NewReg(typ)
			b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpConst, Type: typ, Dst: r, Args: []ir.Arg{args[i+1]}})
			args[i+1] = ir.R(r)
		}
	}
	b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpCall, Dst: ir.NoReg, Aux: 1, Args: args,
		Results: []ir.Reg{t.NewReg(ir.Int64), t.NewReg(ir.Bool)}})
	b.Term = ir.Term{Kind: ir.Return}
	k.Tasks = []*ir.Task{t}
	return k
}

// PrintFormat is the format of PrintKernel, which has one conversion of
// every verb.
var PrintFormat = ir.Print{
	Format: "%d|%5d|%x|%-4X|%#o|%c|%+.3e|%E|%8.2f|%t|%-6t|%%\n",
	Types:  []ir.Type{ir.Int64, ir.Int8, ir.Uint32, ir.Uint64, ir.Uint16, ir.Uint8, ir.Float64, ir.Float32, ir.Float64, ir.Bool, ir.Bool},
}

// PrintOutput is what PrintKernel prints on one thread.
const PrintOutput = "-7|   -7|7|7   |07|Q|-7.000e+00|7.000000E+00|   -7.00|true|false |%\n"

// PrintKernel prints PrintFormat with operands made from 7 (and a Q for
// %c) on every thread. A print's operands are registers even with immediates, which
// only names the kernel apart.
func PrintKernel(immediates bool) *ir.Kernel {
	name := "print"
	if immediates {
		name += "_imm"
	}
	k := &ir.Kernel{Name: name, Params: []ir.Param{{Name: "s", Slice: true, Type: ir.Int64}, {Name: "p", Type: ir.Int64}},
		Prints: []ir.Print{PrintFormat}}
	t := &ir.Task{Name: name + "_0", Kind: ir.Parallel}
	b := t.NewBlock("entry")
	var args []ir.Arg
	for i, typ := range PrintFormat.Types {
		var bits uint64
		switch {
		case typ == ir.Bool:
			bits = uint64(i % 2) // true, then false
		case i == 5:
			bits = 'Q'
		case typ.IsSigned() || typ.IsFloat() && i != 7:
			bits, _ = ir.Fold(&ir.Instr{Op: ir.OpConvert, Type: typ, From: ir.Int64}, []uint64{uint64(1<<64 - 7)})
		default:
			bits, _ = ir.Fold(&ir.Instr{Op: ir.OpConvert, Type: typ, From: ir.Int64}, []uint64{7})
		}
		r := t.NewReg(typ)
		b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpConst, Type: typ, Dst: r, Args: []ir.Arg{ir.Imm(typ, bits)}})
		args = append(args, ir.R(r))
	}
	b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpPrint, Dst: ir.NoReg, Args: args})
	b.Term = ir.Term{Kind: ir.Return}
	k.Tasks = []*ir.Task{t}
	return k
}

// Sites are the fault sites of every kernel of OpKernels: one for each
// check op.
var Sites = []ir.Site{
	{Kind: fault.Index, File: "ops.go", Line: 1, Col: 2},
	{Kind: fault.SliceAcap, File: "ops.go", Line: 3, Col: 4},
	{Kind: fault.Divide, File: "ops.go", Line: 5, Col: 6},
}

// One is the immediate 1 (true, 1.0) of type t.
func One(t ir.Type) ir.Arg {
	bits, err := ir.Fold(&ir.Instr{Op: ir.OpConvert, Type: t, From: ir.Int64}, []uint64{1})
	if t == ir.Bool || t == ir.Ptr || err != nil {
		bits = 1
	}
	return ir.Imm(t, bits)
}

// Values are arguments for any of the kernels of OpKernels, with s in
// heap and two elements long.
func Values(heap *ir.Heap) *ir.Values {
	return &ir.Values{
		Scalar: []uint64{0, 1},
		Base:   []uint64{heap.Alloc(16), 0},
		Len:    []int64{2, 0},
	}
}
