// Package kerneltest runs kernels through their generated stubs and
// compares them with their Go functions: it draws arguments of any kernel
// signature, uploads them, calls a stub by name and compares the slices
// bit for bit. The end-to-end tests and the random programs use it.
package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"unsafe"

	"github.com/qdgo/qd/rt"
)

// RandomArgs draws an argument for each parameter of fn: slices of length
// n with values from the whole range of their type (special float values
// included), and scalars in a small range around n.
func RandomArgs(fn any, r *rand.Rand, n int) []any {
	ft := reflect.TypeOf(fn)
	args := make([]any, ft.NumIn())
	for i := range args {
		t := ft.In(i)
		if t.Kind() == reflect.Slice {
			s := reflect.MakeSlice(t, n, n)
			for j := range n {
				s.Index(j).Set(RandomValue(t.Elem(), r))
			}
			args[i] = s.Interface()
			continue
		}
		v := reflect.New(t).Elem()
		switch t.Kind() {
		case reflect.Array, reflect.Struct: // passed by value
			v = RandomValue(t, r)
		case reflect.Bool:
			v.SetBool(r.IntN(2) == 1)
		case reflect.Float32, reflect.Float64:
			v.SetFloat(r.NormFloat64() * 10)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			v.SetUint(uint64(r.IntN(3*n + 1)))
		default:
			v.SetInt(int64(r.IntN(3*n+16)) - 8)
		}
		args[i] = v.Interface()
	}
	return args
}

var specialFloats = []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
	math.SmallestNonzeroFloat64, 1e-310, math.MaxFloat64, 0.5, -2.5, 1e20, 3}

// RandomValue draws a value of type t: for numbers mostly uniform bits,
// with edge values mixed in; bools, complex numbers, arrays and structs
// part by part.
func RandomValue(t reflect.Type, r *rand.Rand) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Complex64, reflect.Complex128:
		part := reflect.TypeFor[float64]()
		v.SetComplex(complex(RandomValue(part, r).Float(), RandomValue(part, r).Float()))
	case reflect.Array:
		for i := range t.Len() {
			v.Index(i).Set(RandomValue(t.Elem(), r))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(RandomValue(t.Field(i).Type, r))
			}
		}
	case reflect.Float32, reflect.Float64:
		switch r.IntN(4) {
		case 0:
			v.SetFloat(specialFloats[r.IntN(len(specialFloats))])
		case 1:
			v.SetFloat(float64(r.IntN(64) - 32))
		default:
			v.SetFloat(r.NormFloat64() * math.Pow(10, float64(r.IntN(12)-6)))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		switch r.IntN(4) {
		case 0:
			edges := []int64{0, 1, -1, 2, -2, 7, -7, 1<<(bits-1) - 1, -1 << (bits - 1)}
			v.SetInt(edges[r.IntN(len(edges))])
		default:
			v.SetInt(int64(r.Uint64()) >> (64 - bits) >> r.IntN(bits))
		}
	default:
		bits := t.Bits()
		switch r.IntN(4) {
		case 0:
			edges := []uint64{0, 1, 2, 7, 1<<bits - 1, 1 << (bits - 1)}
			v.SetUint(edges[r.IntN(len(edges))])
		default:
			v.SetUint(r.Uint64() >> (64 - bits) >> r.IntN(bits))
		}
	}
	return v
}

// CloneArgs deep-copies slices so that two runs start from the same data.
func CloneArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		v := reflect.ValueOf(a)
		if v.Kind() == reflect.Slice {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			out[i] = c.Interface()
		} else {
			out[i] = a
		}
	}
	return out
}

// CallGo runs the kernel's Go function on args.
func CallGo(fn any, args []any) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = reflect.ValueOf(a)
	}
	reflect.ValueOf(fn).Call(in)
	return nil
}

// Compare compares the slices of two runs: integers exactly, floats bit
// for bit (0 ulp) with every NaN equal to every other. It describes the
// first max differences of each argument, and the count of each argument's.
func Compare(want, got []any, max int) []string {
	var diffs []string
	for i := range want {
		wv, gv := reflect.ValueOf(want[i]), reflect.ValueOf(got[i])
		if wv.Kind() != reflect.Slice {
			continue
		}
		bad := 0
		for j := range wv.Len() {
			w, g := wv.Index(j), gv.Index(j)
			if !SameValue(w, g) {
				if bad < max {
					diffs = append(diffs, fmt.Sprintf("argument %d, element %d: got %v, want %v", i, j, g, w))
				}
				bad++
			}
		}
		if bad > 0 {
			diffs = append(diffs, fmt.Sprintf("argument %d: %d of %d elements differ", i, bad, wv.Len()))
		}
	}
	return diffs
}

// SameValue reports whether two values are the same bits, any NaN
// matching any other; arrays and structs compare part by part (exported
// fields).
func SameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		return SameValue(reflect.ValueOf(real(x)), reflect.ValueOf(real(y))) &&
			SameValue(reflect.ValueOf(imag(x)), reflect.ValueOf(imag(y)))
	case reflect.Array:
		for i := range a.Len() {
			if !SameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() && !SameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Float32:
		x, y := float32(a.Float()), float32(b.Float())
		return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y
	case reflect.Float64:
		x, y := a.Float(), b.Float()
		return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y
	}
	return a.Interface() == b.Interface()
}

// Upload puts each slice argument into a device buffer; the returned
// arguments are those of the kernel's stub, and read copies the buffers
// back into a fresh argument list.
func Upload(dev *rt.Device, args []any) (stubArgs []any, read func() ([]any, error), free func(), err error) {
	var readers []func() (any, error)
	var frees []func()
	free = func() {
		for _, f := range frees {
			f()
		}
	}
	stubArgs = make([]any, len(args))
	for i, a := range args {
		if reflect.ValueOf(a).Kind() != reflect.Slice {
			stubArgs[i] = a
			readers = append(readers, func() (any, error) { return a, nil })
			continue
		}
		var b any
		var rd func() (any, error)
		var fr func()
		switch s := a.(type) {
		case []int8:
			b, rd, fr, err = toBuffer(dev, s)
		case []int16:
			b, rd, fr, err = toBuffer(dev, s)
		case []int32:
			b, rd, fr, err = toBuffer(dev, s)
		case []int64:
			b, rd, fr, err = toBuffer(dev, s)
		case []int:
			b, rd, fr, err = toBuffer(dev, s)
		case []uint8:
			b, rd, fr, err = toBuffer(dev, s)
		case []uint16:
			b, rd, fr, err = toBuffer(dev, s)
		case []uint32:
			b, rd, fr, err = toBuffer(dev, s)
		case []uint64:
			b, rd, fr, err = toBuffer(dev, s)
		case []uint:
			b, rd, fr, err = toBuffer(dev, s)
		case []float32:
			b, rd, fr, err = toBuffer(dev, s)
		case []float64:
			b, rd, fr, err = toBuffer(dev, s)
		case []bool:
			b, rd, fr, err = toBuffer(dev, s)
		case []complex64:
			b, rd, fr, err = toBuffer(dev, s)
		case []complex128:
			b, rd, fr, err = toBuffer(dev, s)
		default:
			up, ok := uploaders[reflect.TypeOf(a)]
			if !ok {
				err = fmt.Errorf("no buffer type for %T; RegisterBuffer it", a)
				break
			}
			b, rd, fr, err = up(dev, a)
		}
		if err != nil {
			free()
			return nil, nil, nil, err
		}
		stubArgs[i] = b
		readers = append(readers, rd)
		frees = append(frees, fr)
	}
	read = func() ([]any, error) {
		out := make([]any, len(readers))
		for i, rd := range readers {
			v, err := rd()
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return stubArgs, read, free, nil
}

// uploaders put slices of the element types of RegisterBuffer in buffers.
var uploaders = map[reflect.Type]func(*rt.Device, any) (any, func() (any, error), func(), error){}

// RegisterBuffer lets Upload put slices of T, a struct or array type of
// the kernels under test, in buffers: the buffer's type must be named at
// compile time.
func RegisterBuffer[T rt.Element]() {
	uploaders[reflect.TypeFor[[]T]()] = func(dev *rt.Device, a any) (any, func() (any, error), func(), error) {
		return toBuffer(dev, a.([]T))
	}
}

func toBuffer[T rt.Element](dev *rt.Device, s []T) (any, func() (any, error), func(), error) {
	b, err := rt.FromSlice(dev, s)
	if err != nil {
		return nil, nil, nil, err
	}
	read := func() (any, error) {
		v, err := b.Read()
		return v, err
	}
	return b, read, func() { b.Free() }, nil
}

// CallStub launches the kernel's stub, a method of ks, on stubArgs.
func CallStub(ks any, name string, stubArgs []any, opts ...rt.LaunchOption) error {
	m := reflect.ValueOf(ks).MethodByName(name)
	if !m.IsValid() {
		return fmt.Errorf("no stub %s", name)
	}
	in := make([]reflect.Value, 0, len(stubArgs)+len(opts))
	for _, a := range stubArgs {
		in = append(in, reflect.ValueOf(a))
	}
	for _, o := range opts {
		in = append(in, reflect.ValueOf(o))
	}
	out := m.Call(in)
	if err, _ := out[0].Interface().(error); err != nil {
		return err
	}
	return nil
}

// SliceBytes views a numeric slice as bytes.
func SliceBytes(s any) []byte {
	v := reflect.ValueOf(s)
	if v.Len() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(v.Pointer())), v.Len()*int(v.Type().Elem().Size()))
}

// FlatArgs lists the kernel arguments args as the IR takes them: a struct
// or array argument, passed by value, becomes one argument per number or
// bool it holds, in memory order.
func FlatArgs(args []any) []any {
	var flat []any
	var add func(v reflect.Value)
	add = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				add(v.Field(i))
			}
		case reflect.Array:
			for i := range v.Len() {
				add(v.Index(i))
			}
		default:
			flat = append(flat, v.Interface())
		}
	}
	for _, a := range args {
		add(reflect.ValueOf(a))
	}
	return flat
}
