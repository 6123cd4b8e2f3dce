package rt

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// The module cache keeps the binary code (a cubin) that the driver's own
// linker compiles from a module's PTX, and the code objects hiprtc makes of
// HIP source (codecache.go), so that the next process on the same GPU and
// driver loads the module without compiling it: the driver's
// JIT takes hundreds of milliseconds for a module of a few kernels, and
// its own cache is lost where CUDA_CACHE_DISABLE is set, the home
// directory is read-only or new (containers, CI), or the driver changed.
//
// The cache lives in QD_CACHE_DIR, or in os.UserCacheDir()/qd; QD_CACHE=off
// turns it off. An entry is keyed by the PTX's SHA-256, the GPU's
// architecture and the driver's version, and written atomically (a
// temporary file renamed into place), so concurrent processes never read
// half an entry. Each entry carries its length and the SHA-256 of its
// contents: a truncated or corrupt entry, or one the driver rejects, is
// compiled and written again. Failing to write the cache is not an error.

// cubinMagic starts every cache entry; the version changes with the
// format.
const cubinMagic = "qd cubin 1\n"

// cacheDir is the module cache's directory, or "" when it is off.
func cacheDir() string {
	if os.Getenv("QD_CACHE") == "off" {
		return ""
	}
	if dir := os.Getenv("QD_CACHE_DIR"); dir != "" {
		return dir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "qd")
}

// cubinPath is the cache entry of ptx compiled for arch by a driver of the
// given version.
func cubinPath(dir, ptx, arch string, driverVersion int) string {
	sum := sha256.Sum256([]byte(ptx))
	return filepath.Join(dir, fmt.Sprintf("%s-%s-drv%d.cubin", hex.EncodeToString(sum[:16]), arch, driverVersion))
}

// readCubin returns the cubin of a cache entry, or false when the entry is
// missing, truncated or corrupt.
func readCubin(path string) ([]byte, bool) {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(cubinMagic)) {
		return nil, false
	}
	data = data[len(cubinMagic):]
	if len(data) < 8+sha256.Size {
		return nil, false
	}
	n := binary.LittleEndian.Uint64(data)
	sum, bin := data[8:8+sha256.Size], data[8+sha256.Size:]
	if uint64(len(bin)) != n {
		return nil, false
	}
	if got := sha256.Sum256(bin); !bytes.Equal(got[:], sum) {
		return nil, false
	}
	return bin, true
}

// writeCubin writes a cache entry atomically.
func writeCubin(path string, bin []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".cubin-*")
	if err != nil {
		return err
	}
	var head [8 + sha256.Size]byte
	binary.LittleEndian.PutUint64(head[:], uint64(len(bin)))
	sum := sha256.Sum256(bin)
	copy(head[8:], sum[:])
	_, err = f.Write(append(append([]byte(cubinMagic), head[:]...), bin...))
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// How a module was loaded, as Module.LoadedFrom says.
const (
	fromCache    = "cubin from the module cache"
	fromLinker   = "PTX compiled by the driver's linker, now cached"
	fromJIT      = "PTX compiled by the driver's JIT"
	fromEmbedded = "embedded cubin"
	fromGo       = "Go functions (CPU)"
)

// loadImage loads a module's image, through the module cache when it is
// PTX and the driver has a linker, or source the driver compiles. It
// returns the module and where its code came from.
func (d *Device) loadImage(img Image) (uintptr, string, error) {
	drv := d.drv
	if c, ok := drv.(sourceCompiler); ok && img.Kind == ImageHIP {
		return d.loadSource(c, img)
	}
	if img.Kind != ImagePTX {
		h, err := drv.loadModule(img)
		return h, fromEmbedded, err
	}
	dir := cacheDir()
	if dir == "" || !drv.features().linker {
		h, err := drv.loadModule(img)
		return h, fromJIT, err
	}
	path := cubinPath(dir, img.Data, d.attrs.arch, drv.driverVersion())
	if bin, ok := readCubin(path); ok {
		if h, err := drv.loadModule(Image{Kind: ImageCubin, Data: string(bin)}); err == nil {
			return h, fromCache, nil
		}
	}
	bin, err := drv.linkPTX(img.Data)
	if err == nil {
		var h uintptr
		if h, err = drv.loadModule(Image{Kind: ImageCubin, Data: string(bin)}); err == nil {
			writeCubin(path, bin)
			return h, fromLinker, nil
		}
	}
	// The JIT reports what is wrong with the PTX, if anything.
	h, err := drv.loadModule(img)
	return h, fromJIT, err
}
