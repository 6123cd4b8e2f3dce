package lower

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// Struct and array parameters are passed by value, flattened: each number
// or bool they hold is a scalar parameter of the IR of its own, named by
// its path in the Go parameter ("p.N", "p.Taps.2" for p.Taps[2]), in the
// order of the value's registers (leaves). The stub packs p.N into the
// launch's arguments as it packs a scalar, so a field can size a launch
// (for i := range p.N) like any scalar parameter.

// aggregateParams flattens the struct or array parameter p, or reports
// what it holds that cannot be passed by value.
func (l *lowerer) aggregateParams(p *ssa.Parameter) ([]ir.Param, bool) {
	var params []ir.Param
	var walk func(t types.Type, path string) string
	walk = func(t types.Type, path string) string {
		switch u := t.Underlying().(type) {
		case *types.Basic:
			if bt, ok := basicType(u); ok {
				params = append(params, ir.Param{Name: path, Type: bt})
				return ""
			}
		case *types.Struct:
			for i := range u.NumFields() {
				f := u.Field(i)
				if bad := walk(f.Type(), path+"."+f.Name()); bad != "" {
					return bad
				}
			}
			return ""
		case *types.Array:
			for i := range u.Len() {
				if bad := walk(u.Elem(), fmt.Sprintf("%s.%d", path, i)); bad != "" {
					return bad
				}
			}
			return ""
		}
		return fmt.Sprintf("%s has type %s", ir.GoPath(path), t)
	}
	if bad := walk(p.Type(), p.Name()); bad != "" {
		l.errorf(p.Pos(), "kernel parameter %s has type %s, and %s: a struct or array parameter is passed by value and may hold only numbers, bools, and structs and arrays of these; pass a slice, pointer or string as a parameter of its own, and complex numbers as their real and imaginary parts", p.Name(), p.Type(), bad)
		return nil, false
	}
	return params, true
}

// passedFlat reports whether a parameter of type t is a struct or an
// array, passed flattened.
func passedFlat(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Struct, *types.Array:
		return true
	}
	return false
}

// paramLeaf returns the index among the kernel's IR parameters of the
// scalar v reads from a struct or array parameter, through fields and
// elements of constant index: p.N, p.Taps[2].
func (l *lowerer) paramLeaf(v ssa.Value) (int, bool) {
	switch v := v.(type) {
	case *ssa.Parameter:
		i, ok := l.params[v]
		return i, ok && passedFlat(v.Type())
	case *ssa.Field:
		base, ok := l.paramLeaf(v.X)
		if !ok {
			return 0, false
		}
		st := v.X.Type().Underlying().(*types.Struct)
		for i := range v.Field {
			base += leafCount(st.Field(i).Type())
		}
		return base, true
	case *ssa.Index:
		return l.elementLeaf(v.X, v.X.Type(), v.Index)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return l.paramLeafAt(v.X)
		}
	}
	return 0, false
}

// paramLeafAt is paramLeaf for a load from the address v: of a field or
// element of the variable that holds a parameter the kernel never
// changes, which Go's SSA makes of a parameter a kernel indexes by a
// variable (p.Taps[i]).
func (l *lowerer) paramLeafAt(v ssa.Value) (int, bool) {
	switch v := v.(type) {
	case *ssa.Alloc:
		if p := l.paramCopy(v); p != nil {
			return l.paramLeaf(p)
		}
	case *ssa.FieldAddr:
		base, ok := l.paramLeafAt(v.X)
		if !ok {
			return 0, false
		}
		st := v.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)
		for i := range v.Field {
			base += leafCount(st.Field(i).Type())
		}
		return base, true
	case *ssa.IndexAddr:
		if pt, ok := v.X.Type().Underlying().(*types.Pointer); ok {
			if base, ok := l.paramLeafAt(v.X); ok {
				return l.elementLeafOf(base, pt.Elem(), v.Index)
			}
		}
	}
	return 0, false
}

// elementLeaf is paramLeaf for element index of the array x.
func (l *lowerer) elementLeaf(x ssa.Value, t types.Type, index ssa.Value) (int, bool) {
	base, ok := l.paramLeaf(x)
	if !ok {
		return 0, false
	}
	return l.elementLeafOf(base, t, index)
}

// elementLeafOf is the first leaf of the element of constant index of an
// array of type t whose first leaf is base.
func (l *lowerer) elementLeafOf(base int, t types.Type, index ssa.Value) (int, bool) {
	c, isConst := index.(*ssa.Const)
	at, isArray := t.Underlying().(*types.Array)
	if !isConst || !isArray {
		return 0, false
	}
	i, exact := constant.Int64Val(constant.ToInt(c.Value))
	if !exact || i < 0 || i >= at.Len() {
		return 0, false
	}
	return base + int(i)*leafCount(at.Elem()), true
}

// paramCopy returns the struct or array parameter the variable a holds,
// when a is stored to once, with the parameter, and otherwise only read
// through its fields and elements; or nil.
func (l *lowerer) paramCopy(a *ssa.Alloc) *ssa.Parameter {
	var param *ssa.Parameter
	var readOnly func(v ssa.Value) bool
	readOnly = func(v ssa.Value) bool {
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				p, ok := r.Val.(*ssa.Parameter)
				if v != a || r.Addr != a || !ok || param != nil {
					return false
				}
				param = p
			case *ssa.FieldAddr:
				if !readOnly(r) {
					return false
				}
			case *ssa.IndexAddr:
				if !readOnly(r) {
					return false
				}
			case *ssa.UnOp:
				if r.Op != token.MUL {
					return false
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	if !readOnly(a) || param == nil {
		return nil
	}
	if _, ok := l.params[param]; !ok || !passedFlat(param.Type()) {
		return nil
	}
	return param
}
