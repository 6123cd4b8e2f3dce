package rt

import "sync"

// scratch is the scratch memory of one kernel of a module: where its
// reductions leave partial and final results between the launches of its
// tasks. It is allocated at the kernel's first launch, and again only when
// a launch runs a larger grid than any before (then twice as large), so
// that launches allocate nothing.
//
// Launches on different streams would share it at the same time, so a
// launch on another stream than the last first waits, on the GPU, for the
// last one's work; launches of the kernel are queued one at a time.
type scratch struct {
	mu     sync.Mutex
	ptr    uintptr
	size   uintptr
	stream uintptr // the stream of the last launch that used it
	used   bool
	event  uintptr
}

// prepare makes s hold need bytes for a launch on stream, ordered after
// the launches that used it before. The caller holds s.mu.
func (s *scratch) prepare(d *Device, need, stream uintptr) error {
	drv := d.drv
	if need > s.size {
		if s.ptr != 0 {
			// Work in flight may still use the old memory.
			if err := drv.synchronizeAll(); err != nil {
				return err
			}
			if err := drv.free(s.ptr); err != nil {
				return err
			}
			s.ptr, s.size = 0, 0
		}
		need = max(need, 2*s.size) // grow seldom
		ptr, err := drv.alloc(need)
		if err != nil {
			return err
		}
		s.ptr, s.size, s.used = ptr, need, false
	}
	if !s.used || s.stream == stream {
		return nil
	}
	if s.event == 0 {
		ev, err := d.newDriverEvent(false)
		if err != nil {
			return err
		}
		s.event = ev
	}
	if err := drv.recordEvent(s.event, s.stream); err != nil {
		return err
	}
	return drv.waitEvent(stream, s.event)
}

// release frees the memory and the event.
func (s *scratch) release(d *Device) error {
	var err error
	if s.ptr != 0 {
		err = d.drv.free(s.ptr)
	}
	if s.event != 0 {
		if e := d.destroyDriverEvent(s.event); err == nil {
			err = e
		}
	}
	*s = scratch{}
	return err
}
