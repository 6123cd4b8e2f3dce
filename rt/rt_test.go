package rt

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func cpu(t *testing.T) *Device {
	t.Helper()
	d, err := Open(WithBackend(CPU))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestParseBackend(t *testing.T) {
	for in, want := range map[string]Backend{"": Auto, "auto": Auto, "CPU": CPU, " cuda ": CUDA, "HIP": HIP} {
		if got, err := ParseBackend(in); err != nil || got != want {
			t.Errorf("ParseBackend(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseBackend("tpu"); err == nil {
		t.Error("ParseBackend accepted tpu")
	}
}

func TestOpenFromEnvironment(t *testing.T) {
	t.Setenv("QD_BACKEND", "cpu")
	d, err := Open()
	if err != nil || !d.IsCPU() || d.Name() != "cpu" {
		t.Fatalf("Open() with QD_BACKEND=cpu = %v, %v", d, err)
	}
	t.Setenv("QD_BACKEND", "bogus")
	if _, err := Open(); err == nil {
		t.Error("Open accepted QD_BACKEND=bogus")
	}
}

func TestBufferRoundTrip(t *testing.T) {
	d := cpu(t)
	b, err := FromSlice(d, []int16{1, -2, 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Read()
	if err != nil || len(got) != 3 || got[1] != -2 {
		t.Fatalf("Read = %v, %v", got, err)
	}
	if err := b.CopyFrom([]int16{1}); err == nil || !strings.Contains(err.Error(), "copy to device: source has 1 elements, buffer has 3") {
		t.Errorf("CopyFrom of a short slice: %v", err)
	}
	if err := b.CopyTo(make([]int16, 4)); err == nil {
		t.Error("CopyTo into a long slice succeeded")
	}
	if err := b.Zero(); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Read(); got[0] != 0 || got[2] != 0 {
		t.Errorf("after Zero: %v", got)
	}
	if _, err := Alloc[float32](d, -1); err == nil {
		t.Error("Alloc of -1 elements succeeded")
	}
}

func TestUseAfterFree(t *testing.T) {
	d := cpu(t)
	b, _ := Alloc[float64](d, 4)
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	if err := b.CopyFrom(make([]float64, 4)); !errors.Is(err, ErrClosed) {
		t.Errorf("CopyFrom after Free: %v, want ErrClosed", err)
	}
	if err := CheckBuffers(d, "K", nil, b); !errors.Is(err, ErrClosed) {
		t.Errorf("launch with a freed buffer: %v, want ErrClosed", err)
	}
}

func TestClosedDevice(t *testing.T) {
	d, _ := Open(WithBackend(CPU))
	b, _ := Alloc[int32](d, 1)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for name, err := range map[string]error{
		"CopyTo":      b.CopyTo(make([]int32, 1)),
		"Alloc":       func() error { _, err := Alloc[int32](d, 1); return err }(),
		"Load":        func() error { _, err := d.Load(&ModuleSpec{}); return err }(),
		"Synchronize": d.Synchronize(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s on a closed device: %v, want ErrClosed", name, err)
		}
	}
}

func TestWrongDevice(t *testing.T) {
	d1, d2 := cpu(t), cpu(t)
	b, _ := Alloc[int32](d1, 1)
	if err := CheckBuffers(d2, "K", nil, b); !errors.Is(err, ErrWrongDevice) {
		t.Errorf("buffer of another device: %v", err)
	}
	var none *Buffer[int32]
	if err := CheckBuffers(d1, "K", nil, none); err == nil || !strings.Contains(err.Error(), "nil buffer") {
		t.Errorf("nil buffer: %v", err)
	}
}

func TestRunCPU(t *testing.T) {
	m, err := cpu(t).Load(&ModuleSpec{Kernels: []KernelSpec{{Name: "K"}}})
	if err != nil {
		t.Fatal(err)
	}
	err = m.RunCPU(0, nil, nil, nil, func() {
		var s []int
		_ = s[3]
	})
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultIndex || f.X != 3 || f.Y != 0 || f.Kernel != "K" ||
		!regexp.MustCompile(`^qd: kernel K: runtime error: index out of range \[3\] with length 0 \(rt_test.go:\d+\)$`).MatchString(err.Error()) {
		t.Errorf("RunCPU of a kernel that indexes out of range: %v", err)
	}
	var re runtime.Error
	if !errors.As(err, &re) {
		t.Errorf("a fault is not a runtime.Error")
	}
	err = m.RunCPU(0, nil, nil, nil, func() { panic("no") })
	var p *KernelPanic
	if !errors.As(err, &p) || err.Error() != "qd: run K on the CPU: panic: no" {
		t.Errorf("RunCPU of a panicking kernel: %v", err)
	}
	if err := m.RunCPU(0, nil, nil, []LaunchOption{BlockSize(48)}, func() {}); err == nil {
		t.Error("a block size of 48 was accepted")
	}
	ran := false
	if err := m.RunCPU(0, nil, nil, []LaunchOption{BlockSize(128), GridSize(4)}, func() { ran = true }); err != nil || !ran {
		t.Errorf("RunCPU = %v, ran %v", err, ran)
	}
}

func TestGridFor(t *testing.T) {
	d := &Device{attrs: deviceAttributes{multiprocessors: 10, maxThreadsPerSM: 2048}}
	for _, c := range []struct {
		count       int64
		cfg         launchSettings
		taskFull    int64
		grid, block uint32
		ok          bool
	}{
		{count: 1, grid: 1, block: 256, ok: true},
		{count: 257, grid: 2, block: 256, ok: true},
		{count: 0, ok: false},
		{count: -5, ok: false},
		{count: 1 << 40, grid: 10 * 8 * wavesPerLaunch, block: 256, ok: true},
		{count: UnknownCount, grid: 10 * 8 * wavesPerLaunch, block: 256, ok: true},
		{count: 1000, cfg: launchSettings{blockSize: 128}, grid: 8, block: 128, ok: true},
		{count: 1000, cfg: launchSettings{gridSize: 3}, grid: 3, block: 256, ok: true},
		// A function of which 6 blocks fit on a multiprocessor, not 8.
		{count: 1 << 40, taskFull: 10 * 6 * wavesPerLaunch, grid: 10 * 6 * wavesPerLaunch, block: 256, ok: true},
		{count: 1000, taskFull: 10 * 6 * wavesPerLaunch, grid: 4, block: 256, ok: true},
		{count: 1 << 40, cfg: launchSettings{blockSize: 128}, taskFull: 10 * 6 * wavesPerLaunch, grid: 10 * 16 * wavesPerLaunch, block: 128, ok: true},
		{count: 1 << 40, cfg: launchSettings{gridSize: 3}, taskFull: 10 * 6 * wavesPerLaunch, grid: 3, block: 256, ok: true},
	} {
		grid, block, ok := d.gridFor(c.count, c.cfg, c.taskFull)
		if grid != c.grid || block != c.block || ok != c.ok {
			t.Errorf("gridFor(%d, %+v) = %d, %d, %v; want %d, %d, %v", c.count, c.cfg, grid, block, ok, c.grid, c.block, c.ok)
		}
	}
}

// TestChooseImage checks that a module loads from the image its driver
// prefers, that images for one GPU are used only on a GPU they fit, and
// that a module without one the driver loads is a clear error.
func TestChooseImage(t *testing.T) {
	const other ImageKind = 200 // a form no driver loads yet
	images := []Image{{Kind: other, Data: "a"}, {Kind: ImagePTX, Data: "b"}}
	if img, err := chooseImage(images, CUDA, []ImageKind{ImagePTX}, "sm_80"); err != nil || img.Data != "b" {
		t.Errorf("chooseImage = %+v, %v; want the PTX image", img, err)
	}
	if img, err := chooseImage(images, CUDA, []ImageKind{other, ImagePTX}, "sm_80"); err != nil || img.Data != "a" {
		t.Errorf("chooseImage = %+v, %v; want the preferred image", img, err)
	}
	_, err := chooseImage(images[:1], CUDA, []ImageKind{ImagePTX}, "sm_80")
	if !errors.Is(err, ErrNoImage) || err.Error() != "no device code this device can load: the module has ImageKind(200), the cuda driver loads PTX (GPU sm_80)" {
		t.Errorf("no PTX image: %v", err)
	}
	if _, err := chooseImage(nil, CUDA, []ImageKind{ImagePTX}, "sm_80"); err == nil || !strings.Contains(err.Error(), "the module has none") {
		t.Errorf("no images: %v", err)
	}

	// AMD code objects fit targets by processor and feature flags; the
	// source fits every GPU.
	amd := []Image{
		{Kind: ImageHSACO, Arch: "gfx90a", Data: "cdna2"},
		{Kind: ImageHSACO, Arch: "gfx942:sramecc+:xnack+", Data: "xnack on"},
		{Kind: ImageHSACO, Arch: "gfx942:xnack-", Data: "xnack off"},
		{Kind: ImageHIP, Data: "source"},
	}
	for device, want := range map[string]string{
		"gfx942:sramecc+:xnack-": "xnack off",
		"gfx942:sramecc+:xnack+": "xnack on",
		"gfx90a:sramecc-:xnack-": "cdna2",
		"gfx1100":                "source",
	} {
		if img, err := chooseImage(amd, HIP, hipImageKinds, device); err != nil || img.Data != want {
			t.Errorf("image for %s: %+v, %v; want %s", device, img, err, want)
		}
	}
	_, err = chooseImage(amd[:1], HIP, hipImageKinds, "gfx942:sramecc+:xnack-")
	if !errors.Is(err, ErrNoImage) || !strings.Contains(err.Error(), "the module has HSACO for gfx90a, the hip driver loads HSACO, HIP (GPU gfx942:sramecc+:xnack-)") {
		t.Errorf("no image for the target: %v", err)
	}

	// A module qdgen made with -backends=ptx, loaded by the HIP driver.
	ptxOnly := []Image{{Kind: ImagePTX, Data: "ptx"}, {Kind: ImageIR, Data: "ir"}}
	_, err = chooseImage(ptxOnly, HIP, hipImageKinds, "gfx90a")
	if !errors.Is(err, ErrNoImage) || !strings.HasSuffix(err.Error(), "qdgen generated it without the hip backend: run qdgen with hip among -backends") {
		t.Errorf("a module without the HIP backend: %v", err)
	}
}

// TestBlockSizeLimits checks block sizes against the device's warp size
// and threads per block, not against NVIDIA's.
func TestBlockSizeLimits(t *testing.T) {
	wave64 := &Device{attrs: deviceAttributes{warpSize: 64, maxThreadsPerBlock: 256}}
	for _, c := range []struct {
		d    *Device
		size int
		ok   bool
	}{
		{cpu(t), 32, true}, {cpu(t), 1024, true}, {cpu(t), 48, false}, {cpu(t), 2048, false},
		{wave64, 64, true}, {wave64, 256, true}, {wave64, 32, false}, {wave64, 96, false}, {wave64, 512, false},
	} {
		_, err := launchConfig(c.d, []LaunchOption{BlockSize(c.size)})
		if (err == nil) != c.ok {
			t.Errorf("block size %d with warp %d and %d threads per block: %v", c.size, c.d.attrs.warpSize, c.d.attrs.maxThreadsPerBlock, err)
		}
	}
	_, err := launchConfig(wave64, []LaunchOption{BlockSize(32)})
	if err == nil || err.Error() != "block size 32 is not a multiple of the device's warp size 64 in [64, 256]" {
		t.Errorf("block size 32 on a wave-64 device: %v", err)
	}
}

// TestPoolSize checks the stream pool's size: what the device runs at
// once unless WithStreamPool asks otherwise.
func TestPoolSize(t *testing.T) {
	if n := cpu(t).PoolSize(); n != cpuAttributes.streamQueues {
		t.Errorf("default pool size on the CPU: %d", n)
	}
	d, err := Open(WithBackend(CPU), WithStreamPool(40))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.PoolSize() != maxPoolStreams {
		t.Errorf("WithStreamPool(40): pool size %d", d.PoolSize())
	}
}

// gpuBackend is the GPU backend under test: QD_BACKEND's when it names
// one, else CUDA.
func gpuBackend() Backend {
	if b, _ := ParseBackend(os.Getenv("QD_BACKEND")); b == HIP {
		return HIP
	}
	return CUDA
}

// gpu opens the GPU backend under test or skips the test on a machine
// without it. Under a launcher (qdrun -n N ./rt.test) each process tests
// the GPU of its LOCAL_RANK.
func gpu(t testing.TB) *Device {
	t.Helper()
	opts := []Option{WithBackend(gpuBackend())}
	if local, err := strconv.Atoi(os.Getenv("LOCAL_RANK")); err == nil {
		opts = append(opts, WithDevice(local))
	}
	d, err := Open(opts...)
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("no %s device: %v", gpuBackend(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestNoSuchDeviceGPU(t *testing.T) {
	gpu(t)
	if _, err := Open(WithBackend(gpuBackend()), WithDevice(1000)); !errors.Is(err, ErrNoDevice) {
		t.Errorf("device 1000: %v, want ErrNoDevice", err)
	}
	t.Setenv("QD_BACKEND", "auto")
	d, err := Open(WithDevice(1000)) // Auto falls back to the CPU
	if err != nil || !d.IsCPU() {
		t.Errorf("Auto with device 1000: %v, %v", d, err)
	}
}

func TestBuffersGPU(t *testing.T) {
	d := gpu(t)
	src := []uint8{1, 2, 3, 250}
	b, err := FromSlice(d, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Read()
	if err != nil || string(got) != string(src) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	if err := b.Zero(); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Read(); got[3] != 0 {
		t.Errorf("after Zero: %v", got)
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Read(); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Free: %v", err)
	}
}

// TestDeviceFactsGPU checks the facts the driver reports, and that a
// module without device code it loads does not load.
func TestDeviceFactsGPU(t *testing.T) {
	d := gpu(t)
	a := d.attrs
	t.Logf("%s: %+v", d, a)
	switch d.Backend() {
	case CUDA:
		if a.warpSize != 32 || a.maxThreadsPerBlock != 1024 || !strings.HasPrefix(a.arch, "sm_") || a.streamQueues < 1 {
			t.Errorf("device facts %+v", a)
		}
		if os.Getenv("CUDA_DEVICE_MAX_CONNECTIONS") == "" && d.PoolSize() != 8 {
			t.Errorf("default pool size %d, want 8", d.PoolSize())
		}
	case HIP:
		if a.warpSize != 32 && a.warpSize != 64 || a.maxThreadsPerBlock < 256 || !targetPattern.MatchString(a.arch) || a.multiprocessors < 1 {
			t.Errorf("device facts %+v", a)
		}
		if os.Getenv("GPU_MAX_HW_QUEUES") == "" && d.PoolSize() != 4 {
			t.Errorf("default pool size %d, want 4", d.PoolSize())
		}
	}
	if _, err := d.Load(&ModuleSpec{Package: "none"}); !errors.Is(err, ErrNoImage) {
		t.Errorf("loading a module without images: %v", err)
	}
}

// TestBadPTXGPU checks that a module the CUDA driver cannot compile is an
// error naming the driver call, the CUDA error and the compiler's log.
func TestBadPTXGPU(t *testing.T) {
	d := gpu(t)
	if !slices.Contains(d.drv.imageKinds(), ImagePTX) {
		t.Skip("the driver does not load PTX")
	}
	_, err := d.Load(&ModuleSpec{Package: "broken", Images: []Image{{Kind: ImagePTX, Data: ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() { frobnicate; }\n"}}})
	var de *DriverError
	if !errors.As(err, &de) || de.Call != "cuModuleLoadDataEx" || !strings.HasPrefix(de.Name, "CUDA_ERROR_") || de.Log == "" {
		t.Fatalf("loading broken PTX: %v", err)
	}
	t.Logf("error: %v", err)
}

// TestBadSourceGPU checks that HIP source the runtime compiler rejects is
// an error naming the compiler's call and error, with its log. It runs on
// HIP, and on CUDA in builds that compile HIP source with NVRTC.
func TestBadSourceGPU(t *testing.T) {
	d := gpu(t)
	if !slices.Contains(d.drv.imageKinds(), ImageHIP) {
		t.Skip("the driver does not compile HIP source")
	}
	t.Setenv("QD_CACHE_DIR", t.TempDir())
	_, err := d.Load(&ModuleSpec{Package: "broken", Images: []Image{{Kind: ImageHIP, Data: `extern "C" __global__ void k() { frobnicate; }`}}})
	var de *DriverError
	if !errors.As(err, &de) || !strings.HasSuffix(de.Call, "rtcCompileProgram") || !strings.HasSuffix(de.Name, "RTC_ERROR_COMPILATION") || !strings.Contains(de.Log, "frobnicate") {
		t.Fatalf("loading broken source: %v", err)
	}
	t.Logf("error: %v", err)
}

// fillSource and fillPTX are one kernel, fill(p, v): p[0] = v, as HIP
// source and as PTX. fillSource is wrapped in the prelude's lines that
// pick CUDA or HIP.
const (
	fillSource = `#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h>
#endif
extern "C" __global__ void fill(long long *p, long long v) { p[0] = v; }
`
	fillPTX = `.version 7.0
.target sm_70
.address_size 64
.visible .entry fill(.param .u64 p, .param .u64 v)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd0, [p];
	ld.param.u64 %rd1, [v];
	cvta.to.global.u64 %rd0, %rd0;
	st.global.u64 [%rd0], %rd1;
	ret;
}
`
)

var fillSpec = &ModuleSpec{
	Package: "fill",
	Images:  []Image{{Kind: ImagePTX, Data: fillPTX}, {Kind: ImageHIP, Data: fillSource}},
	Kernels: []KernelSpec{{Name: "Fill", Tasks: []TaskSpec{{Entry: "fill"}}}},
}

// TestImageKindGPU loads a module with PTX and HIP source and checks that
// the driver loaded the kind it prefers, and that the kernel runs; under
// HIP, a second load in a new process's place comes from the code cache.
func TestImageKindGPU(t *testing.T) {
	t.Setenv("QD_CACHE_DIR", t.TempDir())
	d := gpu(t)
	m, err := d.Load(fillSpec)
	if err != nil {
		t.Fatal(err)
	}
	// The kind the driver prefers among those the module has.
	want := ImageKind(0)
	for _, k := range d.drv.imageKinds() {
		if slices.ContainsFunc(fillSpec.Images, func(im Image) bool { return im.Kind == k }) {
			want = k
			break
		}
	}
	if m.ImageKind() != want {
		t.Errorf("loaded from %s, want %s", m.ImageKind(), want)
	}
	t.Logf("%s loaded the module from %s", d.Backend(), m.ImageKind())
	b, err := Alloc[int64](d, 1)
	if err != nil {
		t.Fatal(err)
	}
	var args [16]byte
	PutBuffer(args[:], 0, b)
	PutUint64(args[:], 8, 0x1234567890)
	if err := m.Launch(0, []int64{1}, args[:], nil); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Read(); err != nil || got[0] != 0x1234567890 {
		t.Fatalf("fill: %v, %v", got, err)
	}
	if m.ImageKind() == ImageHIP {
		entries, _ := os.ReadDir(os.Getenv("QD_CACHE_DIR"))
		if len(entries) != 1 {
			t.Errorf("code cache holds %d entries, want 1", len(entries))
		}
	}
}

// faultArgs make fill store through a null pointer: fill(nil, 1).
func faultArgs() [16]byte {
	var args [16]byte
	PutUint64(args[:], 8, 1)
	return args
}

// TestKernelFaultGPU checks that a kernel that faults is reported at the
// next synchronization as an error naming the driver's error. A fault
// spoils the context for good, so it runs in a child process.
func TestKernelFaultGPU(t *testing.T) {
	if os.Getenv("QD_FAULT_CHILD") == "1" {
		d := gpu(t)
		m, err := d.Load(fillSpec)
		if err != nil {
			t.Fatal(err)
		}
		args := faultArgs()
		if err := m.Launch(0, []int64{1}, args[:], nil); err != nil {
			t.Fatalf("launch: %v", err)
		}
		err = d.Synchronize()
		t.Logf("synchronize: %v", err)
		want := map[Backend]string{
			CUDA: "qd: synchronize: cuStreamSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS",
			HIP:  "qd: synchronize: hipStreamSynchronize: hipErrorIllegalAddress",
		}[d.Backend()]
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("fault not reported as %q: %v", want, err)
		}
		return
	}
	gpu(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKernelFaultGPU$", "-test.v")
	cmd.Env = append(os.Environ(), "QD_FAULT_CHILD=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// TestChooseCubin checks that a device gets the cubin of the latest
// architecture that runs on it, and PTX where none does.
func TestChooseCubin(t *testing.T) {
	images := []Image{
		{Kind: ImagePTX, Data: "ptx"},
		{Kind: ImageCubin, Arch: "sm_80", Data: "80"},
		{Kind: ImageCubin, Arch: "sm_86", Data: "86"},
		{Kind: ImageCubin, Arch: "sm_90a", Data: "90a"},
	}
	for arch, want := range map[string]string{
		"sm_80": "80", "sm_86": "86", "sm_89": "86", "sm_90": "90a", "sm_75": "ptx", "sm_100": "ptx", "sm_120": "ptx",
	} {
		img, err := chooseImage(images, CUDA, cudaImageKindsFake, arch)
		if err != nil || img.Data != want {
			t.Errorf("%s: %q, %v; want %q", arch, img.Data, err, want)
		}
	}
	if archRuns("sm_90a", "sm_91") || !archRuns("sm_90", "sm_90") || archRuns("sm_86", "sm_80") || archRuns("bogus", "sm_80") {
		t.Error("archRuns")
	}
}

func TestOpenAsync(t *testing.T) {
	opened := OpenAsync(WithBackend(CPU))
	d, err := opened()
	if err != nil || !d.IsCPU() {
		t.Fatalf("OpenAsync = %v, %v", d, err)
	}
	if d2, _ := opened(); d2 != d {
		t.Error("a second call returned another device")
	}
	d.Close()
}

// TestIterations checks the iteration count of a launch: never wrapped
// around, even for loops longer than 2^63.
func TestIterations(t *testing.T) {
	for _, c := range []struct{ start, end, want int64 }{
		{0, 10, 10}, {5, 5, 0}, {7, 3, 0}, {-3, 4, 7},
		{-1 << 62, 1<<62 + 9, math.MaxInt64}, {math.MinInt64, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64, math.MinInt64, 0}, {-1 << 62, 1 << 62, 1<<63 - 1},
	} {
		if got := Iterations(c.start, c.end); got != c.want {
			t.Errorf("Iterations(%d, %d) = %d, want %d", c.start, c.end, got, c.want)
		}
	}
}

// TestNilStreamHandle checks that the default stream, nil, has the
// drivers' handle of the default stream.
func TestNilStreamHandle(t *testing.T) {
	var s *Stream
	if h := s.Handle(); h != 0 {
		t.Errorf("nil stream's handle %#x, want 0", h)
	}
}

// TestUnevenGrid checks that an uneven task gets a thread an iteration
// where its count is known, and the capped grid where it is not.
func TestUnevenGrid(t *testing.T) {
	d := &Device{attrs: deviceAttributes{multiprocessors: 10, maxThreadsPerSM: 2048}}
	full := int64(10 * 8 * wavesPerLaunch)
	spec := &moduleSpec{Kernels: []kernelSpec{{Name: "K", Tasks: []taskSpec{
		{Entry: "K_0", Parallel: true},
		{Entry: "K_1", Parallel: true, Uneven: true},
	}}}}
	m := &Module{dev: d, spec: spec, fulls: [][]int64{{full, full}}}
	for _, c := range []struct {
		task  int
		count int64
		grid  uint32
	}{
		{0, 1 << 24, uint32(full)},
		{1, 1 << 24, 1 << 16},
		{1, 1000, 4},
		{1, UnknownCount, uint32(full)},
	} {
		grid, block, ok := m.taskGrid(0, c.task, c.count, launchSettings{})
		if grid != c.grid || block != 256 || !ok {
			t.Errorf("task %d of %d iterations: grid %d, block %d, %v; want %d, 256, true", c.task, c.count, grid, block, ok, c.grid)
		}
	}
}

// TestBlocksGrid checks that a block-level task gets a GPU block per
// block of the task up to a few waves of the device, and those waves
// when there are more blocks or the host cannot count them.
func TestBlocksGrid(t *testing.T) {
	d := &Device{attrs: deviceAttributes{multiprocessors: 10, maxThreadsPerSM: 2048}}
	for _, c := range []struct {
		count   int64
		threads int
		grid    uint32
	}{
		{100, 256, 100},
		{1 << 20, 256, 10 * 8 * wavesPerLaunch},
		{1 << 20, 1024, 10 * 2 * wavesPerLaunch},
		{1 << 40, 64, 10 * 32 * wavesPerLaunch},
		{UnknownCount, 128, 10 * 16 * wavesPerLaunch},
	} {
		grid, block, ok := d.blocksGrid(c.count, c.threads)
		if grid != c.grid || block != uint32(c.threads) || !ok {
			t.Errorf("%d blocks of %d threads: grid %d, block %d, %v; want %d, %d, true", c.count, c.threads, grid, block, ok, c.grid, c.threads)
		}
	}
	if _, _, ok := d.blocksGrid(0, 256); ok {
		t.Errorf("0 blocks: a grid, want none")
	}
}
