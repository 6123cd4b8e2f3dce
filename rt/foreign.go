package rt

// QueueForeign queues work that another library issues on stream s of d
// (nil: the default stream), such as a collective of a communication
// library: the work is checked against the device and stream as qd's own
// copies are, Close waits for it, and a running trace shows it as an
// operation of the given kind and name moving bytes. queue receives the
// stream's driver handle (0 on the CPU backend, where it runs the work at
// once). On a stream of a recording (Device.Record), queue runs at once on
// a private stream whose work is captured into the graph (capture.go), or
// on the CPU backend at each launch of the graph; a driver without stream
// capture makes it an error wrapping ErrRecording.
func (d *Device) QueueForeign(s *Stream, kind, name string, bytes int64, queue func(stream uintptr) error) error {
	h, err := s.use(d)
	if err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if s.recording() {
		return s.rec.addCapture(s, name, queue)
	}
	tr := d.tracer.Load()
	var start stamp
	if tr != nil {
		start = tr.mark(h)
	}
	err = queue(h)
	if tr != nil {
		tr.add(TraceEvent{Kind: kind, Name: name, Stream: s.laneName(), Bytes: bytes}, start, tr.mark(h))
	}
	return err
}
