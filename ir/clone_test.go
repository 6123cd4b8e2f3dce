package ir_test

import (
	"go/token"
	"reflect"
	"strconv"
	"testing"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/irtest"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestClone checks that a kernel's copy equals it and shares no memory
// with it, fields added to the IR later included.
func TestClone(t *testing.T) {
	files := lowertest.Load(t, "../lower/testdata/src/kernels")
	files = append(files, lowertest.File{Name: "call", Kernels: []*ir.Kernel{irtest.CallKernel(false)}})
	for _, f := range files {
		for _, k := range f.Kernels {
			c := k.Clone()
			if !reflect.DeepEqual(c, k) {
				t.Errorf("%s: the copy differs", k.Name)
			}
			if path := shared(reflect.ValueOf(c), reflect.ValueOf(k), k.Name); path != "" {
				t.Errorf("the copy shares %s with the original", path)
			}
		}
	}
}

// shared returns the path of the first pointer or slice that a and b
// share, or "".
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() || a.Type() == reflect.TypeFor[*token.FileSet]() {
			return "" // the positions' file set is read only, shared by design
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Cap() > 0 && b.Cap() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := shared(a.Index(i), b.Index(i), path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
		if !a.IsNil() {
			return path + " (a " + a.Kind().String() + ", which the copy does not handle)"
		}
	}
	return ""
}
