//go:build cgo && qdnvrtc

package rt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Test infrastructure, built only with -tags qdnvrtc, never in a user's
// binary: the CUDA driver loads a module from its HIP source, compiled by
// NVRTC under the prelude's CUDA mapping, so that every GPU test runs the
// HIP emitter's output on an NVIDIA GPU and compares it with Go bit for
// bit. NVRTC comes from the CUDA toolkit, opened at run time: QD_NVRTC
// names the library, else the usual places are tried.

var (
	nvrtcOnce sync.Once
	nvrtc     *rtc
	nvrtcErr  error
)

// The CUDA driver loads HIP source only, so that a module that fails to
// compile fails its test rather than falling back to PTX.
func init() {
	cudaImageKinds = []imageKind{imageHIP}
	symbol = noDollars
}

// noDollars spells each '$' as "_qdS_": NVRTC, unlike the compilers of
// HIP, takes no '$' in names, which the entries of kernels with names
// beyond ASCII have. The source and the names looked up change alike.
func noDollars(s string) string { return strings.ReplaceAll(s, "$", "_qdS_") }

func nvrtcLibraries() []string {
	if p := os.Getenv("QD_NVRTC"); p != "" {
		return []string{p}
	}
	libs := []string{"libnvrtc.so"}
	for _, pattern := range []string{"/usr/local/cuda/lib64/libnvrtc.so*", "/usr/local/cuda-*/lib64/libnvrtc.so*"} {
		found, _ := filepath.Glob(pattern)
		libs = append(libs, found...)
	}
	return libs
}

// nvrtcOptions keep NVIDIA's compiler to Go's arithmetic: no contraction
// into FMA, IEEE division and square root, denormals kept; and keep the
// source's #line directives as line information, which names Go lines.
var nvrtcOptions = []string{"--fmad=false", "--prec-div=true", "--prec-sqrt=true", "--ftz=false", "--generate-line-info"}

func (d *cudaDriver) options() []string {
	return append([]string{"--gpu-architecture=" + d.attrs.arch}, nvrtcOptions...)
}

func nvrtcCompiler() (*rtc, error) {
	nvrtcOnce.Do(func() { nvrtc, nvrtcErr = openRTC(true, nvrtcLibraries()) })
	return nvrtc, nvrtcErr
}

func (d *cudaDriver) compileSource(source string) ([]byte, error) {
	c, err := nvrtcCompiler()
	if err != nil {
		return nil, err
	}
	return c.compile(noDollars(source), "qd.cu", d.options())
}

func (d *cudaDriver) sourceKey(sum string) string {
	version := fmt.Sprintf("cuda%d", d.driverVersion())
	if c, err := nvrtcCompiler(); err == nil {
		version += "-nvrtc" + c.version
	}
	return codeKey("nvrtc", sum, d.attrs.arch, version, d.options())
}

func (d *cudaDriver) binaryKind() imageKind { return imageCubin }
