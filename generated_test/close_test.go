package generated_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// concurrentClose closes the device while goroutines launch kernels and
// copy: each launch and copy succeeds or fails with ErrClosed, and every
// one after Close fails so. Under go test -race, Close must not race with
// them.
func concurrentClose(t *testing.T, dev *rt.Device) {
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, n = 8, 4096
	var started, wg sync.WaitGroup
	closed := make(chan struct{})
	errs := make(chan error, goroutines)
	for range goroutines {
		x, err := rt.Alloc[float32](dev, n)
		if err != nil {
			t.Fatal(err)
		}
		y, err := rt.FromSlice(dev, make([]float32, n))
		if err != nil {
			t.Fatal(err)
		}
		started.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			host := make([]float32, n)
			for i := 0; ; i++ {
				if i == 10 {
					started.Done()
				}
				after := false
				select {
				case <-closed:
					after = true
				default:
				}
				err := ks.Saxpy(2, x, y)
				if err == nil {
					err = y.CopyTo(host)
				}
				switch {
				case err == nil && after:
					errs <- errors.New("a launch after Close succeeded")
					return
				case err == nil:
				case !errors.Is(err, rt.ErrClosed):
					errs <- err
					return
				case after:
					return
				}
			}
		}()
	}
	started.Wait()
	if err := dev.Close(); err != nil {
		t.Error(err)
	}
	close(closed)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestConcurrentCloseCPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	concurrentClose(t, dev)
}

func TestConcurrentCloseGPU(t *testing.T) {
	concurrentClose(t, openGPU(t))
}
