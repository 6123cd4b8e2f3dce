package main

import (
	"fmt"
	"slices"
	"testing"

	"github.com/qdgo/qd/nccl"
	"github.com/qdgo/qd/rt"
)

// oracle runs the kernels as the Go functions they are, on the whole grid
// on the host.
func oracle(p problem) solution {
	u := make([]float32, p.nx*p.ny)
	for x := range p.nx {
		u[x] = 1
	}
	next := slices.Clone(u)
	change := make([]float32, p.ny)
	out := make([]float32, 1)
	var residuals []float32
	for range p.steps {
		JacobiRows(u, next, p.nx, 1, p.ny-1)
		RowChange(u, next, change, p.nx, 1, p.ny-1)
		MaxOf(change, out, p.ny-2)
		residuals = append(residuals, out[0])
		u, next = next, u
	}
	return solution{grid: u, residuals: residuals}
}

// The result on 1, 2 and 4 devices equals the host's bit for bit.
func TestSplitEqualsOneDevice(t *testing.T) {
	t.Setenv("QD_CPU_DEVICES", "4")
	p := problem{nx: 24, ny: 16, steps: 30}
	want := oracle(p)
	devs, err := rt.OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseAll(devs)
	for _, n := range []int{1, 2, 4} {
		if n > len(devs) {
			t.Logf("%d devices: have %d", n, len(devs))
			continue
		}
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			comms, err := nccl.InitAll(devs[:n])
			if err != nil {
				t.Fatal(err)
			}
			got, err := solve(p, comms)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.grid, want.grid) {
				t.Errorf("the grid on %d devices differs from the host's", n)
			}
			if !slices.Equal(got.residuals, want.residuals) {
				t.Errorf("residuals on %d devices: %v, want %v", n, got.residuals, want.residuals)
			}
		})
	}
}
