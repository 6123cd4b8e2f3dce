package nccl

import "runtime"

// Group runs the calls f makes as one: NCCL starts them together, which
// point-to-point exchanges need (two ranks that each Send before they
// Recv would otherwise wait for each other). On GPUs it brackets f with
// ncclGroupStart and ncclGroupEnd, which NCCL keeps per thread, so f runs
// on one thread and must not hand its calls to other goroutines. On the
// CPU backend, where Send never waits, it just runs f.
//
// In a recording (rt's Device.Record), the calls of the group on streams
// of the recording are captured together, after f returns, into one node
// of the graph: they must be the communicator's calls, all on one stream,
// and the group must have no calls on other streams.
func (c *Comm) Group(f func() error) error {
	if c.gpu == nil || c.group != nil {
		return f() // an inner group: the outer one issues the calls
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.gpu.groupStart(); err != nil {
		return opError(c, "group", err)
	}
	c.group = &pendingGroup{}
	err := f()
	g := c.group
	c.group = nil
	if e := c.gpu.groupEnd(); err == nil {
		err = opError(c, "group", e)
	}
	if err == nil {
		err = c.recordGroup(g)
	}
	return err
}
