package rt

import (
	"fmt"
	"runtime"

	"github.com/qdgo/qd/internal/blocks"
)

// Launch runs kernel number kernel of the module: each task in order on the
// stream the options name (the default stream without one), with the
// packed arguments args. counts holds each parallel task's iteration count,
// or UnknownCount; tasks with no iterations are not launched. Generated
// stubs call it.
func (m *Module) Launch(kernel int, counts []int64, args []byte, opts []LaunchOption) error {
	k := &m.spec.Kernels[kernel]
	cfg, err := launchConfig(m.dev, opts)
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	if err := m.dev.check(); err != nil {
		return opError("launch "+k.Name, err)
	}
	if m.dev.drv == nil {
		return opError("launch "+k.Name, fmt.Errorf("the CPU backend runs kernels as Go functions"))
	}
	stream, err := cfg.stream.use(m.dev)
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	for i := 0; i < len(k.Tasks); {
		if k.Tasks[i].Group == 0 {
			if err := m.launchTask(kernel, i, stream, counts, args, cfg); err != nil {
				return err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(k.Tasks) && k.Tasks[j].Group == k.Tasks[i].Group {
			j++
		}
		if err := m.launchGroup(kernel, i, j, stream, counts, args, cfg); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// launchTask launches task i of a kernel on a stream.
func (m *Module) launchTask(kernel, i int, stream uintptr, counts []int64, args []byte, cfg launchSettings) error {
	t := &m.spec.Kernels[kernel].Tasks[i]
	grid, block := uint32(1), uint32(1)
	if t.Parallel {
		var ok bool
		if grid, block, ok = m.dev.gridFor(counts[i], cfg); !ok {
			return nil
		}
	}
	if err := launchOn(m.dev.drv, m.entries[kernel][i], grid, block, stream, sliceData(args), uintptr(len(args))); err != nil {
		return opError("launch "+m.spec.Kernels[kernel].Name+" (task "+t.Entry+")", err)
	}
	return nil
}

// launchGroup launches tasks [i, j), one stream-parallel group: the pool's
// streams wait for the launching stream (fork), each block's tasks run in
// order on its stream, and the launching stream waits for every block
// stream (join). Everything is queued; the host never waits.
func (m *Module) launchGroup(kernel, i, j int, stream uintptr, counts []int64, args []byte, cfg launchSettings) error {
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
	block := -1
	for t := i; t < j; t++ {
		if t == i || k.Tasks[t].Block != k.Tasks[t-1].Block {
			block++
		}
		if err := m.launchTask(kernel, t, streams[block%n], counts, args, cfg); err != nil {
			return err
		}
	}
	return opError("launch "+k.Name, joinOn(drv, events[1:n+1], streams[:n], stream))
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

// RunCPU runs a kernel's Go function on the CPU backend, turning a panic
// into an error as a GPU fault would be. The options are checked as a GPU
// launch checks them: a closed stream is an error here too. The kernel's
// qd.StreamParallel blocks run serially, in program order, unless
// RunBlocksConcurrently is on. Generated stubs call it.
func (m *Module) RunCPU(kernel int, opts []LaunchOption, run func()) (err error) {
	k := &m.spec.Kernels[kernel]
	cfg, err := launchConfig(m.dev, opts)
	if err == nil {
		_, err = cfg.stream.use(m.dev)
	}
	if err != nil {
		return opError("launch "+k.Name, err)
	}
	defer func() {
		if v := recover(); v != nil {
			if re, ok := v.(runtime.Error); ok {
				v = re.Error()
			}
			err = opError("run "+k.Name+" on the CPU", &KernelPanic{Value: v})
		}
	}()
	if len(k.Groups) > 0 && blocks.Concurrent() {
		blocks.Run(k.Groups, run)
		return nil
	}
	run()
	return nil
}

// RunBlocksConcurrently makes the CPU backend run the blocks of each
// qd.StreamParallel group concurrently, as goroutines started in random
// order, instead of serially: under go test -race, blocks that depend on
// each other are then reported. The environment variable
// QD_CPU_BLOCKS=concurrent turns it on too. While it is on, kernels with
// blocks run one at a time.
func RunBlocksConcurrently(on bool) { blocks.SetConcurrent(on) }
