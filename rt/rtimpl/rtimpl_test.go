package rtimpl_test

import (
	"encoding/binary"
	"testing"

	"github.com/qdgo/qd/rt"
	"github.com/qdgo/qd/rt/rtimpl"
)

// Load reaches rt's module through the hook, and the module it returns
// is an rtimpl.Module, the same one for each Load of a spec on a device.
func TestLoadCPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	spec := &rtimpl.ModuleSpec{Package: "example.com/k", Kernels: []rtimpl.KernelSpec{{
		Name: "K", Tasks: []rtimpl.TaskSpec{{Entry: "K_0", Parallel: true}},
	}}}
	m, err := rtimpl.Load(dev, spec)
	if err != nil {
		t.Fatal(err)
	}
	if m.Device() != dev || m.ImageKind() != 0 {
		t.Errorf("module on %v from %v, want %v and 0", m.Device(), m.ImageKind(), dev)
	}
	again, err := rtimpl.Load(dev, spec)
	if err != nil || again != m {
		t.Errorf("second Load: %v, %v; want the first module", again, err)
	}

	b, err := rt.FromSlice(dev, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	if err := m.CheckBuffers("K", nil, b); err != nil {
		t.Fatal(err)
	}
	if err := m.RunCPU(0, []int64{2}, nil, nil, func() { ran = true }, b); err != nil || !ran {
		t.Errorf("RunCPU: ran %v, %v", ran, err)
	}
	if err := m.CheckDisjoint("K", "a", b, "b", b.Slice(1, 2)); err == nil {
		t.Error("CheckDisjoint of overlapping buffers: no error")
	}
	if err := m.CheckDisjoint("K", "a", b.Slice(0, 1), "b", b.Slice(1, 2)); err != nil {
		t.Errorf("CheckDisjoint of disjoint buffers: %v", err)
	}
	b.Free()
	if err := m.CheckBuffers("K", nil, b); err == nil {
		t.Error("CheckBuffers of a freed buffer: no error")
	}

	if _, err := rtimpl.Load(dev, &rtimpl.ModuleSpec{}); err != nil {
		t.Errorf("Load of an empty spec on the CPU: %v", err)
	}
	dev.Close()
	if m, err := rtimpl.Load(dev, &rtimpl.ModuleSpec{Package: "p"}); err == nil || m != nil {
		t.Errorf("Load on a closed device: %v, %v; want nil and an error", m, err)
	}
}

// The arguments are packed little-endian, a buffer as its address and its
// length.
func TestPut(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	b, err := rt.Alloc[int64](dev, 5)
	if err != nil {
		t.Fatal(err)
	}
	args := make([]byte, 32)
	rtimpl.PutUint32(args, 0, 0x01020304)
	rtimpl.PutBool(args, 4, true)
	rtimpl.PutBuffer(args, 8, b)
	if got := binary.LittleEndian.Uint32(args); got != 0x01020304 || args[4] != 1 {
		t.Errorf("PutUint32, PutBool wrote % x", args[:8])
	}
	if p, n := binary.LittleEndian.Uint64(args[8:]), binary.LittleEndian.Uint64(args[16:]); p != uint64(b.DevicePointer()) || n != 5 {
		t.Errorf("PutBuffer wrote %#x, %d; want %#x, 5", p, n, b.DevicePointer())
	}
	if got := rtimpl.Iterations(-1<<62, 1<<62); got != 1<<63-1 {
		t.Errorf("Iterations(-2^62, 2^62) = %d, want MaxInt64", got)
	}
}
