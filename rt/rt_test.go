package rt

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"runtime"
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
	for in, want := range map[string]Backend{"": Auto, "auto": Auto, "CPU": CPU, " cuda ": CUDA} {
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
	} {
		grid, block, ok := d.gridFor(c.count, c.cfg)
		if grid != c.grid || block != c.block || ok != c.ok {
			t.Errorf("gridFor(%d, %+v) = %d, %d, %v; want %d, %d, %v", c.count, c.cfg, grid, block, ok, c.grid, c.block, c.ok)
		}
	}
}

// TestChooseImage checks that a module loads from the image its driver
// prefers, and that a module without one it loads is a clear error.
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

// gpu opens the GPU or skips the test on a machine without one.
func gpu(t testing.TB) *Device {
	t.Helper()
	d, err := Open(WithBackend(CUDA))
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("no CUDA device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestNoSuchDeviceGPU(t *testing.T) {
	gpu(t)
	if _, err := Open(WithBackend(CUDA), WithDevice(1000)); !errors.Is(err, ErrNoDevice) {
		t.Errorf("device 1000: %v, want ErrNoDevice", err)
	}
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

// TestDeviceFactsGPU checks the facts the CUDA driver reports, and that a
// module without PTX does not load.
func TestDeviceFactsGPU(t *testing.T) {
	d := gpu(t)
	a := d.attrs
	if a.warpSize != 32 || a.maxThreadsPerBlock != 1024 || !strings.HasPrefix(a.arch, "sm_") || a.streamQueues < 1 {
		t.Errorf("device facts %+v", a)
	}
	if os.Getenv("CUDA_DEVICE_MAX_CONNECTIONS") == "" && d.PoolSize() != 8 {
		t.Errorf("default pool size %d, want 8", d.PoolSize())
	}
	if _, err := d.Load(&ModuleSpec{Package: "none"}); !errors.Is(err, ErrNoImage) {
		t.Errorf("loading a module without images: %v", err)
	}
}

// TestBadPTXGPU checks that a module the driver cannot compile is an error
// naming the driver call, the CUDA error and the compiler's log.
func TestBadPTXGPU(t *testing.T) {
	d := gpu(t)
	_, err := d.Load(&ModuleSpec{Package: "broken", Images: []Image{{Kind: ImagePTX, Data: ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() { frobnicate; }\n"}}})
	var de *DriverError
	if !errors.As(err, &de) || de.Call != "cuModuleLoadDataEx" || !strings.HasPrefix(de.Name, "CUDA_ERROR_") || de.Log == "" {
		t.Fatalf("loading broken PTX: %v", err)
	}
	t.Logf("error: %v", err)
}

// faultPTX stores through a null pointer.
const faultPTX = `.version 7.0
.target sm_70
.address_size 64
.visible .entry fault(.param .u64 p)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd0, [p];
	mov.u64 %rd1, 1;
	st.global.u64 [%rd0], %rd1;
	ret;
}
`

// TestKernelFaultGPU checks that a kernel that faults is reported at the
// next synchronization as an error naming the CUDA error. A fault spoils
// the CUDA context for good, so it runs in a child process.
func TestKernelFaultGPU(t *testing.T) {
	if os.Getenv("QD_FAULT_CHILD") == "1" {
		d := gpu(t)
		m, err := d.Load(&ModuleSpec{Package: "fault", Images: []Image{{Kind: ImagePTX, Data: faultPTX}}, Kernels: []KernelSpec{{Name: "Fault", Tasks: []TaskSpec{{Entry: "fault"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		var args [8]byte
		if err := m.Launch(0, []int64{1}, args[:], nil); err != nil {
			t.Fatalf("launch: %v", err)
		}
		err = d.Synchronize()
		t.Logf("synchronize: %v", err)
		if err == nil || !strings.Contains(err.Error(), "qd: synchronize: cuStreamSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS") {
			t.Fatalf("fault not reported: %v", err)
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
