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

// liveEntry is one tracked object, with its slot, so that moving it in
// the list needs no call through its interface.
type liveEntry struct {
	r    releaser
	slot *int
}

// track registers something the device frees when it closes.
func (d *Device) track(r releaser) error {
	slot := r.liveSlot()
	d.mu.Lock()
	if d.closed.Load() {
		d.mu.Unlock()
		return ErrClosed
	}
	d.live = append(d.live, liveEntry{r, slot})
	*slot = len(d.live)
	d.mu.Unlock()
	return nil
}

// untrack forgets r, moving the last of the list into its place.
func (d *Device) untrack(r releaser) {
	slot := r.liveSlot()
	d.mu.Lock()
	if i := *slot - 1; i >= 0 && i < len(d.live) && d.live[i].slot == slot {
		last := len(d.live) - 1
		d.live[i] = d.live[last]
		*d.live[i].slot = i + 1
		d.live[last] = liveEntry{}
		d.live = d.live[:last]
		*slot = 0
	} // else never tracked, or the device closed
	d.mu.Unlock()
}
