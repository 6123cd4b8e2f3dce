package nccl

import "runtime"

// Group runs the calls f makes as one: NCCL starts them together, which
// point-to-point exchanges need (two ranks that each Send before they
// Recv would otherwise wait for each other). On GPUs it brackets f with
// ncclGroupStart and ncclGroupEnd, which NCCL keeps per thread, so f runs
// on one thread and must not hand its calls to other goroutines. On the
// CPU backend, where Send never waits, it just runs f.
func (c *Comm) Group(f func() error) error {
	if c.gpu == nil {
		return f()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.gpu.groupStart(); err != nil {
		return opError(c, "group", err)
	}
	err := f()
	if e := c.gpu.groupEnd(); err == nil {
		err = opError(c, "group", e)
	}
	return err
}
