package rt

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/qdgo/qd/internal/ptxsum"
)

// sourceCompiler is a driver that compiles source itself: the HIP driver
// compiles HIP source with hiprtc (and the CUDA driver does with NVRTC in
// test builds, nvrtc.go). Device.loadImage keeps the binary code it makes
// in the module cache (modcache.go), as it keeps the cubins of PTX.
type sourceCompiler interface {
	// sourceKey names the binary code of the source whose hex SHA-256
	// is sum in the cache: by the sum, the compiler's options, the
	// device's target and the versions of the compiler and runtime.
	sourceKey(sum string) string
	compileSource(source string) ([]byte, error)
	// binaryKind is the kind of image the binary code loads as.
	binaryKind() imageKind
}

// How a module compiled from source was loaded, as module.LoadedFrom
// says.
const (
	fromSourceCache = "binary code from the module cache, compiled from source before"
	fromCompiler    = "source compiled at run time, now cached"
)

// loadSource loads a module from source the driver compiles, through the
// module cache: from an entry when the cache has an intact one the driver
// accepts, else compiled and then written to the cache. A cache that cannot
// be read or written costs a compilation, never a failure.
func (d *Device) loadSource(c sourceCompiler, img codeImage) (uintptr, string, error) {
	load := func(code []byte) (uintptr, error) {
		return d.drv.loadModule(codeImage{Kind: c.binaryKind(), Arch: d.attrs.arch, Data: bytesString(code)})
	}
	var path string
	if dir := cacheDir(true); dir != "" {
		path = filepath.Join(dir, c.sourceKey(imageSum(img)))
		if code, ok := readCubin(path); ok {
			if h, err := load(code); err == nil {
				return h, fromSourceCache, nil
			}
		}
	}
	code, err := c.compileSource(img.Data)
	if err != nil {
		return 0, "", err
	}
	h, err := load(code)
	if err == nil && path != "" {
		writeCubin(path, code)
	}
	return h, fromCompiler, err
}

// imageSum is the hex SHA-256 of an image's data that keys the module
// cache: the one qdgen wrote (codeImage.Sum), so that loading hashes nothing,
// or for an image written by hand computed now.
func imageSum(img codeImage) string {
	if img.Sum != "" {
		return img.Sum
	}
	return ptxsum.Of(img.Data)
}

// codeKey is a cache entry's name for the code a compiler (kind, such as
// "hiprtc") makes, with options for target, of the source whose hex
// SHA-256 is sum: the sum and options by hash, the target and the versions
// by name.
func codeKey(kind, sum, target, version string, options []string) string {
	h := sha256.New()
	h.Write([]byte(sum))
	for _, o := range options {
		h.Write([]byte{0})
		h.Write([]byte(o))
	}
	return fmt.Sprintf("%s-%x-%s-%s.bin", kind, h.Sum(nil)[:16], fileSafe(target), fileSafe(version))
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
