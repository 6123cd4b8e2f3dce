package rt

import (
	"fmt"
	"reflect"
	"sync"
)

// Element is the constraint of the elements of buffers: types whose values
// are plain data (numbers, bools, complex numbers, and arrays and structs
// of these), which kernels read in Go's own memory layout. All of these
// are comparable, so the compiler rejects slices, maps and functions, and
// arrays and structs that hold them. A constraint cannot exclude pointers,
// strings, channels or interfaces, so Alloc and AllocHost check the type
// when they make a buffer, and the qd analyzer (qdvet) checks it where
// code is compiled.
type Element interface{ comparable }

// Number is the set of numeric types; buffers of them are the most common.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~float32 | ~float64
}

var elementErrors sync.Map // reflect.Type → error (nil when valid)

// checkElement reports why T cannot be a buffer's element, if it cannot:
// the first part of it that holds a pointer, a string, a slice, a map, a
// channel, a function or an interface, which would mean nothing on a GPU.
func checkElement[T any]() error {
	t := reflect.TypeFor[T]()
	if err, ok := elementErrors.Load(t); ok {
		err, _ := err.(error)
		return err
	}
	var err error
	if part, bad := plainData(t, ""); bad != nil {
		what := "it"
		if part != "" {
			what = part
		}
		err = fmt.Errorf("buffer element type %s: %s has type %s; buffers hold numbers, bools, complex numbers, and arrays and structs of these", t, what, bad)
	}
	elementErrors.Store(t, err)
	return err
}

// plainData returns the path and type of the first part of t that is not
// plain data, or a nil type.
func plainData(t reflect.Type, path string) (string, reflect.Type) {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return "", nil
	case reflect.Array:
		return plainData(t.Elem(), join(path, "element"))
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if p, bad := plainData(f.Type, join(path, "field "+f.Name)); bad != nil {
				return p, bad
			}
		}
		return "", nil
	}
	return path, t
}

func join(outer, inner string) string {
	if outer == "" {
		return inner
	}
	return inner + " of " + outer
}
