package rt

import "sync"

// maxPoolStreams bounds the streams a device's pool may hold.
const maxPoolStreams = 32

// WithStreamPool sets how many streams the device keeps for the blocks of
// qd.StreamParallel groups (1 to 32). The default is the number of streams
// the device runs at once, as its driver reports it: on CUDA,
// CUDA_DEVICE_MAX_CONNECTIONS, or 8. A group with more blocks than that
// runs some blocks on the same stream, one after the other: still correct,
// less concurrent.
func WithStreamPool(n int) Option { return Option{poolStreams: min(max(n, 1), maxPoolStreams)} }

// streamPool holds the streams and events of a device's stream-parallel
// launches. Both are created when first needed and then reused, so that
// after warm-up a launch creates no driver object. Streams are shared by
// concurrent launches, which is correct (each launch orders its blocks with
// its own events) and at worst adds waiting; events are taken by one launch
// at a time, from the host call that records them until the one that
// waits for them.
type streamPool struct {
	dev     *Device
	size    int
	mu      sync.Mutex
	streams []uintptr
	free    []uintptr // events
}

// get fills streams with the pool's first min(blocks, size) streams and
// events with one more event than that, creating what is missing; it
// returns how many streams it gave.
func (p *streamPool) get(blocks int, streams *[maxPoolStreams]uintptr, events *[maxPoolStreams + 1]uintptr) (int, error) {
	n := min(blocks, p.size)
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.streams) < n {
		s, err := p.dev.newDriverStream(0)
		if err != nil {
			return 0, err
		}
		p.streams = append(p.streams, s)
	}
	copy(streams[:], p.streams[:n])
	for i := range n + 1 {
		if len(p.free) == 0 {
			e, err := p.dev.newDriverEvent(false)
			if err != nil {
				p.free = append(p.free, events[:i]...)
				return 0, err
			}
			p.free = append(p.free, e)
		}
		events[i] = p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
	}
	return n, nil
}

// takeEvents returns n events of the pool, creating what is missing.
func (p *streamPool) takeEvents(n int) ([]uintptr, error) {
	events := make([]uintptr, 0, n)
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(events) < n {
		if k := len(p.free); k > 0 {
			events = append(events, p.free[k-1])
			p.free = p.free[:k-1]
			continue
		}
		e, err := p.dev.newDriverEvent(false)
		if err != nil {
			p.free = append(p.free, events...)
			return nil, err
		}
		events = append(events, e)
	}
	return events, nil
}

// put returns events to the pool once the waits on them are queued.
func (p *streamPool) put(events []uintptr) {
	p.mu.Lock()
	p.free = append(p.free, events...)
	p.mu.Unlock()
}

// release destroys the pool's streams and events.
func (p *streamPool) release() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	for _, s := range p.streams {
		if e := p.dev.destroyDriverStream(s); err == nil {
			err = e
		}
	}
	for _, e := range p.free {
		if e2 := p.dev.destroyDriverEvent(e); err == nil {
			err = e2
		}
	}
	p.streams, p.free = nil, nil
	return err
}

// PoolSize returns how many streams the device keeps for the blocks of
// qd.StreamParallel groups.
func (d *Device) PoolSize() int { return d.pool.size }
