package nccl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qdgo/qd/rt"
)

// group opens n pretend CPU devices and a communicator on each.
func group(t *testing.T, n int, opts ...Option) []*Comm {
	t.Helper()
	t.Setenv("QD_CPU_DEVICES", fmt.Sprint(n))
	devs, err := rt.OpenAll(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.CloseAll(devs) })
	comms, err := InitAll(devs, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return comms
}

// ranks runs f on every rank in its own goroutine and returns each rank's
// error.
func ranks(comms []*Comm, f func(c *Comm) error) []error {
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for i, c := range comms {
		wg.Go(func() { errs[i] = f(c) })
	}
	wg.Wait()
	return errs
}

func must(t *testing.T, errs []error) {
	t.Helper()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// rankData is rank r's input: values that make every reduction differ.
func rankData(r, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32((r+1)*(i+2)%7) - 2.5
	}
	return x
}

func TestAllReduce(t *testing.T) {
	const size, n = 4, 33
	comms := group(t, size)
	for _, op := range []Op{Sum, Prod, Max, Min, Avg} {
		want := rankData(0, n)
		for r := 1; r < size; r++ {
			for i, v := range rankData(r, n) {
				switch op {
				case Sum, Avg:
					want[i] += v
				case Prod:
					want[i] *= v
				case Max:
					want[i] = max(want[i], v)
				case Min:
					want[i] = min(want[i], v)
				}
			}
		}
		if op == Avg {
			for i := range want {
				want[i] /= size
			}
		}
		got := make([][]float32, size)
		must(t, ranks(comms, func(c *Comm) error {
			b, err := rt.FromSlice(c.Device(), rankData(c.Rank(), n))
			if err != nil {
				return err
			}
			if err := AllReduce(c, b, b, op, nil); err != nil {
				return err
			}
			got[c.Rank()], err = b.Read()
			return err
		}))
		for r := range size {
			if !slices.Equal(got[r], want) {
				t.Errorf("%v: rank %d got %v, want %v", op, r, got[r], want)
			}
		}
	}
}

func TestBroadcastAndSendRecv(t *testing.T) {
	const size = 3
	comms := group(t, size)
	got := make([][]int32, size)
	must(t, ranks(comms, func(c *Comm) error {
		b, err := rt.FromSlice(c.Device(), []int32{int32(c.Rank()), 10})
		if err != nil {
			return err
		}
		if err := Broadcast(c, b, b, 2, nil); err != nil {
			return err
		}
		// A ring: each rank sends its rank to the next and receives the
		// previous one's.
		mine, _ := rt.FromSlice(c.Device(), []int32{int32(c.Rank() * 100)})
		from, _ := rt.Alloc[int32](c.Device(), 1)
		err = c.Group(func() error {
			if err := Send(c, mine, (c.Rank()+1)%size, nil); err != nil {
				return err
			}
			return Recv(c, from, (c.Rank()+size-1)%size, nil)
		})
		if err != nil {
			return err
		}
		x, _ := b.Read()
		y, _ := from.Read()
		got[c.Rank()] = append(x, y...)
		return nil
	}))
	for r := range size {
		want := []int32{2, 10, int32((r + size - 1) % size * 100)}
		if !slices.Equal(got[r], want) {
			t.Errorf("rank %d: %v, want %v", r, got[r], want)
		}
	}
}

// A rank that never arrives is an error naming it on every rank, after
// the timeout, not a hang.
func TestRankNeverArrives(t *testing.T) {
	comms := group(t, 4, WithTimeout(50*time.Millisecond))
	errs := ranks(comms[:3], func(c *Comm) error {
		b, _ := rt.FromSlice(c.Device(), []float64{1})
		return AllReduce(c, b, b, Sum, nil)
	})
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rank 3 did not take part in all-reduce") {
			t.Errorf("rank %d: %v, want an error naming rank 3", r, err)
		}
	}
}

func TestMismatchedCollective(t *testing.T) {
	comms := group(t, 3, WithTimeout(time.Second))
	errs := ranks(comms, func(c *Comm) error {
		b, _ := rt.FromSlice(c.Device(), []float32{1, 2})
		if c.Rank() == 1 {
			return Broadcast(c, b, b, 0, nil)
		}
		return AllReduce(c, b, b, Sum, nil)
	})
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rank 1 called broadcast") {
			t.Errorf("rank %d: %v, want an error naming rank 1's broadcast", r, err)
		}
	}
	errs = ranks(comms[:2], func(c *Comm) error {
		if c.Rank() == 0 {
			b, _ := rt.Alloc[float32](c.Device(), 4)
			return Send(c, b, 1, nil)
		}
		b, _ := rt.Alloc[int32](c.Device(), 4)
		return Recv(c, b, 0, nil)
	})
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "4×int32") {
		t.Errorf("receiving int32 what was sent as float32: %v", errs[1])
	}
}

func TestBadUse(t *testing.T) {
	comms := group(t, 2)
	other, _ := rt.Alloc[float32](comms[1].Device(), 2)
	if err := AllReduce(comms[0], other, other, Sum, nil); !errors.Is(err, rt.ErrWrongDevice) {
		t.Errorf("a buffer of rank 1's device on rank 0: %v, want ErrWrongDevice", err)
	}
	mine, _ := rt.Alloc[float32](comms[0].Device(), 2)
	if err := Send(comms[0], mine, 0, nil); err == nil {
		t.Error("sending to itself succeeded")
	}
	comms[0].Close()
	if err := AllReduce(comms[0], mine, mine, Sum, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if _, err := InitAll([]*rt.Device{mine.Device(), mine.Device()}); err == nil {
		t.Error("two ranks on one device: no error")
	}
}
