package generated_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// Kernels that load a slice they never write have a variant whose loads
// of it are non-coherent (ld.global.nc), which a launch runs only when no
// buffer the kernel writes overlaps that slice. These tests launch Carry
// and Blend with out and in apart, the same buffer, and overlapping by
// one element, and compare with Go on the same memory; on CUDA they also
// check from a trace which entry ran.

func TestNonCoherentCPU(t *testing.T) { testNonCoherent(t, openCPU(t)) }
func TestNonCoherentGPU(t *testing.T) { testNonCoherent(t, openGPU(t)) }

// overlaps are the ways out and in lie in one buffer of 2n+1 elements:
// the offsets of out and in, and whether they are apart.
var overlaps = []struct {
	name       string
	out, in    int
	apart      bool
	variantsOn bool
}{
	{"apart", 0, n + 1, true, true},
	{"same", 0, 0, false, true},
	{"shifted", 1, 0, false, true},
	{"apart-switched-off", 0, n + 1, true, false},
}

func testNonCoherent(t *testing.T, dev *rt.Device) {
	defer dev.Close()
	ks, err := kernels.Load(dev)
	must(t, err)
	for _, o := range overlaps {
		t.Run(o.name, func(t *testing.T) {
			rt.SetNonCoherentLoads(o.variantsOn)
			defer rt.SetNonCoherentLoads(true)
			host := make([]int32, 2*n+1)
			for i := range host {
				host[i] = int32(i*7919%1000 - 500)
			}
			want := slices.Clone(host)
			kernels.Carry(want[o.out:o.out+n], want[o.in:o.in+n])
			buf, err := rt.FromSlice(dev, host)
			must(t, err)
			defer buf.Free()
			entries := traced(t, dev, func() error { return ks.Carry(buf.Slice(o.out, o.out+n), buf.Slice(o.in, o.in+n)) })
			got, err := buf.Read()
			must(t, err)
			if !slices.Equal(got, want) {
				t.Errorf("Carry: got %v..., want Go's %v...", got[:8], want[:8])
			}
			checkEntry(t, dev, "Carry_0", entries, o.apart && o.variantsOn)

			fhost := make([]float32, 2*n+1)
			for i := range fhost {
				fhost[i] = float32(i%97) / 8
			}
			fwant := slices.Clone(fhost)
			kernels.Blend(fwant[o.out:o.out+n], fwant[o.in:o.in+n], 0.75)
			fbuf, err := rt.FromSlice(dev, fhost)
			must(t, err)
			defer fbuf.Free()
			if o.name != "shifted" { // iterations would conflict through memory
				entries = traced(t, dev, func() error { return ks.Blend(fbuf.Slice(o.out, o.out+n), fbuf.Slice(o.in, o.in+n), 0.75) })
				fgot, err := fbuf.Read()
				must(t, err)
				if !slices.Equal(fgot, fwant) {
					t.Errorf("Blend: got %v..., want Go's %v...", fgot[:8], fwant[:8])
				}
				checkEntry(t, dev, "Blend_0", entries, o.apart && o.variantsOn)
			}
		})
	}
}

// traced runs launch under a trace and returns the entry points of the
// kernels it ran.
func traced(t *testing.T, dev *rt.Device, launch func() error) []string {
	must(t, dev.StartTrace())
	must(t, launch())
	must(t, dev.Synchronize())
	tr, err := dev.StopTrace()
	must(t, err)
	var entries []string
	for _, e := range tr.Events {
		if e.Kind == "kernel" {
			entries = append(entries, e.Task)
		}
	}
	return entries
}

// checkEntry checks that on CUDA the launch ran task's variant where
// variant says so, and its plain entry otherwise.
func checkEntry(t *testing.T, dev *rt.Device, task string, entries []string, variant bool) {
	t.Helper()
	if dev.Backend() != rt.CUDA {
		return // the CPU runs Go; HIP images have no variants
	}
	want := task
	if variant {
		want += "$nc"
	}
	if !slices.Contains(entries, want) {
		t.Errorf("ran %s, want %s", strings.Join(entries, ", "), want)
	}
}
