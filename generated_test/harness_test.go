package generated_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/qdgo/qd/generated_test/helpers"
	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// A kernelCase is one kernel under test: its Go function, which is the
// oracle, and how to draw its arguments.
type kernelCase struct {
	name string
	fn   any
	// args draws the arguments for slices of length n; nil draws every
	// argument at random by type.
	args func(r *rand.Rand, n int) []any
}

// lengths are the slice lengths every kernel is tried with: single
// elements, a partial block, several blocks, and more elements than a
// small grid has threads, so that threads stride.
var lengths = []int{1, 7, 300, 4099}

// randomArgs draws an argument for each parameter of fn: slices of length
// n with values from the whole range of their type (special float values
// included), and scalars in a small range around n.
func randomArgs(fn any, r *rand.Rand, n int) []any {
	ft := reflect.TypeOf(fn)
	args := make([]any, ft.NumIn())
	for i := range args {
		t := ft.In(i)
		if t.Kind() == reflect.Slice {
			s := reflect.MakeSlice(t, n, n)
			for j := range n {
				s.Index(j).Set(randomValue(t.Elem(), r))
			}
			args[i] = s.Interface()
			continue
		}
		v := reflect.New(t).Elem()
		switch t.Kind() {
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

// randomValue draws a value of type t: for numbers mostly uniform bits,
// with edge values mixed in; bools, complex numbers, arrays and structs
// part by part.
func randomValue(t reflect.Type, r *rand.Rand) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Complex64, reflect.Complex128:
		part := reflect.TypeFor[float64]()
		v.SetComplex(complex(randomValue(part, r).Float(), randomValue(part, r).Float()))
	case reflect.Array:
		for i := range t.Len() {
			v.Index(i).Set(randomValue(t.Elem(), r))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(randomValue(t.Field(i).Type, r))
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

// cloneArgs deep-copies slices so that two runs start from the same data.
func cloneArgs(args []any) []any {
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

// callGo runs the kernel's Go function on args.
func callGo(fn any, args []any) (err error) {
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

// compareArgs compares the slices of two runs: integers exactly, floats
// bit for bit (0 ulp) with every NaN equal to every other.
func compareArgs(t *testing.T, what string, want, got []any) {
	t.Helper()
	for i := range want {
		wv, gv := reflect.ValueOf(want[i]), reflect.ValueOf(got[i])
		if wv.Kind() != reflect.Slice {
			continue
		}
		bad := 0
		for j := range wv.Len() {
			w, g := wv.Index(j), gv.Index(j)
			if !sameValue(w, g) {
				if bad < 5 {
					t.Errorf("%s: argument %d, element %d: got %v, want %v", what, i, j, g, w)
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: argument %d: %d of %d elements differ", what, i, bad, wv.Len())
		}
	}
}

func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		return sameValue(reflect.ValueOf(real(x)), reflect.ValueOf(real(y))) &&
			sameValue(reflect.ValueOf(imag(x)), reflect.ValueOf(imag(y)))
	case reflect.Array:
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() && !sameValue(a.Field(i), b.Field(i)) {
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

// upload puts each slice argument into a device buffer; the returned
// arguments are those of the kernel's stub, and read copies the buffers
// back into a fresh argument list.
func upload(dev *rt.Device, args []any) (stubArgs []any, read func() ([]any, error), free func(), err error) {
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
		case []kernels.Body:
			b, rd, fr, err = toBuffer(dev, s)
		case []kernels.Vec:
			b, rd, fr, err = toBuffer(dev, s)
		case []kernels.Flags:
			b, rd, fr, err = toBuffer(dev, s)
		case []kernels.JuliaParams:
			b, rd, fr, err = toBuffer(dev, s)
		case [][4]float32:
			b, rd, fr, err = toBuffer(dev, s)
		case [][4]int32:
			b, rd, fr, err = toBuffer(dev, s)
		case [][2]helpers.Pair:
			b, rd, fr, err = toBuffer(dev, s)
		case []struct {
			On  bool
			Val int16
		}:
			b, rd, fr, err = toBuffer(dev, s)
		default:
			err = fmt.Errorf("no buffer type for %T", a)
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

// callStub launches the kernel's stub, a method of ks, on stubArgs.
func callStub(ks any, name string, stubArgs []any, opts ...rt.LaunchOption) error {
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

// sliceBytes views a numeric slice as bytes.
func sliceBytes(s any) []byte {
	v := reflect.ValueOf(s)
	if v.Len() == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(v.Pointer())), v.Len()*int(v.Type().Elem().Size()))
}
