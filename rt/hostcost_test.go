package rt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qdgo/qd/internal/ptxsum"
)

// The host-cost benchmarks measure what the runtime itself spends on the
// host per operation, over the fake driver made quiet, so that the driver
// costs nothing: the Go side of each operation that qdbench times on a
// GPU. Each reports calls/op, the driver calls an operation makes: on a
// GPU each is one call into C (about 50–100 ns) on top of the driver's
// own work. BenchmarkCUDAOnFake measures the same operations through the
// CUDA driver's own code, calls into C included, over a libcuda that does
// nothing.

// emptySpec is a kernel shaped like bench/kernels' Empty: one parallel
// task and a bounds check, so it takes a buffer, a count and the fault
// record's address.
var emptySpec = &ModuleSpec{Package: "fake/empty", Images: []Image{{Kind: ImagePTX, Data: "empty ptx"}}, Kernels: []KernelSpec{{
	Name:   "Empty",
	Tasks:  []TaskSpec{{Entry: "Empty_0", Parallel: true}},
	Faults: []FaultSite{{Kind: FaultIndex, Pos: "kernels.go:19:5"}},
}, {
	Name:            "Sum",
	Tasks:           []TaskSpec{{Entry: "Sum_0", Parallel: true}, {Entry: "Sum_1"}},
	ScratchPerBlock: 4, ScratchFixed: 8,
}}}

// stubEmpty launches Empty as its generated stub does.
func stubEmpty(d *Device, m *Module, a *Buffer[int32], n int, opts ...LaunchOption) error {
	if err := CheckBuffers(d, "Empty", opts, a); err != nil {
		return err
	}
	var args [32]byte
	PutBuffer(args[:], 0, a)
	PutUint64(args[:], 16, uint64(n))
	counts := [1]int64{int64(n)}
	return m.Launch(0, counts[:], args[:], opts)
}

// stubSum launches Sum, a kernel with scratch memory, as its stub does.
func stubSum(d *Device, m *Module, x *Buffer[float32], opts ...LaunchOption) error {
	if err := CheckBuffers(d, "Sum", opts, x); err != nil {
		return err
	}
	var args [32]byte
	PutBuffer(args[:], 0, x)
	counts := [2]int64{int64(x.Len()), 1}
	return m.Launch(1, counts[:], args[:], opts)
}

// hostOps are the operations qdbench times, each made ready on a device
// with emptySpec loaded as m.
var hostOps = []struct {
	name  string
	ready func(d *Device, m *Module) func() error
}{
	{"Launch", func(d *Device, m *Module) func() error {
		a, _ := Alloc[int32](d, 1)
		return func() error { return stubEmpty(d, m, a, 1) }
	}},
	{"LaunchStream", func(d *Device, m *Module) func() error {
		a, _ := Alloc[int32](d, 1)
		s, _ := d.NewStream()
		on := OnStream(s)
		return func() error { return stubEmpty(d, m, a, 1, on) }
	}},
	{"LaunchScratch", func(d *Device, m *Module) func() error {
		x, _ := Alloc[float32](d, 1<<20)
		s, _ := d.NewStream()
		on := OnStream(s)
		return func() error { return stubSum(d, m, x, on) }
	}},
	{"RecordWait", func(d *Device, m *Module) func() error {
		s1, _ := d.NewStream()
		s2, _ := d.NewStream()
		e, _ := d.NewEvent()
		return func() error {
			if err := e.Record(s1); err != nil {
				return err
			}
			return e.Wait(s2)
		}
	}},
	{"StreamCreateClose", func(d *Device, m *Module) func() error {
		return func() error {
			s, err := d.NewStream()
			if err != nil {
				return err
			}
			return s.Close()
		}
	}},
	{"AllocOnFreeOn", func(d *Device, m *Module) func() error {
		s, _ := d.NewStream()
		return func() error {
			x, err := AllocOn[byte](d, 1<<20, s)
			if err != nil {
				return err
			}
			return x.FreeOn(s)
		}
	}},
	{"AllocFree", func(d *Device, m *Module) func() error {
		return func() error {
			x, err := Alloc[byte](d, 1<<20)
			if err != nil {
				return err
			}
			return x.Free()
		}
	}},
}

// measure runs op b.N times and reports the CPU time per op and, where
// calls counts them, the driver calls per op.
func measure(b *testing.B, calls func() int64, op func() error) {
	b.Helper()
	b.ReportAllocs()
	if err := op(); err != nil { // the first launch looks up functions
		b.Fatal(err)
	}
	c0, cpu := calls(), cpuTime()
	n := 0
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(n), "cpu-ns/op")
	if c := calls(); c != 0 {
		b.ReportMetric(float64(c-c0)/float64(n), "calls/op")
	}
}

// BenchmarkHost times each of hostOps over the fake driver made quiet.
func BenchmarkHost(b *testing.B) {
	for _, op := range hostOps {
		b.Run(op.name, func(b *testing.B) {
			d, drv, m := fakeModule(b, 0, emptySpec)
			drv.quiet = true
			measure(b, drv.calls.Load, op.ready(d, m))
		})
	}
}

// loadSpec is a module of the size of bench/kernels': 17 kernels, 120 KB
// of PTX, a fault record and scratch memory.
var loadSpec = func() *ModuleSpec {
	spec := &ModuleSpec{Package: "fake/load"}
	var ptx strings.Builder
	for i := range 17 {
		name := fmt.Sprintf("K%d", i)
		spec.Kernels = append(spec.Kernels, KernelSpec{
			Name:   name,
			Tasks:  []TaskSpec{{Entry: name + "_0", Parallel: true}, {Entry: name + "_1"}},
			Faults: []FaultSite{{Kind: FaultIndex, Pos: "k.go:1:1"}},
		})
		for range 200 {
			fmt.Fprintf(&ptx, "\tld.global.nc.f32 %%f%d, [%%rd%d+%d];\n", i, i, 4*i)
		}
	}
	// As qdgen writes it, with its sum.
	spec.Images = []Image{{Kind: ImagePTX, Data: ptx.String(), Sum: ptxsum.Of(ptx.String())}}
	return spec
}()

// BenchmarkHostLoadCached loads loadSpec's cubin from the module cache on
// a new device, as a new process does.
func BenchmarkHostLoadCached(b *testing.B) {
	b.Setenv("QD_CACHE_DIR", b.TempDir())
	d, _ := openFake(0)
	if _, err := d.Load(loadSpec); err != nil { // fills the cache
		b.Fatal(err)
	}
	d.Close()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d, _ := openFake(0)
		b.StartTimer()
		m, err := d.Load(loadSpec)
		if err != nil {
			b.Fatal(err)
		}
		if from, _ := m.LoadedFrom(); from != fromCache {
			b.Fatalf("loaded from %s", from)
		}
		b.StopTimer()
		d.Close()
		b.StartTimer()
	}
}
