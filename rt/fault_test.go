package rt

import (
	"errors"
	"strings"
	"testing"
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
	var fs faults
	r, err := fs.add(newFakeDriver(), &Module{spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.take(); err != nil {
		t.Fatalf("no fault yet: %v", err)
	}
	write := func(where, site uint32, x, y int64) {
		*r.word(recordWhere), *r.word(recordSite) = where, site
		*r.long(recordX), *r.long(recordY) = x, y
		*r.word(recordDone) = *r.word(recordAck) + 1
	}
	write(1<<16|1, 1, 256, 256)
	err = fs.take()
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

// TestFaultRecordPages checks that modules' records are distinct slices of
// page-locked pages, cleared when given out, that a full page makes the
// device reserve another, and that the device allocates its first page
// when it opens, so that loading a module allocates none.
func TestFaultRecordPages(t *testing.T) {
	drv := newFakeDriver()
	var fs faults
	perPage := faultPageBytes / recordBytes
	seen := map[uintptr]bool{}
	var records []*faultRecord
	for i := range perPage + 1 {
		r, err := fs.add(drv, &Module{})
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.dev] {
			t.Fatalf("record %d shares address %#x", i, r.dev)
		}
		seen[r.dev] = true
		records = append(records, r)
	}
	if len(fs.pages) != 2 {
		t.Errorf("%d records on %d pages", perPage+1, len(fs.pages))
	}
	*records[3].word(recordDone) = 5
	fs.remove(records[3])
	r, _ := fs.add(drv, &Module{})
	if r.dev != records[3].dev || *r.word(recordDone) != 0 {
		t.Errorf("a freed record is reused at %#x (freed %#x), done %d", r.dev, records[3].dev, *r.word(recordDone))
	}
	if err := fs.release(drv); err != nil || fs.records.Load() != nil || len(fs.pages) != 0 {
		t.Errorf("release: %v, %d pages left", err, len(fs.pages))
	}

	t.Setenv("QD_CACHE", "off")
	d, drv := openFake(0)
	defer d.Close()
	calls := drv.calls.Load()
	if _, err := d.Load(emptySpec); err != nil {
		t.Fatal(err)
	}
	if len(d.faults.pages) != 1 {
		t.Errorf("the device holds %d pages of records after a load", len(d.faults.pages))
	}
	// Loading the module is one call, for its image: the kernels'
	// functions are looked up at their first launch.
	if n := drv.calls.Load() - calls; n != 1 {
		t.Errorf("loading a module made %d driver calls", n)
	}
}

// TestEmptyCopyObservesFault checks that reading back a buffer of no
// elements still waits for the kernels before it and reports their fault,
// as a read of any other buffer does.
func TestEmptyCopyObservesFault(t *testing.T) {
	spec := &ModuleSpec{Package: "k", Images: []Image{{Kind: ImagePTX, Data: "k ptx"}}, Kernels: []KernelSpec{{Name: "K", Tasks: []TaskSpec{{Entry: "K_0"}},
		Faults: []FaultSite{{Kind: FaultIndex, Pos: "k.go:3:4"}}}}}
	d, _, m := fakeModule(t, 0, spec)
	empty, err := Alloc[float32](d, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := m.faults
	*r.word(recordWhere), *r.word(recordSite) = 0, 0
	*r.long(recordX), *r.long(recordY) = 0, 0
	*r.word(recordDone) = *r.word(recordAck) + 1
	var f *Fault
	if _, err := empty.Read(); !errors.As(err, &f) || f.Kernel != "K" {
		t.Fatalf("read of an empty buffer after a fault: %v", err)
	}
}
