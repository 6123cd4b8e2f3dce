package generated_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// concurrentLaunches launches the same kernel from many goroutines at once,
// each with its own scalar and buffers: every launch must get its own
// arguments.
func concurrentLaunches(t *testing.T, dev *rt.Device) {
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, launches, n = 16, 50, 1000
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ones := make([]float32, n)
			for i := range ones {
				ones[i] = 1
			}
			x, err := rt.FromSlice(dev, ones)
			if err != nil {
				errs <- err
				return
			}
			defer x.Free()
			y, err := rt.Alloc[float32](dev, n)
			if err != nil {
				errs <- err
				return
			}
			defer y.Free()
			if err := y.Zero(); err != nil {
				errs <- err
				return
			}
			for range launches {
				if err := ks.Saxpy(float32(g), x, y); err != nil {
					errs <- err
					return
				}
			}
			got, err := y.Read()
			if err != nil {
				errs <- err
				return
			}
			for i, v := range got {
				if v != float32(g*launches) {
					errs <- fmt.Errorf("goroutine %d: y[%d] = %v, want %v", g, i, v, g*launches)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestConcurrentLaunchesCPU(t *testing.T) {
	dev, _ := rt.Open(rt.WithBackend(rt.CPU))
	defer dev.Close()
	concurrentLaunches(t, dev)
}

func TestConcurrentLaunchesGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	concurrentLaunches(t, dev)
}

// TestLaunchAllocatesNothingGPU checks that a launch through a generated
// stub makes no heap allocation.
func TestLaunchAllocatesNothingGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := rt.Alloc[float32](dev, 1024)
	y, _ := rt.Alloc[float32](dev, 1024)
	defer x.Free()
	defer y.Free()
	allocs := testing.AllocsPerRun(200, func() {
		if err := ks.Saxpy(2, x, y); err != nil {
			t.Fatal(err)
		}
	})
	if err := dev.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("a launch allocates %v times", allocs)
	}
}

// BenchmarkLaunchGPU measures the host cost of a launch through a stub.
func BenchmarkLaunchGPU(b *testing.B) {
	dev := openGPU(b)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		b.Fatal(err)
	}
	a, _ := rt.Alloc[int32](dev, 1)
	defer a.Free()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := ks.Empty(a, 1); err != nil {
			b.Fatal(err)
		}
		if i%256 == 255 {
			dev.Synchronize()
		}
	}
	dev.Synchronize()
}
