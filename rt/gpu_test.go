//go:build cgo

package rt

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFeaturesGPU checks that a current driver has every optional part:
// graphs, memory pools and the linker.
func TestFeaturesGPU(t *testing.T) {
	d := gpu(t)
	if d.Backend() != CUDA {
		t.Skip("the HIP driver has no graphs, memory pools or linker yet")
	}
	f := d.drv.features()
	t.Logf("driver %d: %+v", d.drv.driverVersion(), f)
	if !f.graphs || !f.memPools || !f.linker {
		t.Errorf("features %+v: a driver of CUDA 12 or later has them all", f)
	}
}

// TestModuleCacheGPU loads a module through the driver's linker into the
// module cache, loads it again from there on a new device, rebuilds a
// truncated entry, and launches from each.
func TestModuleCacheGPU(t *testing.T) {
	if d := gpu(t); !slices.Contains(d.drv.imageKinds(), ImagePTX) || !d.drv.features().linker {
		t.Skip("the driver links no PTX")
	}
	dir := t.TempDir()
	t.Setenv("QD_CACHE_DIR", dir)
	spec := func() *ModuleSpec {
		return &ModuleSpec{Package: "cache", Images: []Image{{Kind: ImagePTX, Data: emptyPTX}}, Kernels: []KernelSpec{{Name: "Empty", Tasks: []TaskSpec{{Entry: "empty"}}}}}
	}
	load := func() string {
		d := gpu(t)
		m, err := d.Load(spec())
		if err != nil {
			t.Fatal(err)
		}
		var args [8]byte
		if err := m.Launch(0, []int64{1}, args[:], nil); err != nil {
			t.Fatal(err)
		}
		if err := d.Synchronize(); err != nil {
			t.Fatal(err)
		}
		from, took := m.LoadedFrom()
		t.Logf("loaded in %v: %s", took, from)
		d.Close()
		return from
	}
	if from := load(); from != fromLinker {
		t.Errorf("first load: %s", from)
	}
	if from := load(); from != fromCache {
		t.Errorf("second load: %s", from)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.cubin"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %v", entries)
	}
	data, _ := os.ReadFile(entries[0])
	os.WriteFile(entries[0], data[:len(data)/2], 0o644)
	if from := load(); from != fromLinker {
		t.Errorf("load after truncating the entry: %s", from)
	}
	if from := load(); from != fromCache {
		t.Errorf("load after the rebuild: %s", from)
	}
}

// TestKernelGraphGPU launches a kernel of four blocks eagerly, then as a
// graph with the same and with new arguments, on two streams.
func TestKernelGraphGPU(t *testing.T) {
	d := gpu(t)
	if !d.drv.features().graphs {
		t.Skip("the driver has no graphs")
	}
	m, err := d.Load(fourBlocksSpec)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := d.NewStream()
	defer s.Close()
	var args [8]byte
	for i := range 6 {
		args[0] = byte(i / 2)
		for _, opts := range [][]LaunchOption{nil, {OnStream(s)}, {Eager()}} {
			if err := m.Launch(0, []int64{1, 1, 1, 1}, args[:], opts); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := d.SynchronizeAll(); err != nil {
		t.Fatal(err)
	}
	sg := m.graphs[0].shapes[0]
	if sg.graph == 0 || len(sg.execs) != 2 {
		t.Errorf("graph %#x with %d executable graphs, want one per stream", sg.graph, len(sg.execs))
	}
}
