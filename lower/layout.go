package lower

import (
	"fmt"
	"go/types"

	"github.com/qdgo/qd/ir"
)

// hostSizes lays values out as the gc compiler does on 64-bit hosts
// (amd64 and arm64 agree): the layout of the Go slices rt.Buffer copies
// to the device byte for byte, so kernels must read them the same way.
var hostSizes = types.SizesFor("gc", "amd64")

// A leaf is one scalar of a value as it lies in memory: a number, a bool,
// or one half of a complex number. A struct, array or complex value is
// held in one register per leaf, in memory order.
type leaf struct {
	off int64 // from the start of the value
	typ ir.Type
}

// maxRegisterLeaves bounds the registers one value may occupy. Larger
// arrays stay in memory and are indexed there; copying one as a whole is
// reported.
const maxRegisterLeaves = 1024

// unsupportedPart names the first part of a type kernels cannot hold: a
// field or element of a string, pointer, slice, map, channel, function or
// interface type.
type unsupportedPart struct {
	path string // "field Name of Particle", or "" for the type itself
	typ  types.Type
}

func (u *unsupportedPart) Error() string {
	if u.path == "" {
		return fmt.Sprintf("%s are not supported", describeType(u.typ))
	}
	return fmt.Sprintf("%s has type %s, and %s are not supported", u.path, u.typ, describeType(u.typ))
}

// leaves returns the scalars of a value of type t in memory order.
func leaves(t types.Type) ([]leaf, error) {
	var out []leaf
	err := appendLeaves(&out, t, 0, "")
	return out, err
}

func appendLeaves(out *[]leaf, t types.Type, off int64, path string) error {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if bt, ok := basicType(u); ok {
			*out = append(*out, leaf{off, bt})
			return nil
		}
		switch u.Kind() {
		case types.Complex64, types.UntypedComplex:
			half := ir.Float32
			if u.Kind() == types.UntypedComplex {
				half = ir.Float64
			}
			*out = append(*out, leaf{off, half}, leaf{off + int64(half.Size()), half})
			return nil
		case types.Complex128:
			*out = append(*out, leaf{off, ir.Float64}, leaf{off + 8, ir.Float64})
			return nil
		}
	case *types.Struct:
		fields := make([]*types.Var, u.NumFields())
		for i := range fields {
			fields[i] = u.Field(i)
		}
		offsets := hostSizes.Offsetsof(fields)
		for i, f := range fields {
			if err := appendLeaves(out, f.Type(), off+offsets[i], fieldPath(t, f)); err != nil {
				return err
			}
		}
		return nil
	case *types.Array:
		var elem []leaf
		if err := appendLeaves(&elem, u.Elem(), 0, elemPath(t, path)); err != nil {
			return err
		}
		stride := hostSizes.Sizeof(u.Elem())
		for i := range u.Len() {
			for _, l := range elem {
				*out = append(*out, leaf{off + i*stride + l.off, l.typ})
			}
		}
		return nil
	}
	return &unsupportedPart{path, t}
}

func fieldPath(owner types.Type, f *types.Var) string {
	name := owner.String()
	if n, ok := types.Unalias(owner).(*types.Named); ok {
		name = n.Obj().Name()
	}
	return fmt.Sprintf("field %s of %s", f.Name(), name)
}

func elemPath(array types.Type, outer string) string {
	if outer != "" {
		return "an element of " + outer
	}
	return "the element type of " + array.String()
}

// CheckElement reports why values of type t cannot be the elements of a
// kernel's slice parameter (or of an rt.Buffer), if they cannot: it names
// the first field or element that is not a number, a bool, a complex
// number, or a struct or array of these.
func CheckElement(t types.Type) error {
	_, err := leaves(t)
	return err
}

// isAggregate reports whether values of t are held in several registers:
// structs, arrays and complex numbers.
func isAggregate(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Struct, *types.Array:
		return true
	case *types.Basic:
		return u.Info()&types.IsComplex != 0
	}
	return false
}

// leafTypes returns the register types of a value of type t held in
// registers, or an error when kernels cannot hold it there.
func leafTypes(t types.Type) ([]ir.Type, error) {
	ls, err := leaves(t)
	if err != nil {
		return nil, err
	}
	if len(ls) > maxRegisterLeaves {
		return nil, fmt.Errorf("a value of type %s has %d scalars, more than a thread holds in registers (%d); index it where it lies instead of copying it", t, len(ls), maxRegisterLeaves)
	}
	ts := make([]ir.Type, len(ls))
	for i, l := range ls {
		ts[i] = l.typ
	}
	return ts, nil
}

// leafCount is the number of registers that hold a value of type t.
func leafCount(t types.Type) int {
	ls, _ := leaves(t)
	return len(ls)
}

// partRange returns which of the leaves of a struct value are field i's,
// or of an array value element i's.
func partRange(t types.Type, i int) (start, n int) {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for j := range i {
			start += leafCount(u.Field(j).Type())
		}
		return start, leafCount(u.Field(i).Type())
	case *types.Array:
		n = leafCount(u.Elem())
		return i * n, n
	}
	return 0, 0
}

// fieldOffset is the offset of field i of the struct type t.
func fieldOffset(t types.Type, i int) int64 {
	st := t.Underlying().(*types.Struct)
	fields := make([]*types.Var, st.NumFields())
	for j := range fields {
		fields[j] = st.Field(j)
	}
	return hostSizes.Offsetsof(fields)[i]
}

// elemSize is the distance between the elements of a slice or array of t.
func elemSize(t types.Type) int64 { return hostSizes.Sizeof(t) }
