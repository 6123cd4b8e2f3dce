package rt

import (
	"errors"
	"strings"
	"testing"
)

// TestOpenSaysWhichBackend checks that a device says which backend Open
// chose and why it fell back to the CPU, and that a GPU can be required.
func TestOpenSaysWhichBackend(t *testing.T) {
	if _, err := ParseBackend("GPU"); err != nil {
		t.Error(err)
	}
	d, err := Open(WithBackend(Auto))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	gpu, gpuErr := Open(WithBackend(GPU))
	switch {
	case d.IsCPU() && !strings.HasPrefix(d.String(), "cpu (no GPU: "):
		t.Errorf("the CPU chosen for Auto says %q", d.String())
	case d.IsCPU() && !errors.Is(gpuErr, ErrNoDevice):
		t.Errorf("requiring a GPU where there is none: %v, want ErrNoDevice", gpuErr)
	case !d.IsCPU() && (gpuErr != nil || gpu.IsCPU() || !strings.HasPrefix(d.String(), d.Backend().String()+" device")):
		t.Errorf("a GPU machine: Auto gives %q, GPU gives %v, %v", d, gpu, gpuErr)
	}
	if gpu != nil {
		gpu.Close()
	}
	if c := cpu(t); c.String() != "cpu" {
		t.Errorf("the CPU asked for says %q", c)
	}
}
