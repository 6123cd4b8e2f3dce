package generated_test

import (
	"errors"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/rt"
)

// A faultCase is a launch of a kernel on arguments that make it fault,
// and the fault Go reports.
type faultCase struct {
	name string
	args func() []any
	want string // the error, as Go's panic reads: kernel, message, position
}

var faultCases = []faultCase{
	{"Gather", func() []any {
		idx := make([]int32, 1000)
		idx[600] = 5
		return []any{make([]float32, 1000), make([]float32, 5), idx}
	}, `qd: kernel Gather: runtime error: index out of range \[5\] with length 5 \(faults.go:10:13\)`},
	{"Gather", func() []any {
		idx := make([]int32, 40)
		idx[7] = -3
		return []any{make([]float32, 40), make([]float32, 5), idx}
	}, `qd: kernel Gather: runtime error: index out of range \[-3\] \(faults.go:10:13\)`},
	{"Gather", func() []any {
		return []any{make([]float32, 3), make([]float32, 5), make([]int32, 4)}
	}, `qd: kernel Gather: runtime error: index out of range \[3\] with length 3 \(faults.go:11:6\)`},
	{"Ratio", func() []any {
		b := []int64{1, 2, 3, 0, 5}
		return []any{make([]int64, 5), []int64{1, 2, 3, 4, 5}, b}
	}, `qd: kernel Ratio: runtime error: integer divide by zero \(faults.go:20:15\)`},
	{"Window", func() []any {
		return []any{make([]int32, 8), make([]int32, 8), 2, 9}
	}, `qd: kernel Window: runtime error: slice bounds out of range \[:9\] with capacity 8 \(faults.go:29:8\)`},
	{"Window", func() []any {
		return []any{make([]int32, 8), make([]int32, 8), 5, 4}
	}, `qd: kernel Window: runtime error: slice bounds out of range \[5:4\] \(faults.go:29:8\)`},
	{"Quotients", func() []any {
		return quotientArgs(9, 0)
	}, `qd: kernel Quotients: runtime error: integer divide by zero \(quotients.go:12:23\)`},
	{"Quotients", func() []any {
		return quotientArgs(3, 3)
	}, `qd: kernel Quotients: runtime error: integer overflow \(quotients.go:12:23\)`},
	{"Quotients", func() []any {
		return quotientArgs(1, 1<<32) // Div64 divides, Rem32 by uint32(y) = 0
	}, `qd: kernel Quotients: runtime error: integer divide by zero \(bits.go:\d+:\d+\)`},
	{"Unsigned", func() []any {
		return []any{make([]uint8, 4), ^uint(0)}
	}, `qd: kernel Unsigned: runtime error: index out of range \[18446744073709551615\] with length 4 \(faults.go:40:5\)`},
	// A slice of structs is checked against its length in elements.
	{"Tag", func() []any {
		idx := make([]int32, 10) // distinct indices: a scatter writes each element once
		for i := range idx {
			idx[i] = int32(i)
		}
		idx[3] = 10
		return []any{make([]kernels.Body, 10), idx}
	}, `qd: kernel Tag: runtime error: index out of range \[10\] with length 10 \(faults.go:49:5\)`},
	// Arrays indexed by variables: a local array in local memory, and a
	// constant table.
	{"Taps", func() []any {
		return []any{make([]float32, 100), make([]float32, 100), 4}
	}, `qd: kernel Taps: runtime error: index out of range \[4\] with length 4 \(faults.go:60:23\)`},
	{"Taps", func() []any {
		return []any{make([]float32, 3), make([]float32, 5), -1}
	}, `qd: kernel Taps: runtime error: index out of range \[-1\] \(faults.go:60:23\)`},
	{"Smoothed", func() []any {
		idx := []int32{0, 1, 2, 3, 4, 5, 4}
		return []any{make([]float32, 7), idx}
	}, `qd: kernel Smoothed: runtime error: index out of range \[5\] with length 5 \(faults.go:70:18\)`},
	// A loop nest: out one element short faults at its last index only.
	{"Outer", func() []any {
		return []any{make([]float32, 11), make([]float32, 3), make([]float32, 4)}
	}, `qd: kernel Outer: runtime error: index out of range \[11\] with length 11 \(faults.go:82:7\)`},
}

// checkFault checks that err is the fault c describes; a GPU, or the
// interpreter, names the task too.
func checkFault(t *testing.T, c faultCase, err error, gpu bool) {
	t.Helper()
	var f *rt.Fault
	if !errors.As(err, &f) {
		t.Fatalf("%s: got %v, want a fault", c.name, err)
	}
	if !regexp.MustCompile("^" + c.want + "$").MatchString(err.Error()) {
		t.Errorf("%s: got %q, want %q", c.name, err, c.want)
	}
	var re runtime.Error
	if !errors.As(err, &re) || f.Kernel != c.name {
		t.Errorf("%s: %#v is not a runtime.Error of the kernel", c.name, f)
	}
	if gpu != (f.Task != "") || gpu && !strings.HasPrefix(f.Task, c.name+"_") {
		t.Errorf("%s: fault of task %q", c.name, f.Task)
	}
}

func TestFaultsCPU(t *testing.T) {
	cpuFaults(t, false)
}

// TestFaultsConcurrentIterationsCPU checks the faults of the CPU race
// mode, which runs the kernels' IR as a GPU would.
func TestFaultsConcurrentIterationsCPU(t *testing.T) {
	rt.RunIterationsConcurrently(true)
	defer rt.RunIterationsConcurrently(false)
	cpuFaults(t, true)
}

func cpuFaults(t *testing.T, interpreted bool) {
	dev := openCPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	must(t, err)
	for _, c := range faultCases {
		stubArgs, _, free, err := upload(dev, c.args())
		must(t, err)
		checkFault(t, c, callStub(ks, c.name, stubArgs), interpreted)
		free()
	}
}

// TestFaultsInterpreted checks that the interpreter stops at the same
// check with the same values.
func TestFaultsInterpreted(t *testing.T) {
	kernels := loadKernels(t)
	for _, c := range faultCases {
		err := interpret(kernels[c.name], c.args(), 3)
		var f *ir.Fault
		if !errors.As(err, &f) {
			t.Fatalf("%s: got %v, want a fault", c.name, err)
		}
		want := strings.TrimPrefix(c.want, "qd: kernel "+c.name+": ")
		if !regexp.MustCompile("^" + want + "$").MatchString(err.Error()) {
			t.Errorf("%s: got %q, want %q", c.name, err, want)
		}
	}
}

// TestFaultsGPU makes each kernel fault on the GPU and checks that the
// operations that observe the device's work report it, once, as Go would
// have: a synchronization, a copy back, a stream's or an event's
// synchronization, or the next launch; and that the device then runs the
// kernel again correctly.
func TestFaultsGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	must(t, err)
	s := newStream(t, dev)
	defer s.Close()
	e, err := dev.NewEvent()
	must(t, err)
	defer e.Close()
	observers := []struct {
		name    string
		launch  []rt.LaunchOption
		observe func(read func() ([]any, error)) error
	}{
		{"synchronize", nil, func(func() ([]any, error)) error { return dev.Synchronize() }},
		{"read", nil, func(read func() ([]any, error)) error { _, err := read(); return err }},
		{"stream", []rt.LaunchOption{rt.OnStream(s)}, func(func() ([]any, error)) error { return s.Synchronize() }},
		{"event", []rt.LaunchOption{rt.OnStream(s)}, func(func() ([]any, error)) error {
			must(t, e.Record(s))
			return e.Synchronize()
		}},
		{"next launch", nil, func(func() ([]any, error)) error {
			time.Sleep(100 * time.Millisecond) // the fault reaches the host without a synchronization
			x, err := rt.Alloc[float32](dev, 1)
			must(t, err)
			defer x.Free()
			return ks.Saxpy(1, x, x)
		}},
	}
	for i, c := range faultCases {
		o := observers[i%len(observers)]
		t.Run(c.name+"/"+o.name, func(t *testing.T) {
			stubArgs, read, free, err := upload(dev, c.args())
			must(t, err)
			defer free()
			must(t, dev.Synchronize()) // the uploads are done before another stream reads them
			must(t, callStub(ks, c.name, stubArgs, o.launch...))
			checkFault(t, c, o.observe(read), true)
			if err := dev.SynchronizeAll(); err != nil {
				t.Fatalf("the fault was reported twice: %v", err)
			}
			// The device is still usable: the same kernel runs without a
			// fault on arguments in range.
			x := []float32{1, 2, 3}
			got, err := rt.FromSlice(dev, make([]float32, 3))
			must(t, err)
			defer got.Free()
			table, err := rt.FromSlice(dev, x)
			must(t, err)
			defer table.Free()
			idx, err := rt.FromSlice(dev, []int32{2, 0, 1})
			must(t, err)
			defer idx.Free()
			must(t, ks.Gather(got, table, idx))
			out, err := got.Read()
			must(t, err)
			if out[0] != 3 || out[1] != 1 || out[2] != 2 {
				t.Errorf("after the fault: %v", out)
			}
		})
	}
}

// quotientArgs are arguments of Quotients whose element 5 divides hi by y,
// the others dividing with neither fault.
func quotientArgs(hi, y uint64) []any {
	his, ys := make([]uint64, 8), make([]uint64, 8)
	for i := range ys {
		ys[i] = 7
	}
	his[5], ys[5] = hi, y
	return []any{his, make([]uint64, 8), ys, make([]uint64, 8), make([]uint32, 8)}
}
