package nccl

import (
	"fmt"
	"slices"

	"github.com/qdgo/qd/rt"
)

// Reduce reduces send of every rank with op into recv of rank root; recv
// is written on root only.
func Reduce[T rt.Number](c *Comm, send, recv *rt.Buffer[T], op Op, root int, s *rt.Stream) error {
	const name = "reduce"
	if err := prepare(c, name, s, send, recv); err != nil {
		return err
	}
	if err := checkRoot(c, root); err != nil {
		return opError(c, name, err)
	}
	if op < Sum || op > Avg {
		return opError(c, name, fmt.Errorf("unknown reduction %v", op))
	}
	if c.gpu != nil {
		return runGPU[T](c, name, "Reduce", s, send.Len(), gpuCall{send: send.DevicePointer(), recv: recv.DevicePointer(), n: send.Len(), op: ncclOps[op], root: root})
	}
	return run(c, name, s, send, func() error {
		out, err := collective(c, callOf[T](name, send.Len(), root, op), send.CPUSlice(), func(all [][]T) [][]T {
			outs := make([][]T, len(all))
			outs[root] = reduce(all, op)
			return outs
		})
		if c.rank == root {
			copy(recv.CPUSlice(), out)
		}
		return err
	})
}

// AllGather concatenates send of every rank, in rank order, into recv of
// every rank, which holds Size() times send's elements.
func AllGather[T rt.Element](c *Comm, send, recv *rt.Buffer[T], s *rt.Stream) error {
	const name = "all-gather"
	if err := prepare(c, name, s, send, recv); err != nil {
		return err
	}
	if recv.Len() != send.Len()*c.Size() {
		return opError(c, name, fmt.Errorf("recv has %d elements, want %d ranks × %d", recv.Len(), c.Size(), send.Len()))
	}
	if c.gpu != nil {
		return runGPU[T](c, name, "AllGather", s, recv.Len(), gpuCall{send: send.DevicePointer(), recv: recv.DevicePointer(), n: send.Len()})
	}
	return run(c, name, s, recv, func() error {
		out, err := collective(c, callOf[T](name, send.Len(), 0, Sum), send.CPUSlice(), func(all [][]T) [][]T {
			return repeat(slices.Concat(all...), len(all))
		})
		copy(recv.CPUSlice(), out)
		return err
	})
}

// ReduceScatter reduces send of every rank with op and leaves block r of
// the result, recv.Len() elements long, in recv of rank r; send holds
// Size() blocks.
func ReduceScatter[T rt.Number](c *Comm, send, recv *rt.Buffer[T], op Op, s *rt.Stream) error {
	const name = "reduce-scatter"
	if err := prepare(c, name, s, send, recv); err != nil {
		return err
	}
	if send.Len() != recv.Len()*c.Size() {
		return opError(c, name, fmt.Errorf("send has %d elements, want %d ranks × %d", send.Len(), c.Size(), recv.Len()))
	}
	if op < Sum || op > Avg {
		return opError(c, name, fmt.Errorf("unknown reduction %v", op))
	}
	if c.gpu != nil {
		return runGPU[T](c, name, "ReduceScatter", s, send.Len(), gpuCall{send: send.DevicePointer(), recv: recv.DevicePointer(), n: recv.Len(), op: ncclOps[op]})
	}
	n := recv.Len()
	return run(c, name, s, send, func() error {
		out, err := collective(c, callOf[T](name, n, 0, op), send.CPUSlice(), func(all [][]T) [][]T {
			r := reduce(all, op)
			outs := make([][]T, len(all))
			for i := range outs {
				outs[i] = r[i*n : (i+1)*n]
			}
			return outs
		})
		copy(recv.CPUSlice(), out)
		return err
	})
}

func checkRoot(c *Comm, root int) error {
	if root < 0 || root >= c.Size() {
		return fmt.Errorf("root %d of %d ranks", root, c.Size())
	}
	return nil
}
