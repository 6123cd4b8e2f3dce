package rt

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// fakeDriver is a driver without a GPU, for tests of the shared code above
// the driver interface (launches, graphs, recordings, memory, traces, the
// module cache) on machines without one. It runs no kernel and copies no
// memory; it hands out handles, keeps the graphs it is given, and logs
// every call that queues work, in a form tests compare with.
type fakeDriver struct {
	feat driverFeatures

	mu     sync.Mutex
	log    []string
	next   uintptr
	names  map[uintptr]string // functions, streams and events, by handle
	counts map[string]int     // of streams and memory, to name them
	graphs map[uintptr]*fakeGraph
	execs  map[uintptr]*fakeGraph // an executable graph is a copy of its graph
	clock  int                    // advances at each event record
	times  map[uintptr]int        // when each event was last recorded
	links  int                    // calls of linkPTX
	loads  []ImageKind            // the images loadModule got
	sizes  []uintptr              // the bytes of each allocation
	// badCubin makes loadModule reject every cubin, as a driver rejects
	// one built for another GPU.
	badCubin bool
	// quiet makes launches do nothing, for measuring what the shared code
	// allocates.
	quiet bool
}

type fakeGraph struct {
	nodes []graphNode
	ids   []uintptr
}

func newFakeDriver() *fakeDriver {
	return &fakeDriver{
		feat:   driverFeatures{graphs: true, memPools: true, linker: true},
		next:   0x1000,
		names:  map[uintptr]string{},
		counts: map[string]int{},
		graphs: map[uintptr]*fakeGraph{},
		execs:  map[uintptr]*fakeGraph{},
		times:  map[uintptr]int{},
	}
}

// openFake opens a device on a fake driver.
func openFake(pool int) (*Device, *fakeDriver) {
	drv := newFakeDriver()
	d := newGPUDevice(CUDA, 0, drv)
	if err := d.setup(pool); err != nil {
		panic(err)
	}
	return d, drv
}

func (f *fakeDriver) handle(name string) uintptr {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next += 0x10
	f.names[f.next] = name
	return f.next
}

// numbered is a handle named by its kind and number: s1, s2, ... for
// streams.
func (f *fakeDriver) numbered(kind string) uintptr {
	f.mu.Lock()
	f.counts[kind]++
	n := f.counts[kind]
	f.mu.Unlock()
	return f.handle(fmt.Sprintf("%s%d", kind, n))
}

func (f *fakeDriver) logf(format string, args ...any) {
	f.mu.Lock()
	f.log = append(f.log, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

// name is what a handle stands for in the log: "default" for stream 0.
func (f *fakeDriver) name(h uintptr) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h == 0 {
		return "default"
	}
	if n, ok := f.names[h]; ok {
		return n
	}
	return fmt.Sprintf("%#x", h)
}

// takeLog returns the calls logged since the last takeLog.
func (f *fakeDriver) takeLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.log
	f.log = nil
	return l
}

func (f *fakeDriver) deviceName() string { return "fake" }
func (f *fakeDriver) attributes() deviceAttributes {
	return deviceAttributes{arch: "sm_80", multiprocessors: 4, maxThreadsPerSM: 2048, maxThreadsPerBlock: 1024, warpSize: 32, streamQueues: 4}
}
func (f *fakeDriver) imageKinds() []ImageKind  { return cudaImageKindsFake }
func (f *fakeDriver) driverVersion() int       { return 12080 }
func (f *fakeDriver) features() driverFeatures { return f.feat }

var cudaImageKindsFake = []ImageKind{ImageCubin, ImagePTX}

func (f *fakeDriver) alloc(bytes uintptr) (uintptr, error) {
	f.mu.Lock()
	f.sizes = append(f.sizes, bytes)
	f.mu.Unlock()
	return f.numbered("m"), nil
}
func (f *fakeDriver) free(ptr uintptr) error {
	f.logf("free %s", f.name(ptr))
	return nil
}
func (f *fakeDriver) copyToDevice(dst uintptr, src unsafe.Pointer, bytes uintptr) error {
	f.logf("copy to device %d", bytes)
	return nil
}
func (f *fakeDriver) copyToHost(dst unsafe.Pointer, src uintptr, bytes uintptr) error {
	f.logf("copy to host %d", bytes)
	return nil
}

// A fake PTX module compiles to a "cubin" that names the PTX.
func (f *fakeDriver) linkPTX(ptx string) ([]byte, error) {
	f.mu.Lock()
	f.links++
	f.mu.Unlock()
	return []byte("cubin of " + ptx), nil
}

func (f *fakeDriver) loadModule(image Image) (uintptr, error) {
	f.mu.Lock()
	f.loads = append(f.loads, image.Kind)
	bad := f.badCubin
	f.mu.Unlock()
	if image.Kind == ImageCubin && (bad || !strings.HasPrefix(image.Data, "cubin of ")) {
		return 0, &DriverError{Call: "cuModuleLoadData", Code: 200, Name: "CUDA_ERROR_INVALID_IMAGE"}
	}
	return f.handle("module"), nil
}

func (f *fakeDriver) unloadModule(mod uintptr) error { return nil }
func (f *fakeDriver) function(mod uintptr, name string) (uintptr, error) {
	return f.handle(name), nil
}
func (f *fakeDriver) synchronize() error    { return nil }
func (f *fakeDriver) synchronizeAll() error { return nil }
func (f *fakeDriver) close() error          { return nil }

func (f *fakeDriver) newStream(priority int) (uintptr, error) { return f.numbered("s"), nil }
func (f *fakeDriver) destroyStream(s uintptr) error           { return nil }
func (f *fakeDriver) synchronizeStream(s uintptr) error       { return nil }
func (f *fakeDriver) queryStream(s uintptr) (bool, error)     { return true, nil }
func (f *fakeDriver) waitEvent(s, e uintptr) error {
	f.logf("wait %s", f.name(s))
	return nil
}
func (f *fakeDriver) newEvent(timing bool) (uintptr, error) { return f.handle("event"), nil }
func (f *fakeDriver) destroyEvent(e uintptr) error          { return nil }
func (f *fakeDriver) recordEvent(e, s uintptr) error {
	f.mu.Lock()
	f.clock++
	f.times[e] = f.clock
	f.mu.Unlock()
	return nil
}
func (f *fakeDriver) synchronizeEvent(e uintptr) error { return nil }
func (f *fakeDriver) queryEvent(e uintptr) (bool, error) {
	return true, nil
}

// elapsed is a microsecond per event recorded in between.
func (f *fakeDriver) elapsed(start, end uintptr) (float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return float32(f.times[end]-f.times[start]) / 1000, nil
}
func (f *fakeDriver) priorityRange() (least, greatest int, err error) { return 0, -5, nil }

func (f *fakeDriver) copyToDeviceAsync(dst uintptr, src unsafe.Pointer, bytes, s uintptr) error {
	f.logf("copy to device %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) copyToHostAsync(dst unsafe.Pointer, src, bytes, s uintptr) error {
	f.logf("copy to host %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) copyOnDeviceAsync(dst, src, bytes, s uintptr) error {
	f.logf("copy on device %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) memsetAsync(dst uintptr, value byte, bytes, s uintptr) error {
	f.logf("memset %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) allocHost(bytes uintptr) (unsafe.Pointer, error) {
	return unsafe.Pointer(unsafe.SliceData(make([]byte, bytes))), nil
}
func (f *fakeDriver) freeHost(p unsafe.Pointer) error { return nil }

// allocMapped gives Go memory at its own address: no fake kernel writes it.
func (f *fakeDriver) allocMapped(bytes uintptr) (unsafe.Pointer, uintptr, error) {
	p, _ := f.allocHost(bytes)
	return p, uintptr(p), nil
}

// launch logs the launch; like the real drivers' it keeps nothing of args.
func (f *fakeDriver) launch(fn uintptr, grid, block uint32, stream uintptr, args unsafe.Pointer, argSize uintptr) error {
	if f.quiet {
		return nil
	}
	f.logf("launch %s grid %d×%d on %s", f.name(fn), grid, block, f.name(stream))
	return nil
}

func (f *fakeDriver) fork(ev, from uintptr, streams []uintptr) error {
	f.logf("fork %s to %d streams", f.name(from), len(streams))
	return nil
}

func (f *fakeDriver) join(events, streams []uintptr, into uintptr) error {
	f.logf("join %d streams into %s", len(streams), f.name(into))
	return nil
}

func (f *fakeDriver) newGraph() (uintptr, error) {
	h := f.handle("graph")
	f.mu.Lock()
	f.graphs[h] = &fakeGraph{}
	f.mu.Unlock()
	return h, nil
}

func (f *fakeDriver) destroyGraph(g uintptr) error {
	f.mu.Lock()
	delete(f.graphs, g)
	f.mu.Unlock()
	return nil
}

func (f *fakeDriver) addGraphNode(g uintptr, deps []uintptr, n *graphNode) (uintptr, error) {
	id := f.handle("node")
	f.mu.Lock()
	defer f.mu.Unlock()
	fg := f.graphs[g]
	node := *n
	node.args = bytes.Clone(n.args)
	node.deps = nil
	for _, d := range deps {
		node.deps = append(node.deps, int32(slices.Index(fg.ids, d)))
	}
	fg.nodes = append(fg.nodes, node)
	fg.ids = append(fg.ids, id)
	return id, nil
}

func (f *fakeDriver) instantiateGraph(g uintptr) (uintptr, error) {
	h := f.handle("exec")
	f.mu.Lock()
	fg := f.graphs[g]
	f.execs[h] = &fakeGraph{nodes: slices.Clone(fg.nodes), ids: fg.ids}
	f.mu.Unlock()
	f.logf("instantiate %d nodes", len(fg.nodes))
	return h, nil
}

func (f *fakeDriver) destroyGraphExec(exec uintptr) error {
	f.mu.Lock()
	delete(f.execs, exec)
	f.mu.Unlock()
	return nil
}

func (f *fakeDriver) setGraphNode(exec, node uintptr, n *graphNode) error {
	f.mu.Lock()
	fe := f.execs[exec]
	i := slices.Index(fe.ids, node)
	deps := fe.nodes[i].deps
	fe.nodes[i] = *n
	fe.nodes[i].deps = deps
	fe.nodes[i].args = bytes.Clone(n.args)
	f.mu.Unlock()
	f.logf("set node %d (%s)", i, n.name)
	return nil
}

func (f *fakeDriver) launchGraph(exec, stream uintptr, updates []nodeUpdate, args []byte) error {
	if f.quiet {
		return nil
	}
	f.mu.Lock()
	fe := f.execs[exec]
	for _, u := range updates {
		i := slices.Index(fe.ids, u.node)
		n := &fe.nodes[i]
		n.fn, n.grid, n.block, n.args = u.fn, u.grid, u.block, bytes.Clone(args)
	}
	f.mu.Unlock()
	f.logf("launch graph %s with %d updates on %s", f.name(exec), len(updates), f.name(stream))
	return nil
}

func (f *fakeDriver) allocAsync(bytes, s uintptr, wait bool) (uintptr, error) {
	f.mu.Lock()
	f.sizes = append(f.sizes, bytes)
	f.mu.Unlock()
	p := f.numbered("m")
	f.logf("alloc %s on %s wait %v", f.name(p), f.name(s), wait)
	return p, nil
}

func (f *fakeDriver) freeAsync(ptr, s uintptr, streams, events []uintptr) error {
	var after []string
	for _, w := range streams {
		after = append(after, f.name(w))
	}
	f.logf("free %s on %s after [%s]", f.name(ptr), f.name(s), strings.Join(after, " "))
	return nil
}
