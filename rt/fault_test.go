package rt

import (
	"errors"
	"strings"
	"testing"
	"unsafe"
)

// TestFaultRecord writes faults into a record as a kernel does (emit/ptx
// writes the device's side) and checks what the host reports: each fault
// once, as Go's panic reads, and the next one after it.
func TestFaultRecord(t *testing.T) {
	spec := &ModuleSpec{Package: "k", Kernels: []KernelSpec{
		{Name: "Other"},
		{Name: "Histogram", Tasks: []TaskSpec{{Entry: "Histogram_0"}, {Entry: "Histogram_1"}},
			Faults: []FaultSite{{Kind: FaultDivide, Pos: "kernels.go:3:4"}, {Kind: FaultIndex, Pos: "kernels.go:14:9"}}},
	}}
	mem := new([recordBytes / 8]uint64)
	var fs faults
	r := &faultRecord{m: &Module{spec: spec}, host: unsafe.Pointer(mem)}
	fs.add(r)
	if err := fs.take(); err != nil {
		t.Fatalf("no fault yet: %v", err)
	}
	write := func(where, site uint32, x, y int64) {
		*r.word(recordWhere), *r.word(recordSite) = where, site
		*r.long(recordX), *r.long(recordY) = x, y
		*r.word(recordDone) = *r.word(recordAck) + 1
	}
	write(1<<16|1, 1, 256, 256)
	err := fs.take()
	var f *Fault
	if !errors.As(err, &f) || f.Task != "Histogram_1" ||
		err.Error() != "qd: kernel Histogram: runtime error: index out of range [256] with length 256 (kernels.go:14:9)" {
		t.Fatalf("fault: %v (%#v)", err, f)
	}
	if err := fs.take(); err != nil {
		t.Fatalf("a fault reported twice: %v", err)
	}
	write(1<<16, 0, 0, 0)
	if err := fs.take(); err == nil || err.Error() != "qd: kernel Histogram: runtime error: integer divide by zero (kernels.go:3:4)" {
		t.Fatalf("second fault: %v", err)
	}
	write(7<<16, 0, 0, 0)
	if err := fs.take(); err == nil || !strings.Contains(err.Error(), "names no site") {
		t.Fatalf("a record naming no kernel: %v", err)
	}
	fs.remove(r)
	write(1<<16, 0, 0, 0)
	if err := fs.take(); err != nil {
		t.Fatalf("a removed record is still read: %v", err)
	}
}
