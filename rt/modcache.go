package rt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"unsafe"
)

// The module cache keeps the binary code (a cubin) that the driver's own
// linker compiles from a module's PTX, and the code objects hiprtc makes of
// HIP source (codecache.go), so that the next process on the same GPU and
// driver loads the module without compiling it: the driver's
// JIT takes hundreds of milliseconds for a module of a few kernels, and
// its own cache is lost where CUDA_CACHE_DISABLE is set, the home
// directory is read-only or new (containers, CI), or the driver changed.
//
// The cache lives in QD_CACHE_DIR, or in os.UserCacheDir()/qd; cacheDir
// says when it is on. An entry is keyed by the PTX's SHA-256 and length, the
// GPU's architecture and the driver's version, and written atomically (a
// temporary file renamed into place), so concurrent processes never read
// half an entry. qdgen writes the SHA-256 into the generated module
// (codeImage.Sum), so that loading hashes nothing. Each entry carries its
// length and a CRC-32C of its contents, which the CPU computes at
// several GB/s: a truncated or corrupt entry, or one the driver rejects,
// is compiled and written again. Failing to write the cache is not an
// error.

// cubinMagic starts every cache entry; the version changes with the
// format.
const cubinMagic = "qd cubin 2\n"

// castagnoli is CRC-32C, which amd64 and arm64 compute in hardware.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// entryHead is the length of an entry's header after the magic: the
// cubin's length and its CRC-32C.
const entryHead = 8 + 4

// cacheDir is the module cache's directory, or "" when it is off.
// QD_CACHE=off turns it off, QD_CACHE=on or QD_CACHE_DIR on. Otherwise it
// is on when byDefault: the code objects of HIP source, which nothing else
// keeps, are cached by default; cubins of PTX are not, because the driver's
// linker compiles slower code than its JIT (on the H100, bench/suite's
// stencils took 1.15× and 1.26× the time and Matmul 1.12×), while the
// JIT's own cache serves the next process wherever the home directory is.
func cacheDir(byDefault bool) string {
	setting := os.Getenv("QD_CACHE")
	if setting == "off" {
		return ""
	}
	if dir := os.Getenv("QD_CACHE_DIR"); dir != "" {
		return dir
	}
	if setting != "on" && !byDefault {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "qd")
}

// cubinPath is the cache entry of a PTX image compiled for arch by a
// driver of the given version.
func cubinPath(dir string, img codeImage, arch string, driverVersion int) string {
	return filepath.Join(dir, fmt.Sprintf("%.32s-%d-%s-drv%d.cubin", imageSum(img), len(img.Data), arch, driverVersion))
}

// readCubin returns the cubin of a cache entry, or false when the entry is
// missing, truncated or corrupt.
func readCubin(path string) ([]byte, bool) {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(cubinMagic)) {
		return nil, false
	}
	data = data[len(cubinMagic):]
	if len(data) < entryHead {
		return nil, false
	}
	n, sum, bin := binary.LittleEndian.Uint64(data), binary.LittleEndian.Uint32(data[8:]), data[entryHead:]
	if uint64(len(bin)) != n || crc32.Checksum(bin, castagnoli) != sum {
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
	var head [entryHead]byte
	binary.LittleEndian.PutUint64(head[:], uint64(len(bin)))
	binary.LittleEndian.PutUint32(head[8:], crc32.Checksum(bin, castagnoli))
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

// How a module was loaded, as module.LoadedFrom says.
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
func (d *Device) loadImage(img codeImage) (uintptr, string, error) {
	drv := d.drv
	if c, ok := drv.(sourceCompiler); ok && img.Kind == imageHIP {
		return d.loadSource(c, img)
	}
	if img.Kind != imagePTX {
		h, err := drv.loadModule(img)
		return h, fromEmbedded, err
	}
	dir := cacheDir(false)
	if dir == "" || !drv.features().linker {
		h, err := drv.loadModule(img)
		return h, fromJIT, err
	}
	path := cubinPath(dir, img, d.attrs.arch, drv.driverVersion())
	if bin, ok := readCubin(path); ok {
		if h, err := drv.loadModule(codeImage{Kind: imageCubin, Data: bytesString(bin)}); err == nil {
			return h, fromCache, nil
		}
	}
	bin, err := drv.linkPTX(img.Data)
	if err == nil {
		var h uintptr
		if h, err = drv.loadModule(codeImage{Kind: imageCubin, Data: bytesString(bin)}); err == nil {
			writeCubin(path, bin)
			return h, fromLinker, nil
		}
	}
	// The JIT reports what is wrong with the PTX, if anything.
	h, err := drv.loadModule(img)
	return h, fromJIT, err
}

// bytesString is b as a string without copying it; b must not change
// afterwards.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
