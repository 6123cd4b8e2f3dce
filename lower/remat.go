package lower

import (
	"go/constant"
	"go/token"
	"go/types"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// isPure reports whether v is a function of the kernel's parameters,
// constants and reductions' results alone: it reads no memory (but the
// results) and does not depend on control flow. Such values can be
// computed again in any task.
func (l *lowerer) isPure(v ssa.Value) bool {
	if p, ok := v.(*ssa.Parameter); ok && l.bound[p] != nil {
		return l.isPure(l.bound[p]) // what it stands for differs from call to call
	}
	if p, ok := l.pure[v]; ok {
		return p
	}
	if l.pure == nil {
		l.pure = make(map[ssa.Value]bool)
	}
	l.pure[v] = false // cycles through phis are not pure
	p := l.computePure(v)
	l.pure[v] = p
	return p
}

func (l *lowerer) computePure(v ssa.Value) bool {
	if l.results[v] != nil {
		return true // read from scratch memory wherever it is used
	}
	operandsPure := func(instr ssa.Instruction) bool {
		var ops [8]*ssa.Value
		for _, op := range instr.Operands(ops[:0]) {
			if *op == nil {
				continue
			}
			switch (*op).(type) {
			case *ssa.Builtin, *ssa.Function:
				continue
			}
			if !l.isPure(*op) {
				return false
			}
		}
		return true
	}
	switch v := v.(type) {
	case *ssa.Const, *ssa.Parameter, *ssa.FreeVar:
		return true
	case *ssa.BinOp, *ssa.Convert, *ssa.ChangeType, *ssa.Slice, *ssa.Extract, *ssa.IndexAddr,
		*ssa.FieldAddr, *ssa.Field, *ssa.Index:
		return operandsPure(v.(ssa.Instruction))
	case *ssa.Global:
		return true // the address of a constant table
	case *ssa.Alloc:
		return l.replayable(v) // a local variable a task can build again
	case *ssa.UnOp:
		if v.Op == token.MUL {
			switch x := v.X.(type) {
			case *ssa.FreeVar:
				value, ok := l.captured[x]
				return ok && l.isPure(value)
			case *ssa.Alloc:
				if value, ok := l.cells[x]; ok {
					return l.isPure(value)
				}
			}
			// Constant tables never change, nor do local variables built
			// once (replay.go) after they are built.
			return (rootGlobal(v.X) != nil || l.readsBuiltLocal(v)) && operandsPure(v)
		}
		return v.Op != token.ARROW && operandsPure(v)
	case *ssa.Call:
		common := v.Common()
		if _, marker := blockMarker(v); marker != "" {
			return l.isPure(common.Args[0])
		}
		if common.IsInvoke() || !operandsPure(v) {
			return false
		}
		if b, ok := common.Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "min", "max":
				return true
			}
			return false
		}
		callee := common.StaticCallee()
		if isLibraryFunc(callee) {
			return true
		}
		return callee != nil && l.pureFunction(callee)
	}
	return false
}

// pureFunction reports whether fn neither reads nor writes memory.
func (l *lowerer) pureFunction(fn *ssa.Function) bool {
	if fn.Blocks == nil && fn.Pkg != nil {
		fn.Pkg.Build()
	}
	if fn.Blocks == nil && l.cfg.External != nil {
		pure, err := l.cfg.External(fn)
		return err == nil && pure
	}
	if fn.Blocks == nil || len(fn.FreeVars) > 0 {
		return false
	}
	if l.pure == nil {
		l.pure = make(map[ssa.Value]bool)
	}
	key := ssa.Value(fn)
	if p, ok := l.pure[key]; ok {
		return p
	}
	l.pure[key] = false // recursion is reported elsewhere
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.Store:
				if !isLocal(in.Addr, fn) {
					return false
				}
			case *ssa.Go, *ssa.Defer:
				return false
			case *ssa.Panic:
				if !isLibraryPackage(fn) {
					return false // a library's panic touches no memory (libraryPanic)
				}
			case *ssa.UnOp:
				// A library reads only its own tables, which no kernel
				// writes, through pointers that pick one (pzero of j0.go).
				if in.Op == token.ARROW || in.Op == token.MUL && !isLocal(in.X, fn) && rootGlobal(in.X) == nil && !isLibraryPackage(fn) {
					return false
				}
			case *ssa.Call:
				common := in.Common()
				if common.IsInvoke() {
					return false
				}
				if b, ok := common.Value.(*ssa.Builtin); ok {
					switch b.Name() {
					case "len", "cap", "min", "max", "complex", "real", "imag":
						continue
					}
					return false
				}
				callee := common.StaticCallee()
				if isLibraryFunc(callee) {
					continue
				}
				if callee == nil || !l.pureFunction(callee) {
					return false
				}
			}
		}
	}
	l.pure[key] = true
	return true
}

// isLocal reports whether addr points into a variable of fn itself,
// following field and element addresses: what fn does there is invisible
// to its callers.
func isLocal(addr ssa.Value, fn *ssa.Function) bool {
	for {
		switch a := addr.(type) {
		case *ssa.Alloc:
			return a.Parent() == fn
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			if _, ok := a.X.Type().Underlying().(*types.Pointer); !ok {
				return false
			}
			addr = a.X
		default:
			return false
		}
	}
}

// hostExpr translates v into an expression the host can evaluate before a
// launch, or returns nil. Only parameters, constants, lengths of slice
// parameters and integer operations that cannot fail are allowed.
func (l *lowerer) hostExpr(v ssa.Value) *ir.Expr {
	t, ok := basicType(v.Type())
	if !ok || !t.IsInteger() {
		return nil
	}
	switch v := v.(type) {
	case *ssa.Const:
		return &ir.Expr{Op: ir.OpConst, Type: t, Bits: constBits(v, t)}
	case *ssa.Parameter:
		if b, ok := l.bound[v]; ok {
			return hostConvert(l.hostExpr(b), t)
		}
		if i, ok := l.params[v]; ok && !l.k.Params[i].Slice {
			return &ir.Expr{Op: ir.OpParam, Type: t, Aux: int64(i)}
		}
	case *ssa.Field, *ssa.Index:
		if i, ok := l.paramLeaf(v); ok {
			return &ir.Expr{Op: ir.OpParam, Type: t, Aux: int64(i)}
		}
	case *ssa.UnOp:
		if v.Op == token.MUL {
			switch x := v.X.(type) {
			case *ssa.FreeVar:
				if value, ok := l.captured[x]; ok {
					return l.hostExpr(value)
				}
			case *ssa.Alloc:
				if value, ok := l.cells[x]; ok {
					return l.hostExpr(value)
				}
			}
			if i, ok := l.paramLeaf(v); ok {
				return &ir.Expr{Op: ir.OpParam, Type: t, Aux: int64(i)}
			}
			return nil
		}
		op := map[token.Token]ir.Op{token.SUB: ir.OpNeg, token.XOR: ir.OpNot}[v.Op]
		if x := l.hostExpr(v.X); x != nil && op != ir.OpInvalid {
			return &ir.Expr{Op: op, Type: t, Args: []*ir.Expr{x}}
		}
	case *ssa.BinOp:
		op := binOps[v.Op]
		if (op == ir.OpDiv || op == ir.OpRem) && !isNonZeroConst(v.Y) {
			return nil // the host must not divide by zero
		}
		if !op.Info().Expr {
			return nil
		}
		x, y := l.hostExpr(v.X), l.hostExpr(v.Y)
		if x == nil || y == nil {
			return nil
		}
		e := &ir.Expr{Op: op, Type: t, Args: []*ir.Expr{x, y}}
		if op == ir.OpShl || op == ir.OpShr {
			e.From = y.Type
		}
		return e
	case *ssa.Convert:
		return hostConvert(l.hostExpr(v.X), t)
	case *ssa.ChangeType:
		return hostConvert(l.hostExpr(v.X), t)
	case *ssa.Call:
		if _, marker := blockMarker(v); marker != "" {
			return l.hostExpr(v.Call.Args[0])
		}
		common := v.Common()
		b, ok := common.Value.(*ssa.Builtin)
		if !ok {
			return nil
		}
		switch b.Name() {
		case "len", "cap":
			if p := l.sliceParam(common.Args[0]); p >= 0 {
				return &ir.Expr{Op: ir.OpParamLen, Type: ir.Int64, Aux: int64(p)}
			}
		case "min", "max":
			op := ir.OpMin
			if b.Name() == "max" {
				op = ir.OpMax
			}
			acc := l.hostExpr(common.Args[0])
			for _, a := range common.Args[1:] {
				y := l.hostExpr(a)
				if acc == nil || y == nil {
					return nil
				}
				acc = &ir.Expr{Op: op, Type: t, Args: []*ir.Expr{acc, y}}
			}
			return acc
		}
	}
	return nil
}

func hostConvert(x *ir.Expr, t ir.Type) *ir.Expr {
	if x == nil || x.Type == t {
		return x
	}
	return &ir.Expr{Op: ir.OpConvert, Type: t, From: x.Type, Args: []*ir.Expr{x}}
}

// sliceParam returns the index of the slice parameter v is, or -1.
func (l *lowerer) sliceParam(v ssa.Value) int {
	for {
		p, ok := v.(*ssa.Parameter)
		if !ok || l.bound[p] == nil {
			break
		}
		v = l.bound[p]
	}
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		switch x := u.X.(type) {
		case *ssa.FreeVar:
			v = l.captured[x]
		case *ssa.Alloc:
			v = l.cells[x]
		}
	}
	if p, ok := v.(*ssa.Parameter); ok {
		if i, ok := l.params[p]; ok && l.k.Params[i].Slice {
			return i
		}
	}
	return -1
}

func isNonZeroConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && constant.Sign(c.Value) != 0
}
