package analyzer

import (
	"go/types"

	"github.com/qdgo/qd/lower"
	"golang.org/x/tools/go/analysis"
)

// rtPath is the import path of qd's runtime.
const rtPath = lower.QDPath + "/rt"

// bufferGenerics are the generic types and functions of rt whose type
// argument is a buffer's element type.
var bufferGenerics = map[string]bool{"Buffer": true, "HostBuffer": true, "Alloc": true, "AllocOn": true, "FromSlice": true, "AllocHost": true}

// checkBufferElements reports every use of rt.Buffer and its allocators
// with an element type kernels cannot read: one that holds a pointer, a
// string, a slice, a map, a channel, a function or an interface. rt
// checks the same when it makes a buffer; a generic constraint cannot say
// it, so the analyzer says it where the code is written.
func checkBufferElements(pass *analysis.Pass) {
	for id, inst := range pass.TypesInfo.Instances {
		obj := pass.TypesInfo.Uses[id]
		if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != rtPath || !bufferGenerics[obj.Name()] || inst.TypeArgs.Len() != 1 {
			continue
		}
		elem := inst.TypeArgs.At(0)
		if hasTypeParam(elem) {
			continue // checked where it is instantiated
		}
		if err := lower.CheckElement(elem); err != nil {
			pass.Reportf(id.Pos(), "rt.%s of %s: %v; buffers hold numbers, bools, complex numbers, and structs and arrays of these", obj.Name(), elem, err)
		}
	}
}

// hasTypeParam reports whether t mentions a type parameter.
func hasTypeParam(t types.Type) bool {
	switch t := t.(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		for i := range t.TypeArgs().Len() {
			if hasTypeParam(t.TypeArgs().At(i)) {
				return true
			}
		}
	case *types.Array:
		return hasTypeParam(t.Elem())
	case *types.Struct:
		for i := range t.NumFields() {
			if hasTypeParam(t.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}
