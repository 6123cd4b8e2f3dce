package randprog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/qdgo/qd/internal/kerneltest"
	"github.com/qdgo/qd/rt"
)

// lengths are the lengths of the inputs each kernel runs with.
var lengths = []int{1, 5, 33}

// Run runs the kernels of a generated package on the device rt.Open gives
// (QD_BACKEND and QD_CPU_ITERATIONS choose it), each as a subtest, and
// compares their outputs with their Go functions' bit for bit. load is the
// package's generated Load. Generated tests call it.
func Run(t *testing.T, load any, kernels []Kernel) {
	dev, err := rt.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	t.Logf("device: %v", dev)
	out := reflect.ValueOf(load).Call([]reflect.Value{reflect.ValueOf(dev)})
	if err, _ := out[1].Interface().(error); err != nil {
		t.Fatal(err)
	}
	ks := out[0].Interface()
	agree := 0
	for _, k := range kernels {
		if t.Run(k.Name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(k.Name)), 7))
			for _, n := range lengths {
				if err := runOnce(dev, ks, k, r, n); err != nil {
					t.Errorf("n=%d: %v", n, err)
				}
			}
		}) {
			agree++
		}
	}
	t.Logf("randprog: %d kernels on %v: %d agree with Go, %d differ", len(kernels), dev, agree, len(kernels)-agree)
}

// runOnce runs k once with inputs of length n.
func runOnce(dev *rt.Device, ks any, k Kernel, r *rand.Rand, n int) error {
	args := Args(k, r, n)
	want := kerneltest.CloneArgs(args)
	if err := kerneltest.CallGo(k.Fn, want); err != nil {
		return fmt.Errorf("the Go function failed: %v", err)
	}
	stubArgs, read, free, err := kerneltest.Upload(dev, args)
	if err != nil {
		return err
	}
	defer free()
	if err := kerneltest.CallStub(ks, k.Name, stubArgs); err != nil {
		return err
	}
	got, err := read()
	if err != nil {
		return err
	}
	if diffs := kerneltest.Compare(want, got, 5); len(diffs) > 0 {
		return errors.New(fmt.Sprint(diffs))
	}
	return nil
}

// Args draws the arguments of k for inputs of length n: n itself, its
// stride if it has one, inputs and scalars at random with edge values
// mixed in, and zeroed outputs.
func Args(k Kernel, r *rand.Rand, n int) []any {
	ft := reflect.TypeOf(k.Fn)
	args := make([]any, ft.NumIn())
	args[0] = n
	firstOut := ft.NumIn() - len(k.Sizes)
	for i := 1; i < ft.NumIn(); i++ {
		t := ft.In(i)
		switch {
		case i == 1 && k.Stride:
			args[i] = 1 + r.IntN(maxStride)
		case i >= firstOut:
			size := k.Sizes[i-firstOut]
			if size == Square {
				size = n
			}
			args[i] = reflect.MakeSlice(t, n*size, n*size).Interface()
		case t.Kind() == reflect.Slice:
			s := reflect.MakeSlice(t, n, n)
			for j := range n {
				s.Index(j).Set(kerneltest.RandomValue(t.Elem(), r))
			}
			args[i] = s.Interface()
		case t.Kind() == reflect.Bool:
			args[i] = r.IntN(2) == 0
		default:
			args[i] = kerneltest.RandomValue(t, r).Interface()
		}
	}
	return args
}
