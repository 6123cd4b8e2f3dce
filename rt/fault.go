package rt

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/qdgo/qd/internal/fault"
	"github.com/qdgo/qd/ir"
)

// FaultKind is the kind of a kernel's fault, as Go's runtime names them.
type FaultKind = fault.Kind

// The kinds of faults.
const (
	FaultIndex      = fault.Index      // index out of range [x] with length y
	FaultSliceAlen  = fault.SliceAlen  // slice bounds out of range [:x] with length y
	FaultSliceAcap  = fault.SliceAcap  // slice bounds out of range [:x] with capacity y
	FaultSliceB     = fault.SliceB     // slice bounds out of range [x:y]
	FaultSlice3Alen = fault.Slice3Alen // slice bounds out of range [::x] with length y
	FaultSlice3Acap = fault.Slice3Acap // slice bounds out of range [::x] with capacity y
	FaultSlice3B    = fault.Slice3B    // slice bounds out of range [:x:y]
	FaultSlice3C    = fault.Slice3C    // slice bounds out of range [x:y:]
	FaultDivide     = fault.Divide     // integer divide by zero
	FaultOverflow   = fault.Overflow   // integer overflow (math/bits.Div64)
)

// Fault is a run-time error of a kernel: an index or slice bound out of
// range, an integer division by zero, or a quotient of math/bits.Div64 that
// overflows, where the Go function would have panicked. On a GPU the thread that failed the check stops, the first
// fault is recorded on the device, and the next operation that observes
// the device's work (a launch, a synchronization, a copy back) returns it,
// wrapped in an *OpError that names the kernel:
//
//	qd: kernel Histogram: runtime error: index out of range [256] with length 256 (kernels.go:14:9)
//
// The device stays usable. The kernel's other threads, and its later
// statements, may have run: what it wrote is unspecified. On the CPU
// backend, where the Go function panics, the panic is returned as the same
// error. A Fault is a runtime.Error, as Go's own is.
type Fault struct {
	Kernel string
	// Task is the entry point whose thread failed; empty on the CPU.
	Task string
	Kind FaultKind
	// X and Y are the values of the failed check, as Go's runtime prints
	// them: the index and the length, or the two bounds of a slice
	// expression that are out of order.
	X, Y int64
	// Unsigned marks an index of an unsigned type, printed as unsigned.
	Unsigned bool
	// Pos is the check's position, "file.go:line:column"; on the CPU the
	// column is missing when the kernel has several checks of the kind on
	// the line.
	Pos string
}

func (f *Fault) Error() string {
	signed := !f.Unsigned && f.Kind.Bounds()
	return fmt.Sprintf("runtime error: %s (%s)", fault.Message(f.Kind, uint64(f.X), signed, f.Y), f.Pos)
}

// RuntimeError marks a Fault as a runtime.Error.
func (f *Fault) RuntimeError() {}

var _ runtime.Error = (*Fault)(nil)

// The record of a module's faults, in page-locked host memory that the
// device writes over the bus (emit/ptx/fault.go writes the device's side):
// the host sees a fault without copying anything. Words of 32 bits: the
// count of faults the host has taken, the count the device has written,
// the kernel and task (kernel<<16 | task), the site; then x and y, 64 bits
// each.
const (
	recordAck   = 0
	recordDone  = 1
	recordWhere = 2
	recordSite  = 3
	recordX     = 2 // in 64-bit words
	recordY     = 3
	recordBytes = 32
)

// faultRecord is a module's record.
type faultRecord struct {
	m    *Module
	host unsafe.Pointer
	dev  uintptr
}

func (r *faultRecord) word(i int) *uint32 { return (*uint32)(unsafe.Add(r.host, 4*i)) }
func (r *faultRecord) long(i int) *int64  { return (*int64)(unsafe.Add(r.host, 8*i)) }

// pending reports whether the device has written a fault the host has not
// taken.
func (r *faultRecord) pending() bool {
	return atomic.LoadUint32(r.word(recordDone)) != atomic.LoadUint32(r.word(recordAck))
}

// faults is a device's list of fault records, which launches scan without
// a lock. The records are carved from pages of page-locked memory that the
// device allocates when it opens, so that loading a module allocates no
// driver memory.
type faults struct {
	mu      sync.Mutex // serializes taking faults and adding records
	records atomic.Pointer[[]*faultRecord]
	pages   []unsafe.Pointer // the page-locked memory of the records
	spare   []faultRecord    // records not in use
}

// faultPageBytes is the page-locked memory allocated at a time for records.
const faultPageBytes = 4096

// reserve allocates a page of records, the device's first when it opens.
// The caller holds fs.mu, or is the device's setup.
func (fs *faults) reserve(drv driver) error {
	host, dev, err := drv.allocMapped(faultPageBytes)
	if err != nil {
		return err
	}
	fs.pages = append(fs.pages, host)
	for off := 0; off+recordBytes <= faultPageBytes; off += recordBytes {
		fs.spare = append(fs.spare, faultRecord{host: unsafe.Add(host, off), dev: dev + uintptr(off)})
	}
	return nil
}

// add gives module m a cleared record and lists it.
func (fs *faults) add(drv driver, m *Module) (*faultRecord, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.spare) == 0 {
		if err := fs.reserve(drv); err != nil {
			return nil, err
		}
	}
	r := &faultRecord{}
	*r, fs.spare = fs.spare[len(fs.spare)-1], fs.spare[:len(fs.spare)-1]
	r.m = m
	clear(unsafe.Slice((*byte)(r.host), recordBytes))
	var list []*faultRecord
	if old := fs.records.Load(); old != nil {
		list = append(list, *old...)
	}
	list = append(list, r)
	fs.records.Store(&list)
	return r, nil
}

// remove unlists a record; no kernel of its module runs any more.
func (fs *faults) remove(r *faultRecord) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if old := fs.records.Load(); old != nil {
		var list []*faultRecord
		for _, o := range *old {
			if o != r {
				list = append(list, o)
			}
		}
		fs.records.Store(&list)
	}
	fs.spare = append(fs.spare, faultRecord{host: r.host, dev: r.dev})
}

// release frees the records' memory; the device is idle.
func (fs *faults) release(drv driver) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var err error
	for _, p := range fs.pages {
		if e := drv.freeHost(p); err == nil {
			err = e
		}
	}
	fs.pages, fs.spare = nil, nil
	fs.records.Store(nil)
	return err
}

// take returns the fault a kernel of the device has recorded and the host
// has not yet reported, as the error an observing operation returns, and
// acknowledges it, so that the record takes the next one.
func (fs *faults) take() error {
	list := fs.records.Load()
	if list == nil {
		return nil
	}
	for _, r := range *list {
		if !r.pending() {
			continue
		}
		fs.mu.Lock()
		err := r.take()
		fs.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *faultRecord) take() error {
	done := atomic.LoadUint32(r.word(recordDone))
	if done == atomic.LoadUint32(r.word(recordAck)) {
		return nil // taken by another goroutine
	}
	where, site := atomic.LoadUint32(r.word(recordWhere)), atomic.LoadUint32(r.word(recordSite))
	x, y := atomic.LoadInt64(r.long(recordX)), atomic.LoadInt64(r.long(recordY))
	atomic.StoreUint32(r.word(recordAck), done)
	kernel, task := int(where>>16), int(where&0xffff)
	f := &Fault{X: x, Y: y}
	spec := r.m.spec
	if kernel >= len(spec.Kernels) || task >= len(spec.Kernels[kernel].Tasks) || int(site) >= len(spec.Kernels[kernel].Faults) {
		return opError("kernel fault", fmt.Errorf("a fault record of module %s names no site: kernel %d, task %d, site %d", spec.Package, kernel, task, site))
	}
	k := &spec.Kernels[kernel]
	s := k.Faults[site]
	f.Kernel, f.Task, f.Kind, f.Unsigned, f.Pos = k.Name, k.Tasks[task].Entry, s.Kind, s.Unsigned, s.Pos
	return opError("kernel "+k.Name, f)
}

// observe returns a fault the device's kernels have recorded, for the
// operations that observe their work; err, the operation's own error,
// comes first.
func (d *Device) observe(err error) error {
	if err != nil {
		return err
	}
	return d.faults.take()
}

// cpuFault turns the panic of a kernel's Go function into the error a GPU
// would report: a Fault for Go's run-time errors of indexing, slicing and
// division, with the position of the check, or a KernelPanic.
func cpuFault(k *kernelSpec, v any) error {
	re, ok := v.(runtime.Error)
	if !ok {
		return opError("run "+k.Name+" on the CPU", &KernelPanic{Value: v})
	}
	kind, x, signed, y, ok := fault.Parse(re.Error())
	if !ok {
		return opError("run "+k.Name+" on the CPU", &KernelPanic{Value: re.Error()})
	}
	f := &Fault{Kernel: k.Name, Kind: kind, X: int64(x), Y: y, Unsigned: !signed && kind.Bounds()}
	f.Pos = panicPos(k, kind)
	return opError("kernel "+k.Name, f)
}

// interpreted turns the error of a kernel run on the IR interpreter (the
// CPU's race mode) into the error a GPU would report: a Fault for a check
// that failed.
func interpreted(k *kernelSpec, err error) error {
	var f *ir.Fault
	if errors.As(err, &f) {
		return opError("kernel "+k.Name, &Fault{Kernel: k.Name, Task: f.Task, Kind: f.Site.Kind,
			X: int64(f.X), Y: int64(f.Y), Unsigned: f.Site.Unsigned, Pos: f.Site.Pos()})
	}
	return opError("run "+k.Name+" on the CPU", err)
}

// panicPos finds where the kernel's Go function panicked, from the frames
// of the goroutine's stack below the runtime's panic: "file.go:line", with
// the column when one site of the kernel of that kind is on that line.
func panicPos(k *kernelSpec, kind FaultKind) string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(fr.Function, "runtime."):
			pos := fmt.Sprintf("%s:%d", filepath.Base(fr.File), fr.Line)
			col := ""
			for _, s := range k.Faults {
				if s.Kind == kind && strings.HasPrefix(s.Pos, pos+":") {
					if col != "" {
						return pos // two sites: the column is unknown
					}
					col = s.Pos
				}
			}
			if col != "" {
				return col
			}
			return pos
		}
		if !more {
			return "unknown position"
		}
	}
}
