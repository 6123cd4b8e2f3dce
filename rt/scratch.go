package rt

import "sync"

// scratch is the scratch memory of one kernel of a module: where its
// reductions leave partial and final results between the launches of its
// tasks. It is allocated at the kernel's first launch, and again only when
// a launch runs a larger grid than any before (then twice as large), so
// that launches allocate nothing. Memory outgrown stays allocated until
// the module is released: work in flight, cached graphs and recordings
// may still use it.
//
// Launches on different streams would share it at the same time, so a
// launch on another stream than the last first waits, on the GPU, for the
// last one's work; launches of the kernel are queued one at a time. A
// recording shares it too, and its replays are not ordered so: a
// recording and a launch of the same kernel with reductions must not run
// at the same time.
type scratch struct {
	mu      sync.Mutex
	ptr     uintptr
	size    uintptr
	retired []uintptr // memory outgrown
	stream  uintptr   // the stream of the last launch that used it
	used    bool
	event   uintptr // recorded at the end of each launch that used it
}

// scratchBytes is the scratch memory a launch of kernel k with counts
// needs: a partial result per block of its largest grid.
func (m *Module) scratchBytes(kernel int, counts []int64, cfg launchSettings) uintptr {
	k := &m.spec.Kernels[kernel]
	blocks := uint32(1)
	for i, t := range k.Tasks {
		if grid, _, ok := m.taskGrid(kernel, i, counts[i], cfg); t.Parallel && ok {
			blocks = max(blocks, grid)
		}
	}
	return uintptr(k.ScratchFixed) + uintptr(k.ScratchPerBlock)*uintptr(blocks)
}

// prepare makes s hold need bytes for a launch on stream, and returns the
// event that launch must first wait for: the end of the last launch that
// used s, where that was on another stream; 0 when there is none, or for
// a recording's launch, which is not ordered. The launch then records
// s.event on its stream, which prepare creates the first time. The caller
// holds s.mu.
func (s *scratch) prepare(d *Device, need, stream uintptr, recording bool) (wait uintptr, err error) {
	drv := d.drv
	if need > s.size {
		need = max(need, 2*s.size) // grow seldom
		ptr, err := drv.alloc(need)
		if err != nil {
			return 0, err
		}
		if s.ptr != 0 {
			s.retired = append(s.retired, s.ptr)
		}
		s.ptr, s.size = ptr, need
	}
	if recording {
		return 0, nil
	}
	if s.event == 0 {
		if s.event, err = d.newDriverEvent(false); err != nil {
			return 0, err
		}
	}
	if !s.used || s.stream == stream {
		return 0, nil
	}
	// The last launch recorded the event on its stream when it was queued,
	// while that stream surely existed; waiting needs only the event.
	return s.event, nil
}

// release frees the memory and the event.
func (s *scratch) release(d *Device) error {
	var err error
	for _, p := range append(s.retired, s.ptr) {
		if p == 0 {
			continue
		}
		if e := d.drv.free(p); err == nil {
			err = e
		}
	}
	if s.event != 0 {
		if e := d.destroyDriverEvent(s.event); err == nil {
			err = e
		}
	}
	*s = scratch{}
	return err
}
