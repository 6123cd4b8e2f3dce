package rt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sourceDriver is a fake driver that compiles source itself, as the HIP
// driver does with hiprtc: it counts compilations, and its code names the
// source. refuse makes loadModule refuse that many binaries first.
type sourceDriver struct {
	*fakeDriver
	compiles int
	fail     error
	refuse   int
}

func (s *sourceDriver) sourceKey(sum string) string {
	return codeKey("fake", sum, "gfx90a:xnack-", "hip60342134-hiprtc6.3", []string{"-O3"})
}

func (s *sourceDriver) compileSource(source string) ([]byte, error) {
	s.compiles++
	if s.fail != nil {
		return nil, s.fail
	}
	return []byte("code of " + source), nil
}

func (s *sourceDriver) binaryKind() ImageKind { return ImageHSACO }

func (s *sourceDriver) loadModule(img Image) (uintptr, error) {
	if img.Kind != ImageHSACO || !strings.HasPrefix(img.Data, "code of ") {
		return 0, errors.New("not a code object")
	}
	if s.refuse > 0 {
		s.refuse--
		return 0, errors.New("invalid image")
	}
	return s.fakeDriver.loadModule(img)
}

// TestSourceCache checks the module cache of code compiled from source at
// run time, with a fake compiler: a miss compiles and stores, a hit
// compiles nothing, and a corrupt, truncated or refused entry is compiled
// again and replaced; a cache that cannot be written only costs
// compilations.
func TestSourceCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("QD_CACHE_DIR", dir)
	t.Setenv("QD_CACHE", "")
	drv := &sourceDriver{fakeDriver: newFakeDriver()}
	d := newGPUDevice(HIP, 0, drv)
	img := Image{Kind: ImageHIP, Data: "source"}
	load := func(wantFrom string) {
		t.Helper()
		if _, from, err := d.loadSource(drv, img); err != nil || from != wantFrom {
			t.Fatalf("load: %q, %v; want %q", from, err, wantFrom)
		}
	}
	load(fromCompiler)
	load(fromSourceCache)
	if drv.compiles != 1 {
		t.Fatalf("%d compilations for a miss and a hit, want 1", drv.compiles)
	}
	key := drv.sourceKey(imageSum(img))
	if strings.ContainsAny(key, ":/ ") {
		t.Errorf("key %q is not a safe file name", key)
	}
	path := filepath.Join(dir, key)
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasSuffix(data, []byte("code of source")) {
		t.Fatalf("cache entry: %q, %v", data, err)
	}
	for name, corrupt := range map[string][]byte{
		"flipped":   append(data[:len(data)-1:len(data)-1], 'X'),
		"truncated": data[:len(data)-3],
		"header":    data[:5],
		"empty":     nil,
		"foreign":   []byte("code of source"),
	} {
		before := drv.compiles
		if err := os.WriteFile(path, corrupt, 0o644); err != nil {
			t.Fatal(err)
		}
		load(fromCompiler)
		if drv.compiles != before+1 {
			t.Errorf("%s entry: not compiled again", name)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
			t.Errorf("%s entry: not rewritten", name)
		}
	}

	// Code the driver refuses is compiled again.
	drv.refuse = 1
	before := drv.compiles
	load(fromCompiler)
	if drv.compiles != before+1 {
		t.Errorf("refused entry: %d compilations", drv.compiles-before)
	}

	// A compiler's failure is the load's error, and stores nothing.
	drv.fail = errors.New("no such type")
	bad := Image{Kind: ImageHIP, Data: "bad"}
	if _, _, err := d.loadSource(drv, bad); err != drv.fail {
		t.Errorf("failing compiler: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, drv.sourceKey(imageSum(bad)))); !os.IsNotExist(err) {
		t.Errorf("a failed compilation left an entry")
	}
	drv.fail = nil

	// An image with the sum qdgen writes is keyed by it: loading hashes
	// nothing.
	summed := Image{Kind: ImageHIP, Data: "summed", Sum: "0123abcd"}
	if _, _, err := d.loadSource(drv, summed); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, drv.sourceKey("0123abcd"))); err != nil {
		t.Errorf("no entry under the image's sum: %v", err)
	}

	// Without a cache, or with one that cannot be written, every load
	// compiles.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, env := range [][2]string{{"QD_CACHE", "off"}, {"QD_CACHE_DIR", filepath.Join(file, "sub")}} {
		t.Setenv(env[0], env[1])
		before := drv.compiles
		load(fromCompiler)
		load(fromCompiler)
		if drv.compiles != before+2 {
			t.Errorf("%s=%s: %d compilations, want 2", env[0], env[1], drv.compiles-before)
		}
	}
}

// TestCodeKey checks that other sources, targets, versions and options are
// other entries.
func TestCodeKey(t *testing.T) {
	key := codeKey("hiprtc", "source", "gfx942:sramecc+:xnack-", "hip60342134-hiprtc6.3", []string{"-O3"})
	for _, other := range []string{
		codeKey("nvrtc", "source", "gfx942:sramecc+:xnack-", "hip60342134-hiprtc6.3", []string{"-O3"}),
		codeKey("hiprtc", "source2", "gfx942:sramecc+:xnack-", "hip60342134-hiprtc6.3", []string{"-O3"}),
		codeKey("hiprtc", "source", "gfx942:sramecc+:xnack+", "hip60342134-hiprtc6.3", []string{"-O3"}),
		codeKey("hiprtc", "source", "gfx942:sramecc+:xnack-", "hip60342135-hiprtc6.3", []string{"-O3"}),
		codeKey("hiprtc", "source", "gfx942:sramecc+:xnack-", "hip60342134-hiprtc6.3", []string{"-O2"}),
	} {
		if other == key {
			t.Errorf("key %s does not change", other)
		}
	}
}
