package rt

import (
	"errors"
	"fmt"
	"slices"

	"github.com/qdgo/qd/internal/blocks"
	"github.com/qdgo/qd/internal/iterations"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/rt/internal/stubabi"
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
func (m *Module) RunCPU(kernel int, counts []int64, args []byte, opts []LaunchOption, run func(), bufs ...stubabi.ArgBuffer) error {
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

// RecordCPU adds a kernel's run on the CPU backend, with the arguments of
// RunCPU, to the recording of the stream opts name, to be made on each
// launch of its graph. Generated stubs call it.
func (m *Module) RecordCPU(kernel int, counts []int64, args []byte, opts []LaunchOption, run func(), bufs ...stubabi.ArgBuffer) error {
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
func (m *Module) runCPU(kernel int, counts []int64, args []byte, run func(), bufs []stubabi.ArgBuffer) (err error) {
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
func (m *Module) runIterations(kernel int, counts []int64, args []byte, bufs []stubabi.ArgBuffer) error {
	m.irOnce.Do(func() {
		for _, img := range m.spec.Images {
			if img.Kind == imageIR {
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
		a := arg(b)
		hosts[i] = iterations.Buffer{Data: a.argHost(), Len: a.argLen()}
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
