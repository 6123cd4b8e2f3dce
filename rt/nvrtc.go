//go:build cgo && qdnvrtc

package rt

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Test infrastructure, built only with -tags qdnvrtc, never in a user's
// binary: the CUDA driver loads a module from its HIP source, compiled by
// NVRTC under the prelude's CUDA mapping, so that every GPU test runs the
// HIP emitter's output on an NVIDIA GPU and compares it with Go bit for
// bit. NVRTC comes from the CUDA toolkit, opened at run
// time: QD_NVRTC names the library, else the usual places are tried.

var (
	nvrtcOnce sync.Once
	nvrtc     *rtc
	nvrtcErr  error
)

// The CUDA driver loads HIP source only, so that a module that fails to
// compile fails its test rather than falling back to PTX.
func init() {
	cudaImageKinds = []ImageKind{ImageHIP}
	loadSource = loadWithNVRTC
}

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
// into FMA, IEEE division and square root, denormals kept.
var nvrtcOptions = []string{"--fmad=false", "--prec-div=true", "--prec-sqrt=true", "--ftz=false"}

func loadWithNVRTC(d *cudaDriver, img Image) (uintptr, error) {
	if img.Kind != ImageHIP {
		return 0, fmt.Errorf("%w: the CUDA driver does not load %s", ErrNoImage, img.Kind)
	}
	nvrtcOnce.Do(func() { nvrtc, nvrtcErr = openRTC(true, nvrtcLibraries()) })
	if nvrtcErr != nil {
		return 0, nvrtcErr
	}
	options := append([]string{"--gpu-architecture=" + d.attrs.arch}, nvrtcOptions...)
	key := codeKey("nvrtc", img.Data, d.attrs.arch, fmt.Sprintf("cuda%d-nvrtc%s", d.driverVersion(), nvrtc.version), options)
	compile := func() ([]byte, error) { return nvrtc.compile(img.Data, "qd.cu", options) }
	return compileAndLoad(defaultCodeCache(), key, compile, d.loadCode)
}
