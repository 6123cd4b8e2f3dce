package rt

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestOpenAllCPUDevices(t *testing.T) {
	t.Setenv("QD_CPU_DEVICES", "4")
	devs, err := OpenAll(WithBackend(CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer CloseAll(devs)
	if len(devs) != 4 {
		t.Fatalf("OpenAll opened %d devices, want 4", len(devs))
	}
	for i, d := range devs {
		if d.Index() != i || !d.IsCPU() {
			t.Errorf("device %d: index %d, %v", i, d.Index(), d)
		}
	}
	if got := devs[2].String(); got != "cpu device 2" {
		t.Errorf("String = %q, want %q", got, "cpu device 2")
	}
	if n, err := DeviceCount(CPU); err != nil || n != 4 {
		t.Errorf("DeviceCount(CPU) = %d, %v; want 4", n, err)
	}
	_, err = Open(WithBackend(CPU), WithDevice(4))
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "QD_CPU_DEVICES") {
		t.Errorf("opening cpu device 4 of 4: %v, want ErrNoDevice naming QD_CPU_DEVICES", err)
	}
}

func TestCopyPeerCPU(t *testing.T) {
	t.Setenv("QD_CPU_DEVICES", "2")
	devs, err := OpenAll(WithBackend(CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer CloseAll(devs)
	want := []float32{1, 2, 3, 4}
	src, err := FromSlice(devs[0], want)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := Alloc[float32](devs[1], len(want))
	if err != nil {
		t.Fatal(err)
	}
	s, err := devs[1].NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := CopyPeer(dst, src, s); err != nil {
		t.Fatal(err)
	}
	got, err := dst.Read()
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("after CopyPeer: %v, %v; want %v", got, err, want)
	}
	short, _ := Alloc[float32](devs[1], 3)
	if err := CopyPeer(short, src, nil); err == nil || !strings.Contains(err.Error(), "4 elements") {
		t.Errorf("CopyPeer of 4 into 3 elements: %v", err)
	}
	src.Free()
	if err := CopyPeer(dst, src, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("CopyPeer from a freed buffer: %v, want ErrClosed", err)
	}
}

// An event of one device waited for on a stream of another queues the wait
// on the other device, through its driver.
func TestEventWaitAcrossDevices(t *testing.T) {
	a, drvA := openFake(1)
	defer a.Close()
	b, drvB := openFake(1)
	defer b.Close()
	ev, err := a.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := a.NewStream()
	sb, _ := b.NewStream()
	if err := ev.Record(sa); err != nil {
		t.Fatal(err)
	}
	drvA.takeLog()
	drvB.takeLog()
	if err := ev.Wait(sb); err != nil {
		t.Fatal(err)
	}
	if log := drvB.takeLog(); len(log) != 1 || !strings.HasPrefix(log[0], "wait ") {
		t.Errorf("device b's driver log: %q, want one wait", log)
	}
	if log := drvA.takeLog(); len(log) != 0 {
		t.Errorf("device a's driver log: %q, want nothing", log)
	}
	cpu := openCPU()
	defer cpu.Close()
	cs, _ := cpu.NewStream()
	if err := ev.Wait(cs); !errors.Is(err, ErrWrongDevice) {
		t.Errorf("a CUDA event on a CPU stream: %v, want ErrWrongDevice", err)
	}
}

func TestCopyPeerGPU(t *testing.T) {
	n, err := DeviceCount(gpuBackend())
	if err != nil || n < 2 {
		t.Skipf("needs 2 %s devices: have %d (%v)", gpuBackend(), n, err)
	}
	all, err := OpenAll(WithBackend(gpuBackend()))
	if err != nil {
		t.Fatal(err)
	}
	defer CloseAll(all)
	// Devices 0 and 1; under a launcher, the rank's and the next.
	local, _ := strconv.Atoi(os.Getenv("LOCAL_RANK"))
	devs := []*Device{all[local%n], all[(local+1)%n]}
	want := make([]int32, 1<<20)
	for i := range want {
		want[i] = int32(i * 7)
	}
	src, err := FromSlice(devs[0], want)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := Alloc[int32](devs[1], len(want))
	if err != nil {
		t.Fatal(err)
	}
	direct, err := EnablePeerAccess(devs[0], devs[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("copies between %v and %v are direct: %v", devs[0], devs[1], direct)
	if err := CopyPeer(dst, src, nil); err != nil {
		t.Fatal(err)
	}
	got, err := dst.Read()
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("after CopyPeer the destination differs (%v)", err)
	}
	// Back, on a stream of the destination, into a cleared buffer.
	s, err := devs[0].NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Memset(0, s); err != nil {
		t.Fatal(err)
	}
	if err := CopyPeer(src, dst, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got, err = src.Read()
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("after CopyPeer back on a stream the destination differs (%v)", err)
	}
}
