package rt

import (
	"errors"
	"math"
	"testing"
)

// tooLarge are allocations no device holds: one whose byte count overflows,
// and ones larger than any host's memory.
func tooLarge(t *testing.T, d *Device) {
	t.Helper()
	for name, alloc := range map[string]func() error{
		"2^62 float32, overflowing": func() error { _, err := Alloc[float32](d, 1<<62); return err },
		"2^44 float64":              func() error { _, err := Alloc[float64](d, 1<<44); return err },
		"MaxInt bytes":              func() error { _, err := Alloc[uint8](d, math.MaxInt); return err },
		"2^62 page-locked int64":    func() error { _, err := AllocHost[int64](d, 1<<62); return err },
	} {
		if err := alloc(); err == nil {
			t.Errorf("%s: allocated", name)
		} else if d.IsCPU() && !errors.Is(err, ErrOutOfMemory) {
			t.Errorf("%s: %v, want ErrOutOfMemory", name, err)
		}
	}
	if live := d.Live(); live.Buffers != 0 || live.HostBuffers != 0 {
		t.Errorf("failed allocations left %+v", live)
	}
}

// TestAllocTooLarge checks that allocations the host cannot hold are
// errors on the CPU backend, where Go would otherwise stop the program.
func TestAllocTooLarge(t *testing.T) { tooLarge(t, cpu(t)) }

// TestAllocTooLargeGPU checks the same on a GPU, whose byte counts must not
// wrap around.
func TestAllocTooLargeGPU(t *testing.T) {
	d, err := Open(WithBackend(CUDA))
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("no CUDA device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tooLarge(t, d)
}
