package lower

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lowers atomic operations on slice elements: the functions of
// sync/atomic on 32- and 64-bit integers, and qd.AtomicAdd, qd.AtomicMin
// and qd.AtomicMax on every numeric type. Each becomes one atomic IR op;
// what the Go function returns is computed from the old value the op
// gives.

// atomicResult is what an atomic function returns.
type atomicResult uint8

const (
	resultOld     atomicResult = iota // the element's old value
	resultNew                         // the old value plus the operand (Add)
	resultSwapped                     // whether the old value was the expected one (CompareAndSwap)
	resultNone                        // nothing (Store)
)

type atomicFunc struct {
	op     ir.Op
	result atomicResult
}

// syncAtomics are the functions of sync/atomic kernels support, by the
// part of their name before the type.
var syncAtomics = map[string]atomicFunc{
	"Add":            {ir.OpAtomicAdd, resultNew},
	"Load":           {ir.OpAtomicLoad, resultOld},
	"Store":          {ir.OpAtomicStore, resultNone},
	"Swap":           {ir.OpAtomicSwap, resultOld},
	"CompareAndSwap": {ir.OpAtomicCAS, resultSwapped},
	"And":            {ir.OpAtomicAnd, resultOld},
	"Or":             {ir.OpAtomicOr, resultOld},
}

// qdAtomics are the atomic functions of package qd.
var qdAtomics = map[string]atomicFunc{
	"AtomicAdd": {ir.OpAtomicAdd, resultNew},
	"AtomicMin": {ir.OpAtomicMin, resultOld},
	"AtomicMax": {ir.OpAtomicMax, resultOld},
}

// syncAtomicTypes are the types the names of sync/atomic's functions end in.
var syncAtomicTypes = []string{"Int32", "Int64", "Uint32", "Uint64", "Uintptr"}

// origin is the function a generic instance was made from, or fn.
func origin(fn *ssa.Function) *ssa.Function {
	if o := fn.Origin(); o != nil {
		return o
	}
	return fn
}

// atomicCallee reports whether fn is an atomic function: ok is true for
// every function of sync/atomic and package qd's atomics; msg says why a
// function of sync/atomic is not supported.
func atomicCallee(fn *ssa.Function) (af atomicFunc, ok bool, msg string) {
	if fn == nil {
		return atomicFunc{}, false, ""
	}
	o := origin(fn)
	if o.Pkg == nil || o.Signature.Recv() != nil {
		// Methods of sync/atomic's types: a kernel cannot hold their values,
		// which is reported where it tries.
		return atomicFunc{}, false, ""
	}
	switch o.Pkg.Pkg.Path() {
	case QDPath:
		af, ok := qdAtomics[o.Name()]
		return af, ok, ""
	case "sync/atomic":
		for _, suffix := range syncAtomicTypes {
			if af, known := syncAtomics[strings.TrimSuffix(o.Name(), suffix)]; known && strings.HasSuffix(o.Name(), suffix) {
				return af, true, ""
			}
		}
		return atomicFunc{}, true, fmt.Sprintf("atomic.%s is not supported in kernels: kernels may call Add, Load, Store, Swap, CompareAndSwap, And and Or of sync/atomic on elements of slices of int32, int64, uint32, uint64 and uintptr, and qd.AtomicAdd, qd.AtomicMin and qd.AtomicMax on any numeric element", o.Name())
	}
	return atomicFunc{}, false, ""
}

// atomic lowers a call of an atomic function.
func (f *frame) atomic(v *ssa.Call, af atomicFunc, dst []ir.Reg) {
	tb := f.tb
	args := v.Common().Args
	ptr, _ := args[0].Type().Underlying().(*types.Pointer)
	var t ir.Type
	ok := ptr != nil
	if ok {
		t, ok = basicType(ptr.Elem())
	}
	if !ok || !af.op.Info().Types.Has(t) {
		f.errorf(v.Pos(), "%s on %s is not supported in kernels", origin(v.Common().StaticCallee()).Name(), args[0].Type())
		return
	}
	in := ir.Instr{Op: af.op, Type: t, Dst: ir.NoReg, Args: []ir.Arg{ir.R(f.regs(args[0])[0])}, Pos: v.Pos()}
	for _, a := range args[1:] {
		in.Args = append(in.Args, f.arg(a))
	}
	switch af.result {
	case resultOld:
		in.Dst = dst[0]
		tb.emit(in)
	case resultNone:
		tb.emit(in)
	case resultNew:
		in.Dst = tb.t.NewReg(t)
		tb.emit(in)
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: t, Dst: dst[0], Args: []ir.Arg{ir.R(in.Dst), in.Args[1]}, Pos: v.Pos()})
	case resultSwapped:
		in.Dst = tb.t.NewReg(t)
		tb.emit(in)
		tb.emit(ir.Instr{Op: ir.OpEq, Type: t, Dst: dst[0], Args: []ir.Arg{ir.R(in.Dst), in.Args[1]}, Pos: v.Pos()})
	}
}
