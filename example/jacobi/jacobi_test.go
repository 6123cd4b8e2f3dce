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
	out := make([]float32, 1)
	var residuals []float32
	for range p.steps {
		JacobiRows(u, next, p.nx, 1, p.ny-1)
		Change(u, next, out, p.nx, 1, p.ny-1)
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

// Reading the residual every 5 steps stops the solve at the first read
// at most tol, on every rank at the same step, with the grid of that step.
func TestStopsAtTolerance(t *testing.T) {
	t.Setenv("QD_CPU_DEVICES", "2")
	p := problem{nx: 16, ny: 8, steps: 200, every: 5}
	full := oracle(p)
	p.tol = full.residuals[42] // first read at or below: step 45
	stop := 0
	for s := p.every; s < p.steps; s += p.every {
		if full.residuals[s-1] <= p.tol {
			stop = s
			break
		}
	}
	if stop == 0 || stop == p.steps {
		t.Fatalf("bad test: no stop before %d steps", p.steps)
	}
	want := oracle(problem{nx: p.nx, ny: p.ny, steps: stop})
	devs, err := rt.OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseAll(devs)
	comms, err := nccl.InitAll(devs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := solve(p, comms)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.residuals) != stop || !slices.Equal(got.residuals, want.residuals) || !slices.Equal(got.grid, want.grid) {
		t.Errorf("stopped after %d steps, want %d, with the host's grid and residuals", len(got.residuals), stop)
	}
}

// The host reads nothing from a device during the steps: a trace of each
// device shows two copies to the host, the residuals and the grid at the
// end, and the halo exchange on a stream of its own.
func TestNoHostCopyEachStep(t *testing.T) {
	t.Setenv("QD_CPU_DEVICES", "2")
	p := problem{nx: 16, ny: 8, steps: 30}
	devs, err := rt.OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseAll(devs)
	comms, err := nccl.InitAll(devs)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		if err := d.StartTrace(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := solve(p, comms); err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		tr, err := d.StopTrace()
		if err != nil {
			t.Fatal(err)
		}
		copies := 0
		lanes := map[string]string{}
		for _, e := range tr.Events {
			if e.Kind == "copy" && e.Name == "copy from device" {
				copies++
			}
			if e.Kind == "kernel" || e.Kind == "collective" {
				lanes[e.Name] = e.Stream
			}
		}
		if copies != 2 {
			t.Errorf("%v: %d copies to the host in %d steps, want 2", d, copies, p.steps)
		}
		if lanes["JacobiRows"] == "" || lanes["send"] == "" || lanes["JacobiRows"] == lanes["send"] {
			t.Errorf("%v: kernels and halo sends on lanes %v, want two streams", d, lanes)
		}
	}
}

// Change finds the largest change wherever it is, with either sign, on
// the device Open gives (a GPU where there is one), as the Go function
// does.
func TestChangeFindsTheLargest(t *testing.T) {
	dev, err := rt.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ks, err := Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	const nx, ny = 37, 300
	for _, at := range []int{nx + 1, 5*nx + 17, (ny-2)*nx + nx - 2} {
		for _, sign := range []float32{1, -1} {
			u, next := make([]float32, nx*ny), make([]float32, nx*ny)
			for i := range u {
				u[i] = float32(i%13) / 16
				next[i] = u[i] + float32(i%7)/64
			}
			next[at] = u[at] + sign*3.5
			want := make([]float32, 1)
			Change(u, next, want, nx, 1, ny-1)
			if want[0] != 3.5 {
				t.Fatalf("Go's Change = %v, want 3.5", want[0])
			}
			du, _ := rt.FromSlice(dev, u)
			dn, _ := rt.FromSlice(dev, next)
			out, _ := rt.Alloc[float32](dev, 1)
			if err := ks.Change(du, dn, out, nx, 1, ny-1); err != nil {
				t.Fatal(err)
			}
			if got, err := out.Read(); err != nil || got[0] != want[0] {
				t.Errorf("largest change %v at %d: %v (%v), want %v", sign*3.5, at, got, err, want[0])
			}
		}
	}
}
