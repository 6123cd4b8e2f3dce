//go:build cgo

package rt

import (
	"testing"
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

func BenchmarkLaunchGPU(b *testing.B) {
	d := gpu(b)
	drv := gpuDriverOf(b, d)
	m, err := d.Load(&ModuleSpec{Package: "bench", Images: []Image{{Kind: ImagePTX, Data: emptyPTX}, {Kind: ImageHIP, Data: emptySource}}, Kernels: []KernelSpec{{Name: "Empty", Tasks: []TaskSpec{{Entry: "empty"}}}}})
	if err != nil {
		b.Fatal(err)
	}
	var args [8]byte
	counts := []int64{1}
	b.Run("go", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := m.Launch(0, counts, args[:], nil); err != nil {
				b.Fatal(err)
			}
			if i%256 == 255 {
				d.Synchronize()
			}
		}
		d.Synchronize()
	})
	b.Run("c", func(b *testing.B) {
		for b.Loop() {
			if err := drv.benchLaunch(m.entries[0][0], 0, args[:], 256); err != nil {
				b.Fatal(err)
			}
			d.Synchronize()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/256, "ns/launch")
	})
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
}
