// Package devtest runs an example's kernel tests on the devices that
// check them against Go: the GPU, and the CPU backend's race mode, which
// interprets the kernels' IR with the iterations of parallel loops, and
// the threads of a block, on goroutines.
package devtest

import (
	"errors"
	"os"
	"testing"

	"github.com/qdgo/qd/rt"
)

// Each runs f as subtest "gpu" on the GPU (HIP where QD_BACKEND=hip,
// else CUDA), skipped without one, and as subtest "interpreter" on the
// CPU backend's race mode.
func Each(t *testing.T, f func(t *testing.T, dev *rt.Device)) {
	t.Run("gpu", func(t *testing.T) {
		backend, _ := rt.ParseBackend(os.Getenv("QD_BACKEND"))
		if backend != rt.HIP {
			backend = rt.CUDA
		}
		dev, err := rt.Open(rt.WithBackend(backend))
		if errors.Is(err, rt.ErrNoDevice) {
			t.Skipf("no %s device: %v", backend, err)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		t.Logf("device: %s", dev)
		f(t, dev)
	})
	t.Run("interpreter", func(t *testing.T) {
		rt.RunIterationsConcurrently(true)
		defer rt.RunIterationsConcurrently(false)
		dev, err := rt.Open(rt.WithBackend(rt.CPU))
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		f(t, dev)
	})
}

// Upload copies xs to a new buffer on dev, freed when the test ends.
func Upload[T rt.Element](t *testing.T, dev *rt.Device, xs []T) *rt.Buffer[T] {
	t.Helper()
	b, err := rt.FromSlice(dev, xs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free() })
	return b
}

// Read returns b's elements.
func Read[T rt.Element](t *testing.T, b *rt.Buffer[T]) []T {
	t.Helper()
	xs, err := b.Read()
	if err != nil {
		t.Fatal(err)
	}
	return xs
}
