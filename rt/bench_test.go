//go:build cgo

package rt

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// These benchmarks time the host cost of driver operations made from Go
// through the runtime, beside the same driver calls made in a loop from C
// in the same process: the difference is what Go and the runtime add.

func gpuDriverOf(b *testing.B, d *Device) *gpuDriver {
	switch drv := d.drv.(type) {
	case *cudaDriver:
		return &drv.gpuDriver
	case *hipDriver:
		return &drv.gpuDriver
	}
	b.Skip("not a GPU device")
	return nil
}

func BenchmarkRecordWaitGPU(b *testing.B) {
	d := gpu(b)
	drv := gpuDriverOf(b, d)
	s1, _ := d.NewStream()
	s2, _ := d.NewStream()
	e, _ := d.NewEvent()
	defer s1.Close()
	defer s2.Close()
	defer e.Close()
	b.Run("go", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := e.Record(s1); err != nil {
				b.Fatal(err)
			}
			if err := e.Wait(s2); err != nil {
				b.Fatal(err)
			}
			if i%1024 == 1023 {
				d.SynchronizeAll()
			}
		}
	})
	b.Run("driver", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := drv.recordEvent(e.Handle(), s1.Handle()); err != nil {
				b.Fatal(err)
			}
			if err := drv.waitEvent(s2.Handle(), e.Handle()); err != nil {
				b.Fatal(err)
			}
			if i%1024 == 1023 {
				d.SynchronizeAll()
			}
		}
	})
	b.Run("c", func(b *testing.B) {
		for b.Loop() {
			if err := drv.benchRecordWait(e.Handle(), s1.Handle(), s2.Handle(), 1024); err != nil {
				b.Fatal(err)
			}
			d.SynchronizeAll()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1024, "ns/pair")
	})
}

func BenchmarkStreamCreateCloseGPU(b *testing.B) {
	d := gpu(b)
	drv := gpuDriverOf(b, d)
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			s, err := d.NewStream()
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("c", func(b *testing.B) {
		for b.Loop() {
			if err := drv.benchStreamCreateDestroy(100); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/stream")
	})
}

// emptyPTX is an entry that does nothing with one pointer parameter.
const emptyPTX = `.version 7.0
.target sm_70
.address_size 64
.visible .entry empty(.param .u64 p)
{
	ret;
}
`

// emptySource is the same kernel in HIP.
const emptySource = `#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h>
#endif
extern "C" __global__ void empty(long long *p) {}
`

// BenchmarkLaunchGPU times launches of an empty kernel, 256 then a
// synchronization, on the default stream and on a stream of qd's: through
// the runtime (go), through the driver's launch method alone (driver),
// and in a loop in C with the packed argument buffer qd passes (c) and
// with the array of parameter pointers the CUDA runtime passes
// (c-params). go minus driver is the runtime's own cost; driver minus c
// the cost of calling C from Go.
func BenchmarkLaunchGPU(b *testing.B) {
	d := gpu(b)
	drv := gpuDriverOf(b, d)
	m, err := d.Load(&ModuleSpec{Package: "bench", Images: []Image{{Kind: ImagePTX, Data: emptyPTX}, {Kind: ImageHIP, Data: emptySource}}, Kernels: []KernelSpec{{Name: "Empty", Tasks: []TaskSpec{{Entry: "empty"}}}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.kernelReady(0); err != nil {
		b.Fatal(err)
	}
	s, err := d.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var args [8]byte
	counts := []int64{1}
	for _, on := range []*Stream{nil, s} {
		opts := []LaunchOption{OnStream(on)}
		h := on.Handle()
		batches := func(b *testing.B, launch func() error) {
			for i := 0; b.Loop(); i++ {
				if err := launch(); err != nil {
					b.Fatal(err)
				}
				if i%256 == 255 {
					drv.synchronizeStream(h)
				}
			}
			drv.synchronizeStream(h)
		}
		inC := func(b *testing.B, loop func() error) {
			for b.Loop() {
				if err := loop(); err != nil {
					b.Fatal(err)
				}
				drv.synchronizeStream(h)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/256, "ns/launch")
		}
		name := on.laneName()
		b.Run(name+"/go", func(b *testing.B) {
			batches(b, func() error { return m.Launch(0, counts, args[:], opts) })
		})
		b.Run(name+"/driver", func(b *testing.B) {
			seq := launchSeq{n: 1, stream: h, tasks: [maxSeqTasks]taskLaunch{{fn: m.entries[0][0], grid: 1, block: 256}}}
			batches(b, func() error {
				_, err := launchSeqOn(d.drv, &seq, args[:])
				return err
			})
		})
		b.Run(name+"/c", func(b *testing.B) {
			inC(b, func() error { return drv.benchLaunch(m.entries[0][0], h, args[:], 256) })
		})
		b.Run(name+"/c-params", func(b *testing.B) {
			var arg0 uint64
			inC(b, func() error { return drv.benchLaunchParams(m.entries[0][0], h, &arg0, 256) })
		})
	}
}

// BenchmarkLoadGPU times loading a module of 34 entries from the module
// cache (load-µs) and looking up all its functions, which with the
// driver's lazy loading loads their code (lookup-µs): qd does the lookups
// at each kernel's first launch.
func BenchmarkLoadGPU(b *testing.B) {
	d := gpu(b)
	if d.Backend() != CUDA {
		b.Skip("loads PTX through CUDA's module cache")
	}
	b.Setenv("QD_CACHE_DIR", b.TempDir())
	var ptx strings.Builder
	ptx.WriteString(".version 7.0\n.target sm_70\n.address_size 64\n")
	var tasks []TaskSpec
	for i := range 34 {
		fmt.Fprintf(&ptx, ".visible .entry e%d(.param .u64 p)\n{\n\tret;\n}\n", i)
		tasks = append(tasks, TaskSpec{Entry: fmt.Sprintf("e%d", i)})
	}
	base := ModuleSpec{Package: "bench-load", Images: []Image{{Kind: ImagePTX, Data: ptx.String()}}, Kernels: []KernelSpec{{Name: "All", Tasks: tasks}}}
	first := base
	if _, err := d.Load(&first); err != nil { // fills the cache
		b.Fatal(err)
	}
	var load, lookup time.Duration
	for b.Loop() {
		spec := base // a new spec: the device loads it again
		t0 := time.Now()
		m, err := d.Load(&spec)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := m.kernelReady(0); err != nil {
			b.Fatal(err)
		}
		load, lookup = load+t1.Sub(t0), lookup+time.Since(t1)
	}
	b.ReportMetric(float64(load.Microseconds())/float64(b.N), "load-µs")
	b.ReportMetric(float64(lookup.Microseconds())/float64(b.N), "lookup-µs")
}

// BenchmarkCallCostGPU splits the cost of one driver call from Go: the
// bare cgo call, making the context current, and cuEventRecord itself.
func BenchmarkCallCostGPU(b *testing.B) {
	d := gpu(b)
	drv := gpuDriverOf(b, d)
	s, _ := d.NewStream()
	e, _ := d.NewEvent()
	defer s.Close()
	defer e.Close()
	b.Run("cgo-noop", func(b *testing.B) {
		for b.Loop() {
			benchNoop()
		}
	})
	b.Run("use-context-in-c", func(b *testing.B) {
		for b.Loop() {
			drv.benchUse(1000)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/use")
	})
	b.Run("record-go", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			e.Record(s)
			if i%1024 == 1023 {
				d.SynchronizeAll()
			}
		}
	})
	b.Run("record-driver-from-go", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			drv.recordEvent(e.Handle(), s.Handle())
			if i%1024 == 1023 {
				d.SynchronizeAll()
			}
		}
	})
	b.Run("record-c", func(b *testing.B) {
		for b.Loop() {
			drv.benchRecord(e.Handle(), s.Handle(), 1024)
			d.SynchronizeAll()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1024, "ns/record")
	})
}

// fourBlocksSpec is a kernel of four one-task blocks, each the empty entry.
var fourBlocksSpec = &ModuleSpec{Package: "bench4", Images: []Image{{Kind: ImagePTX, Data: emptyPTX}, {Kind: ImageHIP, Data: emptySource}}, Kernels: []KernelSpec{{
	Name: "Four", Groups: []int{4},
	Tasks: []TaskSpec{{Entry: "empty", Block: 1, Group: 1}, {Entry: "empty", Block: 2, Group: 1}, {Entry: "empty", Block: 3, Group: 1}, {Entry: "empty", Block: 4, Group: 1}},
}}}

// BenchmarkForkJoinGPU times the host's cost of a kernel of four tiny
// blocks: eager fork and join, a cached graph with the same arguments, a
// graph whose every node gets new arguments, and graph launches from
// several goroutines at once, each on its own stream.
func BenchmarkForkJoinGPU(b *testing.B) {
	d := gpu(b)
	m, err := d.Load(fourBlocksSpec)
	if err != nil {
		b.Fatal(err)
	}
	counts := []int64{1, 1, 1, 1}
	run := func(b *testing.B, next func(args []byte), opts []LaunchOption) {
		var args [8]byte
		for i := 0; b.Loop(); i++ {
			next(args[:])
			if err := m.Launch(0, counts, args[:], opts); err != nil {
				b.Fatal(err)
			}
			if i%256 == 255 {
				d.SynchronizeAll()
			}
		}
		d.SynchronizeAll()
	}
	same := func([]byte) {}
	b.Run("eager", func(b *testing.B) { run(b, same, []LaunchOption{Eager()}) })
	b.Run("graph", func(b *testing.B) { run(b, same, nil) })
	b.Run("graph-new-args", func(b *testing.B) { run(b, func(a []byte) { a[0]++ }, nil) })
	b.Run("graph-parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			s, err := d.NewStream()
			if err != nil {
				b.Error(err)
				return
			}
			defer s.Close()
			var args [8]byte
			opts := []LaunchOption{OnStream(s)}
			for i := 0; pb.Next(); i++ {
				if err := m.Launch(0, counts, args[:], opts); err != nil {
					b.Error(err)
					return
				}
				if i%256 == 255 {
					s.Synchronize()
				}
			}
			s.Synchronize()
		})
	})
}

// BenchmarkAllocFreeGPU times allocating and freeing 1 MiB: Alloc and Free
// (usable on any stream), AllocOn and FreeOn (ordered on one stream).
func BenchmarkAllocFreeGPU(b *testing.B) {
	d := gpu(b)
	s, _ := d.NewStream()
	defer s.Close()
	b.Run("Alloc+Free", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			x, err := Alloc[byte](d, 1<<20)
			if err != nil {
				b.Fatal(err)
			}
			x.Free()
			if i%256 == 255 {
				d.SynchronizeAll()
			}
		}
	})
	b.Run("AllocOn+FreeOn", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			x, err := AllocOn[byte](d, 1<<20, s)
			if err != nil {
				b.Fatal(err)
			}
			x.FreeOn(s)
			if i%256 == 255 {
				s.Synchronize()
			}
		}
	})
	// The same driver calls in a loop in C, from qd's pool and from the
	// device's default pool, which cudaMallocAsync uses.
	drv := gpuDriverOf(b, d)
	for _, pool := range []string{"qd-pool", "default-pool"} {
		b.Run("AllocOn+FreeOn/c-"+pool, func(b *testing.B) {
			if !drv.features().memPools {
				b.Skip("the driver has no memory pools")
			}
			for b.Loop() {
				if err := drv.benchAllocFree(s.Handle(), 1<<20, 256, pool == "default-pool"); err != nil {
					b.Fatal(err)
				}
				s.Synchronize()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/256, "ns/pair")
		})
	}
}
