package lower

import (
	"go/types"

	"github.com/qdgo/qd/ir"
)

// basicType maps a Go type to the IR type of its values, if it is one of the
// scalar types kernels support. int and uint are 64-bit, as in Go on every
// platform qd targets.
func basicType(t types.Type) (ir.Type, bool) {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return ir.Invalid, false
	}
	switch b.Kind() {
	case types.Bool, types.UntypedBool:
		return ir.Bool, true
	case types.Int8:
		return ir.Int8, true
	case types.Int16:
		return ir.Int16, true
	case types.Int32, types.UntypedRune:
		return ir.Int32, true
	case types.Int64, types.Int, types.UntypedInt:
		return ir.Int64, true
	case types.Uint8:
		return ir.Uint8, true
	case types.Uint16:
		return ir.Uint16, true
	case types.Uint32:
		return ir.Uint32, true
	case types.Uint64, types.Uint, types.Uintptr:
		return ir.Uint64, true
	case types.Float32:
		return ir.Float32, true
	case types.Float64, types.UntypedFloat:
		return ir.Float64, true
	}
	return ir.Invalid, false
}

// sliceElem returns the IR element type of a slice type.
func sliceElem(t types.Type) (ir.Type, bool) {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return ir.Invalid, false
	}
	et, ok := basicType(s.Elem())
	return et, ok && et != ir.Bool
}

// regCount is the number of IR registers that hold one value of type t:
// three for a slice (address, length, capacity), one for a scalar, one per
// component for a tuple of scalars. It is 0 for unsupported types.
func regTypes(t types.Type) ([]ir.Type, bool) {
	switch u := t.(type) {
	case *types.Tuple:
		var all []ir.Type
		for i := range u.Len() {
			ts, ok := regTypes(u.At(i).Type())
			if !ok {
				return nil, false
			}
			all = append(all, ts...)
		}
		return all, true
	}
	if _, ok := sliceElem(t); ok {
		return []ir.Type{ir.Ptr, ir.Int64, ir.Int64}, true
	}
	if bt, ok := basicType(t); ok {
		return []ir.Type{bt}, true
	}
	return nil, false
}

// describeType names the kind of an unsupported type for diagnostics.
func describeType(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return "strings"
		case u.Info()&types.IsComplex != 0:
			return "complex numbers"
		case u.Kind() == types.UnsafePointer:
			return "unsafe pointers"
		}
	case *types.Slice:
		return "slices of " + types.TypeString(u.Elem(), (*types.Package).Name)
	case *types.Array:
		return "arrays"
	case *types.Struct:
		return "structs"
	case *types.Pointer:
		return "pointers"
	case *types.Map:
		return "maps"
	case *types.Chan:
		return "channels"
	case *types.Interface:
		return "interfaces"
	case *types.Signature:
		return "function values"
	}
	return "values of type " + t.String()
}
