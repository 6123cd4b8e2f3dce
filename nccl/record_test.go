package nccl

import (
	"fmt"
	"math"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// Collectives recorded into a graph (rt's Device.Record) between kernel
// launches run when the graph is launched, with the results of the same
// work issued eagerly; an update records them again with new arguments.

// TestRecordAllReduce records an all-reduce and a grouped ring exchange
// between kernels on the CPU backend's pretend devices.
func TestRecordAllReduce(t *testing.T) {
	testRecordAllReduce(t, group(t, 3))
}

// TestRecordAllReduceGPU records them on GPUs, through NCCL's stream
// capture: in one process, or as ranks under qdrun.
func TestRecordAllReduceGPU(t *testing.T) {
	testRecordAllReduce(t, gpuComms(t))
}

const recordLen = 1000

// recordInit is every rank's y before the work.
func recordInit() []float32 {
	y := make([]float32, recordLen)
	for i := range y {
		y[i] = float32(i%5) - 1
	}
	return y
}

// recordOracle is rank r's y after recordWork with scale a and the
// data of size ranks, computed in Go: y = a*x+y on each rank, summed over
// the ranks, then a*x+y again; the values are exact in float32 whatever
// the order of the sum.
func recordOracle(a float32, r, size int) []float32 {
	sum := make([]float32, recordLen)
	for q := range size {
		for i, x := range rankData(q, recordLen) {
			sum[i] += a*x + recordInit()[i]
		}
	}
	for i, x := range rankData(r, recordLen) {
		sum[i] = a*x + sum[i]
	}
	return sum
}

// recordBuffers are one rank's buffers of the test.
type recordBuffers struct {
	ks          *kernels.Kernels
	x, y        *rt.Buffer[float32]
	mine, ring  *rt.Buffer[float32]
	a           float32
	left, right int
}

// work issues on s: Saxpy, an all-reduce of y, Saxpy, and a ring
// exchange of mine (each rank sends it to the right, receives the left's
// into ring) in a group.
func (b *recordBuffers) work(c *Comm, s *rt.Stream) error {
	if err := b.ks.Saxpy(b.a, b.x, b.y, rt.OnStream(s)); err != nil {
		return err
	}
	if err := AllReduce(c, b.y, b.y, Sum, s); err != nil {
		return err
	}
	if err := b.ks.Saxpy(b.a, b.x, b.y, rt.OnStream(s)); err != nil {
		return err
	}
	return c.Group(func() error {
		if err := Send(c, b.mine, b.right, s); err != nil {
			return err
		}
		return Recv(c, b.ring, b.left, s)
	})
}

// results resets y and ring after reading them.
func (b *recordBuffers) results() ([]float32, []float32, error) {
	y, err := b.y.Read()
	if err != nil {
		return nil, nil, err
	}
	ring, err := b.ring.Read()
	if err != nil {
		return nil, nil, err
	}
	if err := b.y.CopyFrom(recordInit()); err != nil {
		return nil, nil, err
	}
	return y, ring, b.ring.CopyFrom(make([]float32, recordLen))
}

func testRecordAllReduce(t *testing.T, comms []*Comm) {
	must(t, ranks(comms, func(c *Comm) error {
		r, size := c.Rank(), c.Size()
		dev := c.Device()
		ks, err := kernels.Load(dev)
		if err != nil {
			return err
		}
		b := &recordBuffers{ks: ks, a: 2, left: (r + size - 1) % size, right: (r + 1) % size}
		if b.x, err = rt.FromSlice(dev, rankData(r, recordLen)); err != nil {
			return err
		}
		if b.y, err = rt.FromSlice(dev, recordInit()); err != nil {
			return err
		}
		if b.mine, err = rt.FromSlice(dev, rankData(r+10, recordLen)); err != nil {
			return err
		}
		if b.ring, err = rt.Alloc[float32](dev, recordLen); err != nil {
			return err
		}
		check := func(what string, y, ring []float32) error {
			if err := same(y, recordOracle(b.a, r, size)); err != nil {
				return fmt.Errorf("%s: y: %w", what, err)
			}
			if err := same(ring, rankData(b.left+10, recordLen)); err != nil {
				return fmt.Errorf("%s: received: %w", what, err)
			}
			return nil
		}
		if err := b.work(c, nil); err != nil {
			return fmt.Errorf("eager: %w", err)
		}
		y, ring, err := b.results()
		if err != nil {
			return err
		}
		if err := check("eager", y, ring); err != nil {
			return err
		}
		g, err := dev.Record(func(rec *rt.Recorder) error { return b.work(c, rec.Stream()) })
		if err != nil {
			return fmt.Errorf("record: %w", err)
		}
		defer g.Close()
		for i := range 2 {
			if err := g.Launch(nil); err != nil {
				return err
			}
			gy, gring, err := b.results()
			if err != nil {
				return err
			}
			if err := check(fmt.Sprintf("launch %d", i+1), gy, gring); err != nil {
				return err
			}
		}
		b.a = 3
		if err := g.Update(); err != nil {
			return fmt.Errorf("update: %w", err)
		}
		if err := g.Launch(nil); err != nil {
			return err
		}
		gy, gring, err := b.results()
		if err != nil {
			return err
		}
		return check("after the update", gy, gring)
	}))
}

// same compares bit for bit.
func same(got, want []float32) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d elements, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return fmt.Errorf("[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}
