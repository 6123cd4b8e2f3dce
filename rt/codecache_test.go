package rt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCompiler counts its compilations; the code it makes names the
// source and how many compilations came before.
type fakeCompiler struct {
	calls int
	fail  error
}

func (f *fakeCompiler) compile(source string) func() ([]byte, error) {
	return func() ([]byte, error) {
		f.calls++
		if f.fail != nil {
			return nil, f.fail
		}
		return []byte("code of " + source), nil
	}
}

// loadAll is a driver that loads every code it is given, and remembers it.
func loadAll(loaded *[]byte) func([]byte) (uintptr, error) {
	return func(code []byte) (uintptr, error) {
		*loaded = append([]byte(nil), code...)
		return 1, nil
	}
}

// TestCodeCache checks the disk cache of code compiled at run time with a
// fake compiler: a miss compiles and stores, a hit compiles nothing, and a
// corrupt, truncated or refused entry is compiled again and replaced.
func TestCodeCache(t *testing.T) {
	c := codeCache{dir: t.TempDir()}
	key := codeKey("fake", "source", "gfx942:sramecc+:xnack-", "hip60342134-hiprtc6.3", []string{"-O3"})
	if strings.ContainsAny(key, ":/ ") {
		t.Errorf("key %q is not a safe file name", key)
	}
	var f fakeCompiler
	var loaded []byte
	load := func() {
		t.Helper()
		if _, err := compileAndLoad(c, key, f.compile("source"), loadAll(&loaded)); err != nil {
			t.Fatal(err)
		}
		if string(loaded) != "code of source" {
			t.Fatalf("loaded %q", loaded)
		}
	}
	load()
	load()
	if f.calls != 1 {
		t.Fatalf("%d compilations for a miss and a hit, want 1", f.calls)
	}
	path := c.path(key)
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasSuffix(data, []byte("code of source")) {
		t.Fatalf("cache file: %q, %v", data, err)
	}

	for name, corrupt := range map[string][]byte{
		"flipped":   append(data[:len(data)-1:len(data)-1], 'X'),
		"truncated": data[:len(data)-3],
		"header":    data[:5],
		"empty":     nil,
		"foreign":   []byte("code of source"),
	} {
		before := f.calls
		if err := os.WriteFile(path, corrupt, 0o644); err != nil {
			t.Fatal(err)
		}
		load()
		if f.calls != before+1 {
			t.Errorf("%s entry: not compiled again", name)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
			t.Errorf("%s entry: not rewritten", name)
		}
	}

	// Code the driver refuses is compiled again, and the fresh code
	// loaded.
	refused := 0
	pickyLoad := func(code []byte) (uintptr, error) {
		if refused == 0 {
			refused++
			return 0, errors.New("invalid image")
		}
		loaded = code
		return 2, nil
	}
	before := f.calls
	if mod, err := compileAndLoad(c, key, f.compile("source"), pickyLoad); err != nil || mod != 2 || f.calls != before+1 {
		t.Errorf("refused cached code: module %d, %v, %d compilations", mod, err, f.calls-before)
	}

	// Other sources, targets, versions and options are other entries.
	for _, other := range []string{
		codeKey("fake", "source2", "gfx942:sramecc+:xnack-", "hip60342134-hiprtc6.3", []string{"-O3"}),
		codeKey("fake", "source", "gfx942:sramecc+:xnack+", "hip60342134-hiprtc6.3", []string{"-O3"}),
		codeKey("fake", "source", "gfx942:sramecc+:xnack-", "hip60342135-hiprtc6.3", []string{"-O3"}),
		codeKey("fake", "source", "gfx942:sramecc+:xnack-", "hip60342134-hiprtc6.3", []string{"-O2"}),
	} {
		if other == key {
			t.Errorf("key %s does not change", other)
		}
	}

	// A compiler's failure is the load's error, and stores nothing.
	bad := fakeCompiler{fail: errors.New("no such type")}
	badKey := codeKey("fake", "bad", "gfx90a", "1", nil)
	if _, err := compileAndLoad(c, badKey, bad.compile("bad"), loadAll(&loaded)); err != bad.fail {
		t.Errorf("failing compiler: %v", err)
	}
	if _, err := os.Stat(c.path(badKey)); !os.IsNotExist(err) {
		t.Errorf("a failed compilation left %s", c.path(badKey))
	}
	if tmp, _ := filepath.Glob(filepath.Join(c.dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestCodeCacheUnwritable checks that a cache that cannot be written only
// costs compilations.
func TestCodeCacheUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []codeCache{{dir: filepath.Join(file, "sub")}, {}} {
		var f fakeCompiler
		var loaded []byte
		for range 2 {
			if _, err := compileAndLoad(c, "k", f.compile("s"), loadAll(&loaded)); err != nil {
				t.Fatal(err)
			}
		}
		if f.calls != 2 {
			t.Errorf("cache %q: %d compilations, want 2", c.dir, f.calls)
		}
	}
}

func TestDefaultCodeCache(t *testing.T) {
	t.Setenv("QD_CACHE_DIR", "/somewhere")
	if c := defaultCodeCache(); c.dir != "/somewhere" {
		t.Errorf("QD_CACHE_DIR: %q", c.dir)
	}
	t.Setenv("QD_CACHE_DIR", "off")
	if c := defaultCodeCache(); c.dir != "" {
		t.Errorf("QD_CACHE_DIR=off: %q", c.dir)
	}
	t.Setenv("QD_CACHE_DIR", "")
	if base, err := os.UserCacheDir(); err == nil {
		if c := defaultCodeCache(); c.dir != filepath.Join(base, "qd") {
			t.Errorf("default: %q", c.dir)
		}
	}
}
