package rt

import (
	"errors"
	"fmt"
	"slices"

	"github.com/qdgo/qd/internal/blocks"
	"github.com/qdgo/qd/internal/iterations"
	"github.com/qdgo/qd/ir"
)

// Launch runs kernel number kernel of the module: each task in order on the
// stream the options name (the default stream without one), with the
// packed arguments args. counts holds each parallel task's iteration count,
// or UnknownCount; tasks with no iterations are not launched. A kernel with
// qd.StreamParallel groups is replayed as a cached graph (kgraph.go) unless
// the Eager option asks otherwise. On a stream of a recording the tasks
// become nodes of the recording instead. Generated stubs call it.
//
// A fault a kernel of the device has recorded since the last operation
// that observed one is returned first, and nothing is launched.
func (m *Module) Launch(kernel int, counts []int64, args []byte, opts []LaunchOption) error {
	k := &m.spec.Kernels[kernel]
	cfg, err := launchConfig(m.dev, opts)
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	if m.dev.drv == nil {
		return opError("launch "+k.Name, fmt.Errorf("the CPU backend runs kernels as Go functions"))
	}
	if err := m.dev.enter(); err != nil {
		return opError("launch "+k.Name, err)
	}
	defer m.dev.leave()
	stream, err := cfg.stream.use(m.dev)
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	end := len(args)
	if len(k.Faults) > 0 {
		end -= 8
		PutUint64(args, end, uint64(m.faults.dev))
	}
	if k.ScratchPerBlock > 0 {
		s := &m.scratch[kernel]
		s.mu.Lock()
		defer s.mu.Unlock() // launches of the kernel are queued one at a time
		if err := s.prepare(m.dev, m.scratchBytes(k, counts, cfg), stream, cfg.stream.recording()); err != nil {
			return opError("launch "+k.Name+": scratch memory", err)
		}
		PutUint64(args, end-8, uint64(s.ptr))
		if !cfg.stream.recording() {
			if err := m.queue(kernel, stream, counts, args, cfg); err != nil {
				return err
			}
			return opError("launch "+k.Name+": scratch memory", s.finish(m.dev, stream))
		}
	}
	if cfg.stream.recording() {
		return opError("launch "+k.Name, cfg.stream.rec.addKernel(m, kernel, counts, args, cfg))
	}
	return m.queue(kernel, stream, counts, args, cfg)
}

// queue queues the tasks of a kernel on stream, after returning any fault
// recorded since the last operation that observed one.
func (m *Module) queue(kernel int, stream uintptr, counts []int64, args []byte, cfg launchSettings) error {
	k := &m.spec.Kernels[kernel]
	if err := m.dev.faults.take(); err != nil {
		return err
	}
	tr := m.dev.tracer.Load()
	if tr == nil && m.useGraphs(kernel, cfg) {
		if done, err := m.launchGraph(kernel, stream, counts, args, cfg); done {
			return err
		}
	}
	lane := cfg.stream.laneName()
	for i := 0; i < len(k.Tasks); {
		if k.Tasks[i].Group == 0 {
			if err := m.launchTask(kernel, i, stream, counts, args, cfg, tr, lane); err != nil {
				return err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(k.Tasks) && k.Tasks[j].Group == k.Tasks[i].Group {
			j++
		}
		if err := m.launchGroup(kernel, i, j, stream, counts, args, cfg, tr, lane); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// launchTask launches task i of a kernel on a stream, named lane in
// traces.
func (m *Module) launchTask(kernel, i int, stream uintptr, counts []int64, args []byte, cfg launchSettings, tr *tracer, lane string) error {
	t := &m.spec.Kernels[kernel].Tasks[i]
	grid, block := uint32(1), uint32(1)
	if t.Parallel {
		var ok bool
		if grid, block, ok = m.dev.gridFor(counts[i], cfg); !ok {
			return nil
		}
	}
	var start stamp
	if tr != nil {
		start = tr.mark(stream)
	}
	if err := launchOn(m.dev.drv, m.entries[kernel][i], grid, block, stream, sliceData(args), uintptr(len(args))); err != nil {
		return opError("launch "+m.spec.Kernels[kernel].Name+" (task "+t.Entry+")", err)
	}
	if tr != nil {
		tr.add(TraceEvent{Kind: "kernel", Name: m.spec.Kernels[kernel].Name, Stream: lane, Task: t.Entry, Block: t.Block,
			Grid: int(grid), Threads: int(block)}, start, tr.mark(stream))
	}
	return nil
}

// launchGroup launches tasks [i, j), one stream-parallel group: the pool's
// streams wait for the launching stream (fork), each block's tasks run in
// order on its stream, and the launching stream waits for every block
// stream (join). Everything is queued; the host never waits.
func (m *Module) launchGroup(kernel, i, j int, stream uintptr, counts []int64, args []byte, cfg launchSettings, tr *tracer, lane string) error {
	k := &m.spec.Kernels[kernel]
	blocks := 0
	for t := i; t < j; t++ {
		if t == i || k.Tasks[t].Block != k.Tasks[t-1].Block {
			blocks++
		}
	}
	var streams [maxPoolStreams]uintptr
	var events [maxPoolStreams + 1]uintptr
	n, err := m.dev.pool.get(blocks, &streams, &events)
	if err != nil {
		return opError("launch "+k.Name+": stream pool", err)
	}
	defer m.dev.pool.put(events[:n+1])
	drv := m.dev.drv
	if err := forkOn(drv, events[0], stream, streams[:n]); err != nil {
		return opError("launch "+k.Name, err)
	}
	if tr != nil {
		traceForkJoin(tr, "fork", k.Name, stream, lane, streams[:n])
	}
	block := -1
	for t := i; t < j; t++ {
		if t == i || k.Tasks[t].Block != k.Tasks[t-1].Block {
			block++
		}
		if err := m.launchTask(kernel, t, streams[block%n], counts, args, cfg, tr, poolLanes[block%n]); err != nil {
			return err
		}
	}
	if tr != nil {
		traceForkJoin(tr, "join", k.Name, stream, lane, streams[:n])
	}
	return opError("launch "+k.Name, joinOn(drv, events[1:n+1], streams[:n], stream))
}

// traceForkJoin records a fork (the launching stream, then each block
// stream once it may start) or a join (each block stream's end, then the
// launching stream), linked by arrows.
func traceForkJoin(tr *tracer, kind, kernel string, stream uintptr, lane string, streams []uintptr) {
	flow := tr.flow()
	if kind == "fork" {
		tr.point(TraceEvent{Kind: kind, Name: kernel, Stream: lane, Flow: flow}, stream)
	}
	for b, s := range streams {
		tr.point(TraceEvent{Kind: kind, Name: kernel, Stream: poolLanes[b], Flow: flow, FlowEnd: kind == "fork"}, s)
	}
	if kind == "join" {
		tr.point(TraceEvent{Kind: kind, Name: kernel, Stream: lane, Flow: flow, FlowEnd: true}, stream)
	}
}

// gridFor sizes the grid of a parallel task with count iterations. Each
// thread strides over the iterations, so the grid need not cover them all:
// it is capped at a few waves of the whole device.
func (d *Device) gridFor(count int64, cfg launchSettings) (grid, block uint32, ok bool) {
	block = uint32(cfg.blockSize)
	if block == 0 {
		block = defaultBlockSize
	}
	full := int64(max(d.attrs.multiprocessors, 1)) * int64(max(d.attrs.maxThreadsPerSM, int(block))/int(block)) * wavesPerLaunch
	if cfg.gridSize > 0 {
		full = int64(cfg.gridSize)
	}
	if count == UnknownCount {
		return uint32(full), block, true
	}
	if count <= 0 {
		return 0, 0, false
	}
	blocks := (count + int64(block) - 1) / int64(block)
	return uint32(min(blocks, full)), block, true
}

const (
	defaultBlockSize = 256
	wavesPerLaunch   = 4
)

// RunCPU runs a kernel on the CPU backend: its Go function, run, turning
// a panic into an error as a GPU fault would be: Go's run-time errors of
// indexing, slicing and division become a *Fault, others a *KernelPanic.
// The options are checked
// as a GPU launch checks them: a closed stream is an error here too. The
// kernel's qd.StreamParallel blocks run serially, in program order, unless
// RunBlocksConcurrently is on. With RunIterationsConcurrently on, the
// kernel runs through its IR instead, on the launch's counts and packed
// arguments and the buffers of its slice parameters, bufs. Generated
// stubs call it.
func (m *Module) RunCPU(kernel int, counts []int64, args []byte, opts []LaunchOption, run func(), bufs ...ArgBuffer) error {
	k := &m.spec.Kernels[kernel]
	cfg, err := launchConfig(m.dev, opts)
	if err == nil {
		_, err = cfg.stream.use(m.dev)
	}
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	if cfg.stream.recording() {
		return opError("launch "+k.Name, errors.New("RunCPU on a stream of a recording (the generated code is stale: run go generate)"))
	}
	tr := m.dev.tracer.Load()
	var start stamp
	if tr != nil {
		start = tr.mark(0)
	}
	err = m.runCPU(kernel, counts, args, run, bufs)
	if tr != nil {
		tr.add(TraceEvent{Kind: "kernel", Name: k.Name, Stream: cfg.stream.laneName(), Task: k.Name}, start, tr.mark(0))
	}
	return err
}

// Recording reports whether opts launch on a stream of a recording, where
// the CPU backend keeps the call for the graph's launches (RecordCPU)
// instead of making it (RunCPU). Generated stubs call it.
func Recording(opts []LaunchOption) bool {
	for i := len(opts) - 1; i >= 0; i-- {
		if opts[i].setStream {
			return opts[i].stream.recording()
		}
	}
	return false
}

// RecordCPU adds a kernel's run on the CPU backend, with the arguments of
// RunCPU, to the recording of the stream opts name, to be made on each
// launch of its graph. Generated stubs call it.
func (m *Module) RecordCPU(kernel int, counts []int64, args []byte, opts []LaunchOption, run func(), bufs ...ArgBuffer) error {
	k := &m.spec.Kernels[kernel]
	cfg, err := launchConfig(m.dev, opts)
	if err == nil {
		_, err = cfg.stream.use(m.dev)
	}
	if err == nil && !cfg.stream.recording() {
		err = errors.New("not a stream of a recording")
	}
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	// The stub's counts, arguments and buffers live on its stack.
	kept := slices.Clone(counts)
	packed := slices.Clone(args)
	used := slices.Clone(bufs)
	return opError("launch "+k.Name, cfg.stream.rec.addStep(func() error { return m.runCPU(kernel, kept, packed, run, used) }))
}

// runCPU runs a kernel on the CPU backend, as RunCPU describes.
func (m *Module) runCPU(kernel int, counts []int64, args []byte, run func(), bufs []ArgBuffer) (err error) {
	k := &m.spec.Kernels[kernel]
	if err := m.dev.enter(); err != nil {
		return opError("launch "+k.Name, err)
	}
	defer m.dev.leave()
	if iterations.Concurrent() {
		return interpreted(k, m.runIterations(kernel, counts, args, bufs))
	}
	defer func() {
		if v := recover(); v != nil {
			err = cpuFault(k, v)
		}
	}()
	if len(k.Groups) > 0 && blocks.Concurrent() {
		blocks.Run(k.Groups, run)
		return nil
	}
	run()
	return nil
}

// runIterations runs a kernel through its IR with each parallel loop's
// iterations spread over goroutines.
func (m *Module) runIterations(kernel int, counts []int64, args []byte, bufs []ArgBuffer) error {
	m.irOnce.Do(func() {
		for _, img := range m.spec.Images {
			if img.Kind == ImageIR {
				m.irKernels, m.irErr = ir.Parse(img.Data)
				return
			}
		}
		m.irErr = fmt.Errorf("%w: the module has no IR image, which the CPU race mode runs; regenerate it with qdgen", ErrNoImage)
	})
	if m.irErr != nil {
		return m.irErr
	}
	if kernel >= len(m.irKernels) {
		return fmt.Errorf("the IR image has %d kernels", len(m.irKernels))
	}
	hosts := make([]iterations.Buffer, len(bufs))
	for i, b := range bufs {
		hosts[i] = iterations.Buffer{Data: b.argHost(), Len: b.argLen()}
	}
	// The stub's counts live on its stack; the interpreter keeps them.
	return iterations.Run(m.irKernels[kernel], slices.Clone(counts), args, hosts, blocks.Concurrent())
}

// RunBlocksConcurrently makes the CPU backend run the blocks of each
// qd.StreamParallel group concurrently, as goroutines started in random
// order, instead of serially: under go test -race, blocks that depend on
// each other are then reported. The environment variable
// QD_CPU_BLOCKS=concurrent turns it on too. While it is on, kernels with
// blocks run one at a time.
func RunBlocksConcurrently(on bool) { blocks.SetConcurrent(on) }

// RunIterationsConcurrently makes the CPU backend run kernels the way a GPU
// does, to find the iterations of parallel loops that conflict through
// memory: through their IR, on an interpreter, over the buffers' memory,
// with each loop's iterations spread over goroutines in shuffled order.
// Under go test -race, two iterations that touch one element, one of them
// writing it without an atomic, are reported. The environment variable
// QD_CPU_ITERATIONS=concurrent turns it on too. With RunBlocksConcurrently
// on as well, the blocks of each qd.StreamParallel group run as goroutines
// too. The mode is much slower than the Go function; kernels report index
// errors as errors of the run rather than panics.
func RunIterationsConcurrently(on bool) { iterations.SetConcurrent(on) }
