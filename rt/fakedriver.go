package rt

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	loads  []imageKind            // the images loadModule got
	sizes  []uintptr              // the bytes of each allocation
	// badCubin makes loadModule reject every cubin, as a driver rejects
	// one built for another GPU.
	badCubin bool
	// failLaunch makes launches of the entry of that name fail, and
	// noEntry the lookup of the entry of that name.
	failLaunch, noEntry string
	// active is how many blocks of each entry a multiprocessor holds at
	// once (activeBlocks), by the entry's name.
	active map[string]int
	// peer answers for copies between fake devices (fakedriver_peer.go).
	peer fakePeer
	// capture answers for stream capture (fakedriver_capture.go).
	capture fakeCapture
	// quiet makes the calls that queue work, and those that create and
	// destroy streams, events and memory, do nothing but count, for
	// measuring what the shared code costs and allocates.
	quiet bool
	// calls counts the calls made, each of which is one call into C on a
	// real driver.
	calls atomic.Int64
	cheap atomic.Uintptr // handles made while quiet
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
	if f.quiet {
		return f.cheap.Add(0x10) | 1<<40
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next += 0x10
	f.names[f.next] = name
	return f.next
}

// numbered is a handle named by its kind and number: s1, s2, ... for
// streams.
func (f *fakeDriver) numbered(kind string) uintptr {
	if f.quiet {
		return f.handle(kind)
	}
	f.mu.Lock()
	f.counts[kind]++
	n := f.counts[kind]
	f.mu.Unlock()
	return f.handle(fmt.Sprintf("%s%d", kind, n))
}

func (f *fakeDriver) logf(format string, args ...any) {
	if f.quiet {
		return
	}
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
	return deviceAttributes{arch: "sm_80", multiprocessors: 4, maxThreadsPerSM: 2048, maxThreadsPerBlock: 1024, warpSize: 32, streamQueues: 4, maxSharedPerBlock: 48 << 10}
}
func (f *fakeDriver) imageKinds() []imageKind  { return cudaImageKindsFake }
func (f *fakeDriver) driverVersion() int       { return 12080 }
func (f *fakeDriver) features() driverFeatures { return f.feat }

var cudaImageKindsFake = []imageKind{imageCubin, imagePTX}

func (f *fakeDriver) alloc(bytes uintptr) (uintptr, error) {
	f.calls.Add(1)
	if !f.quiet {
		f.mu.Lock()
		f.sizes = append(f.sizes, bytes)
		f.mu.Unlock()
	}
	return f.numbered("m"), nil
}
func (f *fakeDriver) free(ptr uintptr) error {
	f.calls.Add(1)
	if f.quiet {
		return nil
	}
	f.logf("free %s", f.name(ptr))
	return nil
}
func (f *fakeDriver) copyToDevice(dst uintptr, src unsafe.Pointer, bytes uintptr) error {
	f.calls.Add(1)
	f.logf("copy to device %d", bytes)
	return nil
}
func (f *fakeDriver) copyToHost(dst unsafe.Pointer, src uintptr, bytes uintptr) error {
	f.calls.Add(1)
	f.logf("copy to host %d", bytes)
	return nil
}

// A fake PTX module compiles to a "cubin" that names the PTX.
func (f *fakeDriver) linkPTX(ptx string) ([]byte, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.links++
	f.mu.Unlock()
	return []byte("cubin of " + ptx), nil
}

func (f *fakeDriver) loadModule(image codeImage) (uintptr, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.loads = append(f.loads, image.Kind)
	bad := f.badCubin
	f.mu.Unlock()
	if image.Kind == imageCubin && (bad || !strings.HasPrefix(image.Data, "cubin of ")) {
		return 0, &DriverError{Call: "cuModuleLoadData", Code: 200, Name: "CUDA_ERROR_INVALID_IMAGE"}
	}
	return f.handle("module"), nil
}

func (f *fakeDriver) unloadModule(mod uintptr) error {
	f.calls.Add(1)
	return nil
}

// activeBlocks is what f.active says for the function's entry, 0 (the
// driver cannot say) by default.
func (f *fakeDriver) activeBlocks(fn uintptr, block int) int {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.active[f.names[fn]]
}

func (f *fakeDriver) function(mod uintptr, name string) (uintptr, error) {
	f.calls.Add(1)
	if name == f.noEntry {
		return 0, &DriverError{Call: "cuModuleGetFunction", Code: 500, Name: "CUDA_ERROR_NOT_FOUND", Log: "entry " + name}
	}
	return f.handle(name), nil
}
func (f *fakeDriver) synchronize() error {
	f.calls.Add(1)
	return nil
}
func (f *fakeDriver) synchronizeAll() error {
	f.calls.Add(1)
	return nil
}
func (f *fakeDriver) close() error {
	f.calls.Add(1)
	return nil
}

func (f *fakeDriver) newStream(priority int) (uintptr, error) {
	f.calls.Add(1)
	return f.numbered("s"), nil
}
func (f *fakeDriver) destroyStream(s uintptr) error {
	f.calls.Add(1)
	return nil
}
func (f *fakeDriver) synchronizeStream(s uintptr) error {
	f.calls.Add(1)
	return nil
}
func (f *fakeDriver) queryStream(s uintptr) (bool, error) {
	f.calls.Add(1)
	return true, nil
}
func (f *fakeDriver) waitEvent(s, e uintptr) error {
	f.calls.Add(1)
	if f.quiet {
		return nil
	}
	f.logf("wait %s", f.name(s))
	return nil
}
func (f *fakeDriver) newEvent(timing bool) (uintptr, error) {
	f.calls.Add(1)
	return f.handle("event"), nil
}
func (f *fakeDriver) destroyEvent(e uintptr) error {
	f.calls.Add(1)
	return nil
}
func (f *fakeDriver) recordEvent(e, s uintptr) error {
	f.calls.Add(1)
	if !f.quiet {
		f.stamp(e)
	}
	return nil
}

// stamp records event e now.
func (f *fakeDriver) stamp(e uintptr) {
	f.mu.Lock()
	f.clock++
	f.times[e] = f.clock
	f.mu.Unlock()
}
func (f *fakeDriver) synchronizeEvent(e uintptr) error {
	f.calls.Add(1)
	return nil
}
func (f *fakeDriver) queryEvent(e uintptr) (bool, error) {
	f.calls.Add(1)
	return true, nil
}

// elapsed is a microsecond per event recorded in between.
func (f *fakeDriver) elapsed(start, end uintptr) (float32, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return float32(f.times[end]-f.times[start]) / 1000, nil
}
func (f *fakeDriver) priorityRange() (least, greatest int, err error) {
	f.calls.Add(1)
	return 0, -5, nil
}

func (f *fakeDriver) copyToDeviceAsync(dst uintptr, src unsafe.Pointer, bytes, s uintptr) error {
	f.calls.Add(1)
	f.logf("copy to device %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) copyToHostAsync(dst unsafe.Pointer, src, bytes, s uintptr) error {
	f.calls.Add(1)
	f.logf("copy to host %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) copyOnDeviceAsync(dst, src, bytes, s uintptr) error {
	f.calls.Add(1)
	f.logf("copy on device %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) memsetAsync(dst uintptr, value byte, bytes, s uintptr) error {
	f.calls.Add(1)
	f.logf("memset %d on %s", bytes, f.name(s))
	return nil
}
func (f *fakeDriver) allocHost(bytes uintptr) (unsafe.Pointer, error) {
	f.calls.Add(1)
	return unsafe.Pointer(unsafe.SliceData(make([]byte, bytes))), nil
}
func (f *fakeDriver) freeHost(p unsafe.Pointer) error {
	f.calls.Add(1)
	return nil
}

// allocMapped gives Go memory at its own address: no fake kernel writes it.
func (f *fakeDriver) allocMapped(bytes uintptr) (unsafe.Pointer, uintptr, error) {
	f.calls.Add(1)
	p, _ := f.allocHost(bytes)
	return p, uintptr(p), nil
}

// launchSeq logs the wait, each launch and the record; like the real
// drivers' it keeps nothing of args.
func (f *fakeDriver) launchSeq(seq *launchSeq, args unsafe.Pointer, argSize uintptr) (int, error) {
	f.calls.Add(1)
	if f.quiet {
		return 0, nil
	}
	if seq.wait != 0 {
		f.logf("wait %s", f.name(seq.stream))
	}
	for i, t := range seq.tasks[:seq.n] {
		if f.name(t.fn) == f.failLaunch {
			return i, &DriverError{Call: "cuLaunchKernel", Code: 1, Name: "CUDA_ERROR_INVALID_VALUE"}
		}
		f.logf("launch %s grid %d×%d on %s", f.name(t.fn), t.grid, t.block, f.name(seq.stream))
	}
	if seq.record != 0 {
		f.stamp(seq.record)
	}
	return 0, nil
}

func (f *fakeDriver) fork(ev, from uintptr, streams []uintptr) error {
	f.calls.Add(1)
	if f.quiet {
		return nil
	}
	f.logf("fork %s to %d streams", f.name(from), len(streams))
	return nil
}

func (f *fakeDriver) join(events, streams []uintptr, into uintptr) error {
	f.calls.Add(1)
	if f.quiet {
		return nil
	}
	f.logf("join %d streams into %s", len(streams), f.name(into))
	return nil
}

func (f *fakeDriver) newGraph() (uintptr, error) {
	f.calls.Add(1)
	h := f.handle("graph")
	f.mu.Lock()
	f.graphs[h] = &fakeGraph{}
	f.mu.Unlock()
	return h, nil
}

func (f *fakeDriver) destroyGraph(g uintptr) error {
	f.calls.Add(1)
	f.mu.Lock()
	delete(f.graphs, g)
	f.mu.Unlock()
	return nil
}

func (f *fakeDriver) addGraphNode(g uintptr, deps []uintptr, n *graphNode) (uintptr, error) {
	f.calls.Add(1)
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
	f.calls.Add(1)
	h := f.handle("exec")
	f.mu.Lock()
	fg := f.graphs[g]
	f.execs[h] = &fakeGraph{nodes: slices.Clone(fg.nodes), ids: fg.ids}
	f.mu.Unlock()
	f.logf("instantiate %d nodes", len(fg.nodes))
	return h, nil
}

func (f *fakeDriver) destroyGraphExec(exec uintptr) error {
	f.calls.Add(1)
	f.mu.Lock()
	delete(f.execs, exec)
	f.mu.Unlock()
	return nil
}

func (f *fakeDriver) setGraphNode(exec, node uintptr, n *graphNode) error {
	f.calls.Add(1)
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
	f.calls.Add(1)
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
	f.calls.Add(1)
	if f.quiet {
		return f.handle("m"), nil
	}
	f.mu.Lock()
	f.sizes = append(f.sizes, bytes)
	f.mu.Unlock()
	p := f.numbered("m")
	f.logf("alloc %s on %s wait %v", f.name(p), f.name(s), wait)
	return p, nil
}

func (f *fakeDriver) freeAsync(ptr, s uintptr, streams, events []uintptr) error {
	f.calls.Add(1)
	if f.quiet {
		return nil
	}
	var after []string
	for _, w := range streams {
		after = append(after, f.name(w))
	}
	f.logf("free %s on %s after [%s]", f.name(ptr), f.name(s), strings.Join(after, " "))
	return nil
}
