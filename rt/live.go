package rt

// A device frees what is still live when it closes: buffers, host
// buffers, streams, events and graphs. Each of them is tracked while it
// lives: it embeds tracked, which holds its place in the device's list,
// so that adding or removing one is a few stores under the device's lock,
// not a map's hashing.

// releaser is something a device frees when it closes.
type releaser interface {
	release() error
	liveSlot() *int
}

// tracked is embedded in what a device tracks: 1 + its index in
// Device.live, or 0 while it is not there.
type tracked struct{ slot int }

func (t *tracked) liveSlot() *int { return &t.slot }

// track registers something the device frees when it closes.
func (d *Device) track(r releaser) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() {
		return ErrClosed
	}
	d.live = append(d.live, r)
	*r.liveSlot() = len(d.live)
	return nil
}

// untrack forgets r, moving the last of the list into its place.
func (d *Device) untrack(r releaser) {
	d.mu.Lock()
	defer d.mu.Unlock()
	i := *r.liveSlot() - 1
	if i < 0 || i >= len(d.live) || d.live[i] != r {
		return // never tracked, or the device closed
	}
	last := len(d.live) - 1
	d.live[i] = d.live[last]
	*d.live[i].liveSlot() = i + 1
	d.live[last] = nil
	d.live = d.live[:last]
	*r.liveSlot() = 0
}
