package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/qdgo/qd/nccl"
	"github.com/qdgo/qd/rt"
)

// problem is a grid ny rows by nx columns, held at 1 along its top row and
// at 0 along its other edges, relaxed for steps Jacobi steps. Every every
// steps (0: never) the residual is read on the host, and the solve stops
// once it is at most tol.
type problem struct {
	nx, ny, steps int
	every         int
	tol           float32
}

// solution is the grid after the steps, the largest change of a point at
// each step, and how long the steps took on the slowest rank.
type solution struct {
	grid      []float32
	residuals []float32
	elapsed   time.Duration
}

// solve splits the rows of the grid between the communicators' devices,
// one goroutine per rank, and gathers the result.
func solve(p problem, comms []*nccl.Comm) (solution, error) {
	n := len(comms)
	if p.ny%n != 0 || p.ny/n < 2 {
		return solution{}, fmt.Errorf("%d rows do not split into %d parts of at least 2", p.ny, n)
	}
	parts := make([]solution, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range comms {
		wg.Go(func() { parts[i], errs[i] = solveRank(p, c) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			return solution{}, fmt.Errorf("rank %d: %w", r, err)
		}
	}
	sol := solution{residuals: parts[0].residuals}
	for _, part := range parts {
		sol.grid = append(sol.grid, part.grid...)
		sol.elapsed = max(sol.elapsed, part.elapsed)
	}
	return sol, nil
}

// rank is one rank's part of the grid: rows rows of the grid, as local
// rows 1 to rows of u and next, between ghost rows 0 and rows+1 that hold
// the neighbours' edge rows.
type rank struct {
	p       problem
	c       *nccl.Comm
	ks      *Kernels
	rows    int
	u, next *rt.Buffer[float32]
	history *rt.Buffer[float32] // the residual of each step
	// compute runs the updates, halo the exchange of edge rows, at the
	// same time; the events order one after the other.
	compute, halo       *rt.Stream
	computed, exchanged *rt.Event
}

// solveRank runs the steps of one rank. The residual of each step stays on
// the device, in history, all-reduced there: the host reads it only every
// p.every steps and once at the end, so that no step waits for the host.
func solveRank(p problem, c *nccl.Comm) (solution, error) {
	r, err := newRank(p, c)
	if err != nil {
		return solution{}, err
	}
	if err := r.warmUp(); err != nil {
		return solution{}, fmt.Errorf("warming up: %w", err)
	}
	start := time.Now()
	done := p.steps
	host := make([]float32, 1)
	for step := range p.steps {
		if err := r.step(step); err != nil {
			return solution{}, fmt.Errorf("step %d: %w", step, err)
		}
		r.u, r.next = r.next, r.u
		if p.every > 0 && (step+1)%p.every == 0 && step+1 < p.steps {
			// Every rank reads the same all-reduced residual, so all
			// stop at the same step.
			if err := r.history.Slice(step, step+1).CopyToAsync(host, r.compute); err != nil {
				return solution{}, err
			}
			if host[0] <= p.tol {
				done = step + 1
				break
			}
		}
	}
	residuals := make([]float32, done)
	if err := r.history.Slice(0, done).CopyToAsync(residuals, r.compute); err != nil {
		return solution{}, err
	}
	if err := r.compute.Synchronize(); err != nil {
		return solution{}, err
	}
	elapsed := time.Since(start)
	all, err := r.u.Read()
	if err != nil {
		return solution{}, err
	}
	return solution{grid: all[p.nx : (r.rows+1)*p.nx], residuals: residuals, elapsed: elapsed}, nil
}

// warmUp makes the first exchange and all-reduce, which set up the
// communicator's connections, before the steps are timed. Neither changes
// the result: the ghost rows get the rows step 0 sends them again, and
// step 0 overwrites the residual.
func (r *rank) warmUp() error {
	if err := r.c.Group(r.exchange); err != nil {
		return err
	}
	slot := r.history.Slice(0, 1)
	if err := nccl.AllReduce(r.c, slot, slot, nccl.Max, r.compute); err != nil {
		return err
	}
	if err := r.halo.Synchronize(); err != nil {
		return err
	}
	return r.compute.Synchronize()
}

func newRank(p problem, c *nccl.Comm) (*rank, error) {
	dev := c.Device()
	ks, err := Load(dev)
	if err != nil {
		return nil, err
	}
	r := &rank{p: p, c: c, ks: ks, rows: p.ny / c.Size()}
	start := make([]float32, (r.rows+2)*p.nx)
	if c.Rank() == 0 {
		for x := range p.nx {
			start[p.nx+x] = 1 // the top row of the grid
		}
	}
	if r.u, err = rt.FromSlice(dev, start); err != nil {
		return nil, err
	}
	if r.next, err = rt.FromSlice(dev, start); err != nil {
		return nil, err
	}
	if r.history, err = rt.Alloc[float32](dev, p.steps); err != nil {
		return nil, err
	}
	if r.compute, err = dev.NewStream(); err != nil {
		return nil, err
	}
	if r.halo, err = dev.NewStream(); err != nil {
		return nil, err
	}
	if r.computed, err = dev.NewEvent(); err != nil {
		return nil, err
	}
	r.exchanged, err = dev.NewEvent()
	return r, err
}

// updated is the local rows [lo, hi) whose points change: all but the
// grid's top and bottom rows.
func (r *rank) updated() (lo, hi int) {
	lo, hi = 1, r.rows+1
	if r.c.Rank() == 0 {
		lo++
	}
	if r.c.Rank() == r.c.Size()-1 {
		hi--
	}
	return lo, hi
}

// step is one Jacobi step: the edge rows go to the neighbours on the halo
// stream while the rows that need no halo are updated on the compute
// stream; then the edge rows are updated, and the largest change of all
// ranks is reduced into the step's element of history, on the device.
func (r *rank) step(step int) error {
	nx := r.p.nx
	lo, hi := r.updated()
	inner := rt.OnStream(r.compute)
	if err := r.computed.Record(r.compute); err != nil {
		return err
	}
	if err := r.computed.Wait(r.halo); err != nil {
		return err
	}
	if err := r.c.Group(r.exchange); err != nil {
		return err
	}
	if err := r.exchanged.Record(r.halo); err != nil {
		return err
	}
	if a, b := max(lo, 2), min(hi, r.rows); a < b {
		if err := r.ks.JacobiRows(r.u, r.next, nx, a, b, inner); err != nil {
			return err
		}
	}
	if err := r.exchanged.Wait(r.compute); err != nil {
		return err
	}
	// The edge rows, which read the ghost rows (rows is at least 2).
	for _, row := range []int{1, r.rows} {
		if row >= lo && row < hi {
			if err := r.ks.JacobiRows(r.u, r.next, nx, row, row+1, inner); err != nil {
				return err
			}
		}
	}
	residual := r.history.Slice(step, step+1)
	if err := r.ks.Change(r.u, r.next, residual, nx, lo, hi, inner); err != nil {
		return err
	}
	return nccl.AllReduce(r.c, residual, residual, nccl.Max, r.compute)
}

// exchange sends the first and last rows of the rank's part to its
// neighbours and receives theirs into the ghost rows, on the halo stream.
func (r *rank) exchange() error {
	nx, me, n := r.p.nx, r.c.Rank(), r.c.Size()
	row := func(i int) *rt.Buffer[float32] { return r.u.Slice(i*nx, (i+1)*nx) }
	if me > 0 {
		if err := nccl.Send(r.c, row(1), me-1, r.halo); err != nil {
			return err
		}
	}
	if me < n-1 {
		if err := nccl.Send(r.c, row(r.rows), me+1, r.halo); err != nil {
			return err
		}
	}
	if me > 0 {
		if err := nccl.Recv(r.c, row(0), me-1, r.halo); err != nil {
			return err
		}
	}
	if me < n-1 {
		if err := nccl.Recv(r.c, row(r.rows+1), me+1, r.halo); err != nil {
			return err
		}
	}
	return nil
}
