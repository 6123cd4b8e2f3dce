// Package nccl runs collectives (all-reduce, broadcast, point-to-point
// sends) between the devices of a qd program, one communicator per
// device.
//
// On GPUs the collectives are NCCL's, from libnccl.so.2 (RCCL's librccl.so
// on AMD GPUs), loaded at run time, queued on qd streams. On the CPU
// backend a communicator of qd's own runs the same calls, so that the
// logic of a program split across devices runs and is tested without
// GPUs. Its ranks are goroutines of one process, each driving one of the
// CPU backend's pretend devices (InitAll, with rt.OpenAll and
// QD_CPU_DEVICES), or processes connected over TCP (InitFromEnv, reading
// the variables torchrun and cmd/qdrun set: RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT). Every
// rendezvous has a timeout: a rank that never arrives is an error naming
// it, and ranks calling different collectives get an error saying which
// called what. Reductions are made in rank order, so results are the same
// in every run.
package nccl

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/qdgo/qd/rt"
)

// ErrClosed is returned when a closed communicator is used.
var ErrClosed = errors.New("use of a closed communicator")

// DefaultTimeout bounds every rendezvous of communicators made without
// WithTimeout.
const DefaultTimeout = 60 * time.Second

// Comm is one rank's communicator: a device, its rank and the number of
// ranks. A Comm is used by one goroutine at a time. After a collective
// fails, messages of the failed call may remain in flight: close the
// group's communicators and make new ones, as NCCL requires too.
type Comm struct {
	dev     *rt.Device
	rank    int
	size    int
	net     transport // the CPU backend's
	gpu     *gpuComm  // NCCL's, on a GPU
	timeout time.Duration
	closed  atomic.Bool
	// group holds the calls of a Group in progress on GPUs that go to
	// streams of a recording (record.go).
	group *pendingGroup
}

// Option configures InitAll.
type Option struct{ timeout time.Duration }

// WithTimeout bounds every rendezvous of the communicators: a rank that
// has not arrived by then is an error naming it.
func WithTimeout(d time.Duration) Option { return Option{timeout: d} }

// InitAll makes one communicator for each device, all of one group, rank
// i for devs[i]: on GPUs with ncclCommInitAll. The devices must be
// distinct devices of one backend.
func InitAll(devs []*rt.Device, opts ...Option) ([]*Comm, error) {
	const op = "nccl: init all"
	if len(devs) == 0 {
		return nil, fmt.Errorf("%s: no devices", op)
	}
	timeout := timeoutOf(opts)
	seen := map[*rt.Device]bool{}
	for i, d := range devs {
		if d.Backend() != devs[0].Backend() {
			return nil, fmt.Errorf("%s: rank %d is on %v, rank 0 on %v; all ranks need one backend", op, i, d, devs[0])
		}
		if seen[d] {
			return nil, fmt.Errorf("%s: rank %d's device %v is another rank's too; give each rank its own device", op, i, d)
		}
		seen[d] = true
	}
	if !devs[0].IsCPU() {
		gpus, err := initAllGPU(devs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		comms := make([]*Comm, len(devs))
		for i, d := range devs {
			comms[i] = &Comm{dev: d, rank: i, gpu: gpus[i], timeout: timeout, size: len(devs)}
		}
		return comms, nil
	}
	h := newHub(len(devs))
	comms := make([]*Comm, len(devs))
	for i, d := range devs {
		comms[i] = &Comm{dev: d, rank: i, net: h, timeout: timeout, size: len(devs)}
	}
	return comms, nil
}

// Rank returns the communicator's rank, from 0.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks.
func (c *Comm) Size() int { return c.size }

// Device returns the device of the communicator's rank.
func (c *Comm) Device() *rt.Device { return c.dev }

// Close ends the communicator's use; closing twice is harmless.
func (c *Comm) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	if c.gpu != nil {
		return c.gpu.close()
	}
	return c.net.close()
}

// check is the error of using c for op with buf, if it may not be used.
func check[T rt.Element](c *Comm, op string, bufs ...*rt.Buffer[T]) error {
	if c.closed.Load() {
		return opError(c, op, ErrClosed)
	}
	for _, b := range bufs {
		if b == nil {
			return opError(c, op, errors.New("nil buffer"))
		}
		if b.Device() != c.dev {
			return opError(c, op, fmt.Errorf("%w: a buffer of %v, the communicator's device is %v", rt.ErrWrongDevice, b.Device(), c.dev))
		}
	}
	return nil
}

func opError(c *Comm, op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("nccl: %s on rank %d: %w", op, c.rank, err)
}
