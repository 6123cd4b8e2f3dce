package rt

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// codeCache keeps device code compiled at run time on disk, so that a
// module is compiled once per machine, not once per process. Each entry is
// one file: a header, the code's checksum and the code. It is written to a
// temporary file and renamed into place, so that a reader never sees part
// of a file; an entry that fails its checksum is compiled again.
type codeCache struct {
	dir string // "" keeps nothing
}

// defaultCodeCache is the cache in QD_CACHE_DIR, else in qd's directory of
// the user's cache directory (os.UserCacheDir). QD_CACHE_DIR=off keeps
// nothing.
func defaultCodeCache() codeCache {
	dir := os.Getenv("QD_CACHE_DIR")
	switch dir {
	case "off":
		return codeCache{}
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return codeCache{}
		}
		dir = filepath.Join(base, "qd")
	}
	return codeCache{dir: dir}
}

// codeMagic starts every cache entry; a new format gets a new one.
const codeMagic = "qd code 1\n"

// codeKey names the code a compiler makes of source for target: the
// source and options by hash, the target and the compiler's version by
// name. kind says which compiler, such as "hiprtc".
func codeKey(kind, source, target, version string, options []string) string {
	h := sha256.New()
	h.Write([]byte(source))
	for _, o := range options {
		h.Write([]byte{0})
		h.Write([]byte(o))
	}
	return fmt.Sprintf("%s-%x-%s-%s", kind, h.Sum(nil)[:16], fileSafe(target), fileSafe(version))
}

// fileSafe keeps letters, digits, '.', '+' and '-' and replaces anything
// else (the colons of "gfx942:sramecc+:xnack-") with '_'.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '+', r == '-':
			return r
		}
		return '_'
	}, s)
}

func (c codeCache) path(key string) string { return filepath.Join(c.dir, key+".bin") }

// load returns the entry of key, if the cache holds an intact one.
func (c codeCache) load(key string) ([]byte, bool) {
	if c.dir == "" {
		return nil, false
	}
	data, err := os.ReadFile(c.path(key))
	if err != nil || !bytes.HasPrefix(data, []byte(codeMagic)) || len(data) < len(codeMagic)+sha256.Size {
		return nil, false
	}
	data = data[len(codeMagic):]
	sum, code := data[:sha256.Size], data[sha256.Size:]
	if got := sha256.Sum256(code); !bytes.Equal(got[:], sum) {
		return nil, false
	}
	return code, true
}

// store writes the entry of key atomically.
func (c codeCache) store(key string, code []byte) error {
	if c.dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, key+".*.tmp")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(code)
	_, err = f.Write(append(append([]byte(codeMagic), sum[:]...), code...))
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path(key))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// compileAndLoad loads the module whose code is cached under key: from the
// cache if it holds it, else compiled and then stored. Code from the cache
// that the driver refuses is compiled again; a cache that cannot be read
// or written costs a compilation, never a failure.
func compileAndLoad(c codeCache, key string, compile func() ([]byte, error), load func([]byte) (uintptr, error)) (uintptr, error) {
	if code, ok := c.load(key); ok {
		if mod, err := load(code); err == nil {
			return mod, nil
		}
	}
	code, err := compile()
	if err != nil {
		return 0, err
	}
	c.store(key, code)
	return load(code)
}
