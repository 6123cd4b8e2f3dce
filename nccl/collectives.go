package nccl

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/qdgo/qd/rt"
)

// Op is a reduction.
type Op int

const (
	Sum Op = iota
	Prod
	Max
	Min
	// Avg is the sum divided by the number of ranks (integer division
	// for integer elements).
	Avg
)

func (o Op) String() string {
	switch o {
	case Sum:
		return "sum"
	case Prod:
		return "prod"
	case Max:
		return "max"
	case Min:
		return "min"
	case Avg:
		return "avg"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// AllReduce reduces send of every rank element by element with op and
// leaves the result in recv of every rank. send and recv may be the same
// buffer. It is ordered on stream s of the rank's device (nil: the
// default stream).
func AllReduce[T rt.Number](c *Comm, send, recv *rt.Buffer[T], op Op, s *rt.Stream) error {
	const name = "all-reduce"
	if err := prepare(c, name, s, send, recv); err != nil {
		return err
	}
	if op < Sum || op > Avg {
		return opError(c, name, fmt.Errorf("unknown reduction %v", op))
	}
	if send.Len() != recv.Len() {
		return opError(c, name, fmt.Errorf("send has %d elements, recv %d", send.Len(), recv.Len()))
	}
	if c.gpu != nil {
		return runGPU[T](c, name, "AllReduce", s, send.Len(), gpuCall{send: send.DevicePointer(), recv: recv.DevicePointer(), n: send.Len(), op: ncclOps[op]})
	}
	return run(c, name, s, send, func() error {
		out, err := collective(c, callOf[T](name, send.Len(), 0, op), send.CPUSlice(), func(all [][]T) [][]T {
			return repeat(reduce(all, op), len(all))
		})
		copy(recv.CPUSlice(), out)
		return err
	})
}

// Broadcast copies send of rank root into recv of every rank; send is
// read on root only.
func Broadcast[T rt.Element](c *Comm, send, recv *rt.Buffer[T], root int, s *rt.Stream) error {
	const name = "broadcast"
	if err := prepare(c, name, s, send, recv); err != nil {
		return err
	}
	if err := checkRoot(c, root); err != nil {
		return opError(c, name, err)
	}
	if c.gpu != nil {
		return runGPU[T](c, name, "Broadcast", s, recv.Len(), gpuCall{send: send.DevicePointer(), recv: recv.DevicePointer(), n: recv.Len(), root: root})
	}
	return run(c, name, s, recv, func() error {
		out, err := collective(c, callOf[T](name, recv.Len(), root, Sum), send.CPUSlice(), func(all [][]T) [][]T {
			return repeat(all[root], len(all))
		})
		copy(recv.CPUSlice(), out)
		return err
	})
}

// Send sends buf to rank peer, whose Recv of the same length and element
// type receives it. Send does not wait for the Recv.
func Send[T rt.Element](c *Comm, buf *rt.Buffer[T], peer int, s *rt.Stream) error {
	const name = "send"
	if err := prepare(c, name, s, buf); err != nil {
		return err
	}
	if peer < 0 || peer >= c.Size() || peer == c.rank {
		return opError(c, name, fmt.Errorf("peer %d: want another rank of %d", peer, c.Size()))
	}
	if c.gpu != nil {
		return runGPU[T](c, name, "Send", s, buf.Len(), gpuCall{send: buf.DevicePointer(), n: buf.Len(), root: peer})
	}
	return run(c, name, s, buf, func() error {
		data := append([]T(nil), buf.CPUSlice()...)
		return c.net.send(c.rank, peer, message{call: callOf[T]("send", buf.Len(), c.rank, Sum), data: data})
	})
}

// Recv receives into buf what rank peer sends with Send.
func Recv[T rt.Element](c *Comm, buf *rt.Buffer[T], peer int, s *rt.Stream) error {
	const name = "recv"
	if err := prepare(c, name, s, buf); err != nil {
		return err
	}
	if peer < 0 || peer >= c.Size() || peer == c.rank {
		return opError(c, name, fmt.Errorf("peer %d: want another rank of %d", peer, c.Size()))
	}
	if c.gpu != nil {
		return runGPU[T](c, name, "Recv", s, buf.Len(), gpuCall{recv: buf.DevicePointer(), n: buf.Len(), root: peer})
	}
	return run(c, name, s, buf, func() error {
		m, err := c.net.recv(c.rank, peer, c.timeout, "send to rank "+fmt.Sprint(c.rank))
		if err == nil {
			err = m.err
		}
		if want := callOf[T]("send", buf.Len(), peer, Sum); err == nil && m.call != want {
			err = fmt.Errorf("rank %d called %v, rank %d receives %d×%s from it", peer, m.call, c.rank, want.n, want.elem)
		}
		if err == nil {
			copy(buf.CPUSlice(), m.data.([]T))
		}
		return err
	})
}

// run runs a checked call on stream s of the rank's device, where traces
// show it, moving buf's bytes.
func run[T rt.Element](c *Comm, name string, s *rt.Stream, buf *rt.Buffer[T], work func() error) error {
	registerWire[T]()
	bytes := int64(buf.Len()) * int64(unsafe.Sizeof(*new(T)))
	err := c.dev.QueueForeign(s, "collective", name, bytes, func(uintptr) error { return work() })
	return opError(c, name, err)
}

// runGPU queues NCCL's call of the collective name on stream s.
func runGPU[T rt.Element](c *Comm, name, call string, s *rt.Stream, n int, a gpuCall) error {
	dt, err := dataType[T]()
	if err == nil {
		a.dtype = dt
		bytes := int64(n) * int64(unsafe.Sizeof(*new(T)))
		if c.grouped(name, call, s, a, bytes) {
			return nil
		}
		err = c.dev.QueueForeign(s, "collective", name, bytes, func(h uintptr) error { return c.gpu.run(call, a, h) })
	}
	return opError(c, name, err)
}

// prepare checks a call's communicator, stream and buffers.
func prepare[T rt.Element](c *Comm, name string, s *rt.Stream, bufs ...*rt.Buffer[T]) error {
	if err := check(c, name, bufs...); err != nil {
		return err
	}
	if s != nil && s.Device() != c.dev {
		return opError(c, name, fmt.Errorf("stream: %w", rt.ErrWrongDevice))
	}
	return nil
}

func callOf[T any](name string, n, root int, op Op) call {
	return call{name: name, elem: reflect.TypeFor[T]().String(), n: n, root: root, op: op}
}

// collective runs one collective call: every rank hands its data to rank
// 0, which checks that all made the same call, computes each rank's
// result with results, and hands it back.
func collective[T any](c *Comm, cl call, mine []T, results func(all [][]T) [][]T) ([]T, error) {
	h := c.net
	if c.rank != 0 {
		if err := h.send(c.rank, 0, message{call: cl, data: append([]T(nil), mine...)}); err != nil {
			return nil, err
		}
		// Rank 0 reports ranks that do not arrive within the timeout;
		// waiting twice as long leaves it the time to.
		m, err := h.recv(c.rank, 0, 2*c.timeout, cl.name)
		if err != nil {
			return nil, err
		}
		if m.err != nil {
			return nil, m.err
		}
		return m.data.([]T), nil
	}
	all := make([][]T, h.size())
	all[0] = mine
	for r := 1; r < h.size(); r++ {
		m, err := h.recv(0, r, c.timeout, cl.name)
		if err == nil && m.call != cl {
			err = fmt.Errorf("rank %d called %v, rank 0 called %v", r, m.call, cl)
		}
		if err != nil {
			for other := 1; other < h.size(); other++ {
				h.send(0, other, message{err: err}) // best effort: err is returned here

			}
			return nil, err
		}
		all[r] = m.data.([]T)
	}
	out := results(all)
	for r := 1; r < h.size(); r++ {
		if err := h.send(0, r, message{call: cl, data: out[r]}); err != nil {
			return nil, err
		}
	}
	return out[0], nil
}

func repeat[T any](x []T, n int) [][]T {
	out := make([][]T, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// reduce combines the ranks' data in rank order, so that the result is
// the same in every run.
func reduce[T rt.Number](all [][]T, op Op) []T {
	r := append([]T(nil), all[0]...)
	for _, x := range all[1:] {
		for i, v := range x {
			switch op {
			case Sum, Avg:
				r[i] += v
			case Prod:
				r[i] *= v
			case Max:
				r[i] = max(r[i], v)
			case Min:
				r[i] = min(r[i], v)
			}
		}
	}
	if op == Avg {
		for i := range r {
			r[i] /= T(len(all))
		}
	}
	return r
}
