package rt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var cacheSpec = &ModuleSpec{Package: "fake/cache", Images: []Image{{Kind: ImagePTX, Data: "some ptx"}}}

// loadFresh loads cacheSpec on a new fake device, as a new process would.
func loadFresh(t *testing.T, setup func(*fakeDriver)) (from string, drv *fakeDriver) {
	t.Helper()
	d, drv := openFake(0)
	defer d.Close()
	if setup != nil {
		setup(drv)
	}
	m, err := d.Load(cacheSpec)
	if err != nil {
		t.Fatal(err)
	}
	from, _ = m.LoadedFrom()
	return from, drv
}

// TestModuleCache checks that the first load compiles the PTX with the
// driver's linker and caches the cubin, that the next loads it from the
// cache without compiling, and that a truncated, corrupt or rejected entry
// is compiled and written again.
func TestModuleCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("QD_CACHE_DIR", dir)
	from, drv := loadFresh(t, nil)
	if from != fromLinker || drv.links != 1 {
		t.Fatalf("first load: from %q after %d links", from, drv.links)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.cubin"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %v", entries)
	}
	entry := entries[0]
	if base := filepath.Base(entry); filepath.Ext(base) != ".cubin" || !strings.Contains(base, "-sm_80-drv12080") {
		t.Errorf("entry %s is not keyed by architecture and driver", base)
	}
	from, drv = loadFresh(t, nil)
	if from != fromCache || drv.links != 0 || !slices.Equal(drv.loads, []ImageKind{ImageCubin}) {
		t.Fatalf("second load: from %q after %d links, loads %v", from, drv.links, drv.loads)
	}

	good, _ := os.ReadFile(entry)
	for name, bad := range map[string][]byte{
		"truncated":    good[:len(good)-3],
		"header only":  good[:len(cubinMagic)+4],
		"corrupt":      append(slices.Clone(good[:len(good)-1]), good[len(good)-1]^1),
		"not an entry": []byte("garbage"),
		"empty":        nil,
	} {
		os.WriteFile(entry, bad, 0o644)
		from, drv = loadFresh(t, nil)
		if from != fromLinker || drv.links != 1 {
			t.Errorf("%s entry: from %q after %d links", name, from, drv.links)
		}
		if got, _ := os.ReadFile(entry); !slices.Equal(got, good) {
			t.Errorf("%s entry was not written again", name)
		}
	}

	// A cubin the driver rejects, as one for another GPU: compiled again;
	// if the new one is rejected too, the driver's JIT loads the PTX.
	from, drv = loadFresh(t, func(d *fakeDriver) { d.badCubin = true })
	if from != fromJIT || drv.links != 1 || !slices.Equal(drv.loads, []ImageKind{ImageCubin, ImageCubin, ImagePTX}) {
		t.Errorf("rejected cubin: from %q after %d links, loads %v", from, drv.links, drv.loads)
	}

	t.Setenv("QD_CACHE", "off")
	from, drv = loadFresh(t, nil)
	if from != fromJIT || drv.links != 0 {
		t.Errorf("QD_CACHE=off: from %q after %d links", from, drv.links)
	}
}

// TestModuleCacheUnwritable checks that a cache that cannot be written
// costs only the compilation.
func TestModuleCacheUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	t.Setenv("QD_CACHE_DIR", filepath.Join(file, "qd")) // under a file
	for range 2 {
		if from, drv := loadFresh(t, nil); from != fromLinker || drv.links != 1 {
			t.Errorf("unwritable cache: from %q after %d links", from, drv.links)
		}
	}
}
