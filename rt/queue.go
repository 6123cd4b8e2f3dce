package rt

import (
	"fmt"

	"github.com/qdgo/qd/rt/internal/stubabi"
)

// Launch runs kernel number kernel of the module: each task in order on the
// stream the options name (the default stream without one), with the
// packed arguments args. counts holds each parallel task's iteration count,
// or stubabi.UnknownCount; tasks with no iterations are not launched. A kernel with
// qd.StreamParallel groups is replayed as a cached graph (kgraph.go) unless
// the Eager option asks otherwise. On a stream of a recording the tasks
// become nodes of the recording instead. Generated stubs call it.
//
// A fault a kernel of the device has recorded since the last operation
// that observed one is returned first, and nothing is launched.
func (m *Module) Launch(kernel int, counts []int64, args []byte, opts []LaunchOption) error {
	l := kernelLaunch{m: m, kernel: kernel, k: &m.spec.Kernels[kernel], counts: counts, args: args}
	var err error
	if l.cfg, err = launchConfig(m.dev, opts); err != nil {
		return opError("launch "+l.k.Name, err)
	}
	if m.dev.drv == nil {
		return opError("launch "+l.k.Name, fmt.Errorf("the CPU backend runs kernels as Go functions"))
	}
	if err := m.dev.enter(); err != nil {
		return opError("launch "+l.k.Name, err)
	}
	defer m.dev.leave()
	if l.stream, err = l.cfg.stream.use(m.dev); err != nil {
		return opError("launch "+l.k.Name, err)
	}
	if err := m.kernelReady(kernel); err != nil {
		return opError("launch "+l.k.Name, err)
	}
	if err := m.sharedFits(kernel); err != nil {
		return opError("launch "+l.k.Name, err)
	}
	end := len(args)
	if len(l.k.Faults) > 0 {
		end -= 8
		stubabi.PutUint64(args, end, uint64(m.faults.dev))
	}
	if l.k.ScratchPerBlock > 0 {
		return l.withScratch(end - 8)
	}
	if l.cfg.stream.recording() {
		return opError("launch "+l.k.Name, l.cfg.stream.rec.addKernel(m, kernel, counts, args, l.cfg))
	}
	return l.queue(0, 0)
}

// kernelLaunch is one launch of a kernel while it is being queued: what each
// step needs, passed along by one pointer.
type kernelLaunch struct {
	m      *Module
	kernel int
	k      *kernelSpec
	counts []int64
	args   []byte
	cfg    launchSettings
	stream uintptr // the launching stream's handle
}

// withScratch queues a launch of a kernel with scratch memory, whose
// address it writes into the arguments at offset at.
func (l *kernelLaunch) withScratch(at int) error {
	s := &l.m.scratch[l.kernel]
	s.mu.Lock()
	defer s.mu.Unlock() // launches of the kernel are queued one at a time
	recording := l.cfg.stream.recording()
	wait, err := s.prepare(l.m.dev, l.m.scratchBytes(l.kernel, l.counts, l.cfg), l.stream, recording)
	if err != nil {
		return opError("launch "+l.k.Name+": scratch memory", err)
	}
	stubabi.PutUint64(l.args, at, uint64(s.ptr))
	if recording {
		return opError("launch "+l.k.Name, l.cfg.stream.rec.addKernel(l.m, l.kernel, l.counts, l.args, l.cfg))
	}
	// The launch waits for the last one on another stream and records its
	// end for the next, in the same call as its tasks.
	if err := l.queue(wait, s.event); err != nil {
		return err
	}
	s.stream, s.used = l.stream, true
	return nil
}

// queue queues the kernel's tasks on the launching stream, after
// returning any fault recorded since the last operation that observed
// one. Before them the stream waits for event wait and after them it
// records event record, where those are not 0.
func (l *kernelLaunch) queue(wait, record uintptr) error {
	if err := l.m.dev.faults.take(); err != nil {
		return err
	}
	tr := l.m.dev.tracer.Load()
	if tr == nil && len(l.k.Groups) == 0 {
		return l.tasks(0, len(l.k.Tasks), l.stream, wait, record)
	}
	drv := l.m.dev.drv
	if wait != 0 {
		if err := drv.waitEvent(l.stream, wait); err != nil {
			return opError("launch "+l.k.Name+": scratch memory", err)
		}
	}
	if err := l.parts(tr); err != nil {
		return err
	}
	if record != 0 {
		if err := drv.recordEvent(record, l.stream); err != nil {
			return opError("launch "+l.k.Name+": scratch memory", err)
		}
	}
	return nil
}

// parts queues a kernel with stream-parallel groups, or any kernel while
// tracing: as a cached graph where it can, else group by group.
func (l *kernelLaunch) parts(tr *tracer) error {
	k := l.k
	if tr == nil && l.m.useGraphs(l.kernel, l.cfg) {
		if done, err := l.m.launchGraph(l.kernel, l.stream, l.counts, l.args, l.cfg); done {
			return err
		}
	}
	lane := ""
	if tr != nil {
		lane = l.cfg.stream.laneName()
	}
	for i := 0; i < len(k.Tasks); {
		j := i + 1
		for j < len(k.Tasks) && k.Tasks[j].Group == k.Tasks[i].Group {
			j++
		}
		var err error
		switch {
		case k.Tasks[i].Group != 0:
			err = l.group(i, j, tr, lane)
		case tr != nil:
			for t := i; t < j && err == nil; t++ {
				err = l.traced(t, l.stream, tr, lane)
			}
		default:
			err = l.tasks(i, j, l.stream, 0, 0)
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// tasks launches tasks [i, j) in order on stream, in one call into the
// driver for up to maxSeqTasks of them, leaving out tasks with no
// iterations. Before them the stream waits for event wait and after them
// it records event record, where those are not 0.
func (l *kernelLaunch) tasks(i, j int, stream, wait, record uintptr) error {
	entries := l.m.entries[l.kernel]
	seq := launchSeq{stream: stream, wait: wait}
	first := i // the task of seq.tasks[0]
	for t := i; t < j; t++ {
		grid, block, ok := l.m.taskGrid(l.kernel, t, l.counts[t], l.cfg)
		if !ok {
			continue
		}
		if seq.n == maxSeqTasks {
			if failed, err := launchSeqOn(l.m.dev.drv, &seq, l.args); err != nil {
				return l.seqError(first, failed, seq.n, err)
			}
			seq, first = launchSeq{stream: stream}, t
		}
		seq.tasks[seq.n] = taskLaunch{fn: entries[t], grid: grid, block: block}
		seq.n++
	}
	seq.record = record
	if seq.n == 0 && seq.wait == 0 && seq.record == 0 {
		return nil
	}
	if failed, err := launchSeqOn(l.m.dev.drv, &seq, l.args); err != nil {
		return l.seqError(first, failed, seq.n, err)
	}
	return nil
}

// seqError names the part of a launch sequence of n tasks, the first of
// them first, that failed: the task, or the scratch memory's wait or
// record.
func (l *kernelLaunch) seqError(first, failed, n int, err error) error {
	k := l.k
	if failed < 0 || failed >= n {
		return opError("launch "+k.Name+": scratch memory", err)
	}
	// The failed task is the launched one of that number: tasks with no
	// iterations were left out.
	t := first
	for launched := 0; ; t++ {
		if _, _, ok := l.m.taskGrid(l.kernel, t, l.counts[t], l.cfg); ok {
			if launched == failed {
				break
			}
			launched++
		}
	}
	return opError("launch "+k.Name+" (task "+k.Tasks[t].Entry+")", err)
}

// traced launches task i alone on stream, named lane in the trace tr.
func (l *kernelLaunch) traced(i int, stream uintptr, tr *tracer, lane string) error {
	t := &l.k.Tasks[i]
	grid, block, ok := l.m.taskGrid(l.kernel, i, l.counts[i], l.cfg)
	if !ok {
		return nil
	}
	start := tr.mark(stream)
	if err := l.tasks(i, i+1, stream, 0, 0); err != nil {
		return err
	}
	tr.add(TraceEvent{Kind: "kernel", Name: l.k.Name, Stream: lane, Task: t.Entry, Block: t.Block,
		Grid: int(grid), Threads: int(block)}, start, tr.mark(stream))
	return nil
}

// group launches tasks [i, j), one stream-parallel group: the pool's
// streams wait for the launching stream (fork), each block's tasks run in
// order on its stream, and the launching stream waits for every block
// stream (join). Everything is queued; the host never waits.
func (l *kernelLaunch) group(i, j int, tr *tracer, lane string) error {
	k := l.k
	blocks := 0
	for t := i; t < j; t++ {
		if t == i || k.Tasks[t].Block != k.Tasks[t-1].Block {
			blocks++
		}
	}
	pool := &l.m.dev.pool
	var streams [maxPoolStreams]uintptr
	var events [maxPoolStreams + 1]uintptr
	n, err := pool.get(blocks, &streams, &events)
	if err != nil {
		return opError("launch "+k.Name+": stream pool", err)
	}
	defer pool.put(events[:n+1])
	drv := l.m.dev.drv
	if err := forkOn(drv, events[0], l.stream, streams[:n]); err != nil {
		return opError("launch "+k.Name, err)
	}
	if tr != nil {
		traceForkJoin(tr, "fork", k.Name, l.stream, lane, streams[:n])
	}
	block := 0
	for a := i; a < j; block++ {
		b := a + 1
		for b < j && k.Tasks[b].Block == k.Tasks[a].Block {
			b++
		}
		on := streams[block%n]
		var err error
		if tr == nil {
			err = l.tasks(a, b, on, 0, 0)
		}
		for t := a; tr != nil && t < b && err == nil; t++ {
			err = l.traced(t, on, tr, poolLanes[block%n])
		}
		if err != nil {
			return err
		}
		a = b
	}
	if tr != nil {
		traceForkJoin(tr, "join", k.Name, l.stream, lane, streams[:n])
	}
	if err := joinOn(drv, events[1:n+1], streams[:n], l.stream); err != nil {
		return opError("launch "+k.Name, err)
	}
	return nil
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

// taskGrid is the grid of task i of kernel with count iterations (one
// thread for a serial task), or false when it has none.
func (m *Module) taskGrid(kernel, i int, count int64, cfg launchSettings) (grid, block uint32, ok bool) {
	t := &m.spec.Kernels[kernel].Tasks[i]
	if t.Threads > 0 {
		return m.dev.blocksGrid(count, t.Threads)
	}
	if !t.Parallel {
		return 1, 1, true
	}
	full := m.fulls[kernel][i]
	if t.Uneven && count != stubabi.UnknownCount {
		// A thread an iteration: blocks of slow iterations then hold a
		// multiprocessor no longer than their own work takes.
		full = unevenGrid
	}
	return m.dev.gridFor(count, cfg, full)
}

// gridFor sizes the grid of a parallel task with count iterations. Each
// thread strides over the iterations, so the grid need not cover them all:
// it is capped at a few waves of the whole device. taskFull is that cap
// for the task's own function at the default block size (see
// module.resolve), or 0 to use the device's: a function whose registers
// leave room for fewer blocks per multiprocessor than the device's
// maximum then still gets whole waves, not a last one of a few blocks
// that leaves most of the GPU idle while it runs.
func (d *Device) gridFor(count int64, cfg launchSettings, taskFull int64) (grid, block uint32, ok bool) {
	block, full := uint32(defaultBlockSize), d.defaultGrid
	if cfg.blockSize != 0 {
		block = uint32(cfg.blockSize)
	}
	if cfg.blockSize != 0 || full == 0 { // 0: not computed when d was made
		full = d.fullGrid(block)
	}
	if cfg.blockSize == 0 && taskFull > 0 {
		full = taskFull
	}
	if cfg.gridSize > 0 {
		full = int64(cfg.gridSize)
	}
	if count == stubabi.UnknownCount {
		return uint32(full), block, true
	}
	if count <= 0 {
		return 0, 0, false
	}
	var blocks int64
	if block == defaultBlockSize {
		blocks = (count-1)/defaultBlockSize + 1 // a shift, not a division
	} else {
		blocks = (count-1)/int64(block) + 1
	}
	return uint32(min(blocks, full)), block, true
}

// sharedFits reports an error when a task of kernel declares more shared
// memory than a block of the device may have. qdgen keeps every kernel
// within what all GPUs allow, so only a device below that fails.
func (m *Module) sharedFits(kernel int) error {
	limit := m.dev.attrs.maxSharedPerBlock
	for _, t := range m.spec.Kernels[kernel].Tasks {
		if limit > 0 && t.SharedBytes > limit {
			return fmt.Errorf("task %s needs %d bytes of shared memory a block, more than the %d bytes of %s", t.Entry, t.SharedBytes, limit, m.dev)
		}
	}
	return nil
}

// blocksGrid sizes the grid of a block-level task with count blocks of
// threads each: one GPU block per block of the task up to a few waves of
// the whole device, over which the task's blocks stride (all of them
// when the host cannot count them). Every thread of a GPU block runs the
// task's entry once: the launch-time tests that pick its unchecked and
// 32-bit copies and split its block index. A grid of one GPU block per
// task block repeats that for every block, which for small blocks of
// little work (a 32×32 transpose tile, four elements a thread) costs more
// than the work; striding runs it once per GPU block.
func (d *Device) blocksGrid(count int64, threads int) (grid, block uint32, ok bool) {
	full := d.fullGrid(uint32(threads))
	switch {
	case count == stubabi.UnknownCount:
		return uint32(full), uint32(threads), true
	case count <= 0:
		return 0, 0, false
	}
	return uint32(min(count, full)), uint32(threads), true
}

// fullGrid is the number of blocks of block threads in a few waves of the
// whole device; Device.defaultGrid holds it for the default block size.
func (d *Device) fullGrid(block uint32) int64 {
	return int64(max(d.attrs.multiprocessors, 1)) * int64(max(d.attrs.maxThreadsPerSM, int(block))/int(block)) * wavesPerLaunch
}

const (
	defaultBlockSize = 256
	wavesPerLaunch   = 4
	unevenGrid       = 1<<31 - 1 // the most blocks a grid's x dimension has
)
