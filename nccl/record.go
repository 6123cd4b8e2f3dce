package nccl

import (
	"errors"
	"strings"

	"github.com/qdgo/qd/rt"
)

// A collective on a stream of a recording (rt's Device.Record) becomes a
// node of the graph: rt captures NCCL's call on a stream of its own into a
// graph, which the recording runs as a child graph node after the
// stream's earlier work (rt.Device.QueueForeign). On the CPU backend the
// graph's launches make the call. NCCL queues the calls of a group only
// when the group ends, so on GPUs the calls of a Group that go to a
// recording are held until then and captured together.

// pendingGroup is what a Group in progress on GPUs has seen: the calls
// on streams of a recording, held, and whether others were issued.
type pendingGroup struct {
	calls []groupCall
	eager bool
}

// groupCall is one held call of a group.
type groupCall struct {
	name, call string
	s          *rt.Stream
	a          gpuCall
	bytes      int64
}

// grouped reports whether the call is held by the group in progress, to
// be recorded when it ends.
func (c *Comm) grouped(name, call string, s *rt.Stream, a gpuCall, bytes int64) bool {
	if c.group == nil {
		return false
	}
	if !s.Recording() {
		c.group.eager = true
		return false
	}
	c.group.calls = append(c.group.calls, groupCall{name: name, call: call, s: s, a: a, bytes: bytes})
	return true
}

// recordGroup records the held calls of a group as one captured node.
func (c *Comm) recordGroup(g *pendingGroup) error {
	if len(g.calls) == 0 {
		return nil
	}
	s := g.calls[0].s
	names := make([]string, len(g.calls))
	var bytes int64
	for i, k := range g.calls {
		if k.s != s {
			return opError(c, "group", errors.New("the calls of a group in a recording must be on one stream of it"))
		}
		names[i], bytes = k.name, bytes+k.bytes
	}
	if g.eager {
		return opError(c, "group", errors.New("a group has calls on streams of a recording and on other streams; record them in a group of their own"))
	}
	err := c.dev.QueueForeign(s, "collective", "group ("+strings.Join(names, ", ")+")", bytes, func(h uintptr) error {
		if err := c.gpu.groupStart(); err != nil {
			return err
		}
		var err error
		for _, k := range g.calls {
			if err = c.gpu.run(k.call, k.a, h); err != nil {
				break
			}
		}
		if e := c.gpu.groupEnd(); err == nil {
			err = e
		}
		return err
	})
	return opError(c, "group", err)
}
