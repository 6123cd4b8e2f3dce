package rt

import "fmt"

// CopyPeer copies src, a buffer of the same length on another device (or
// the same one), into dst, ordered on stream s of dst's device (nil: its
// default stream). The copy sees the work queued on src's device's default
// stream before it; work of src's device on other streams must be ordered
// before it with an event that src's default stream waits for.
//
// Between GPUs that can reach each other's memory (EnablePeerAccess, which
// CopyPeer calls once per pair) the copy is queued on s and CopyPeer
// returns at once; work queued on src's default stream afterwards waits
// for it, so src may be changed or freed there. Between GPUs that cannot,
// it is staged through host memory: the data is read from src's device,
// then written to dst on s, and CopyPeer returns when the data is in dst.
// On the CPU backend's pretend devices it copies at once, or, on a stream
// of a recording (Device.Record), at each launch of the graph; between
// GPUs it cannot be recorded. Buffers of two backends cannot be copied
// between.
func CopyPeer[T Element](dst, src *Buffer[T], s *Stream) error {
	const op = "copy between devices"
	if err := src.usable(); err != nil {
		return opError(op, err)
	}
	if err := dst.usable(); err != nil {
		return opError(op, err)
	}
	if src.dev == dst.dev {
		return dst.CopyFromBuffer(src, s)
	}
	if src.dev.backend != dst.dev.backend {
		return opError(op, fmt.Errorf("%w: a %s buffer into a %s buffer", ErrWrongDevice, src.dev.backend, dst.dev.backend))
	}
	if src.n != dst.n {
		return opError(op, fmt.Errorf("source has %d elements, destination has %d", src.n, dst.n))
	}
	if dst.dev.drv == nil {
		return dst.CopyFromAsync(src.host, s) // recorded: copied at each launch
	}
	if s.recording() {
		return opError(op, fmt.Errorf("a copy between GPUs cannot be recorded into a graph (it is ordered with the source device's default stream, which the graph cannot wait for): %w", ErrRecording))
	}
	direct, err := EnablePeerAccess(dst.dev, src.dev)
	if err != nil {
		return opError(op, err)
	}
	if direct {
		h, err := dst.prepare(src.n, "source", s)
		if err != nil || dst.n == 0 {
			return opError(op, err)
		}
		return opError(op, linkOf(dst.dev, src.dev).copyDirect(dst.dev, src.dev, dst, src, dst.ptr, src.ptr, dst.bytes(), s, h))
	}
	staged := make([]T, src.n)
	if err := src.CopyTo(staged); err != nil {
		return opError(op, err)
	}
	return dst.CopyFromAsync(staged, s)
}
