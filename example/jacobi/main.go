// Command jacobi relaxes a 2-D heat problem with Jacobi steps, its rows
// split across every device (rt.OpenAll; QD_CPU_DEVICES pretend devices on
// the CPU): each step exchanges edge rows with the neighbours on one
// stream while the inner rows are updated on another, and all-reduces the
// largest change on the device, which the host reads only every -every
// steps and at the end. It checks that the result equals a run on one
// device bit for bit; with -weak it measures weak scaling instead, on 1,
// 2, … devices with the same rows each.
//
//	QD_CPU_DEVICES=4 QD_BACKEND=cpu go run ./example/jacobi
//	go run ./example/jacobi -nx 16384 -weak 8192 -steps 200   # every GPU
package main

import (
	"flag"
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/qdgo/qd/nccl"
	"github.com/qdgo/qd/rt"
)

func main() {
	nx := flag.Int("nx", 256, "columns")
	ny := flag.Int("ny", 256, "rows, split between the devices")
	steps := flag.Int("steps", 100, "Jacobi steps")
	every := flag.Int("every", 0, "read the residual on the host every this many steps, to stop at -tol (0: only at the end)")
	tol := flag.Float64("tol", 0, "stop once the residual read every -every steps is at most this")
	check := flag.Bool("check", true, "check that the result equals a run on one device")
	weak := flag.Int("weak", 0, "rows per device: run on 1, 2, … devices with this many rows each, and print the weak-scaling efficiency")
	flag.Parse()
	log.SetFlags(0)
	if *steps < 1 {
		log.Fatal("-steps must be at least 1")
	}
	devs, err := rt.OpenAll()
	if err != nil {
		log.Fatal(err)
	}
	defer rt.CloseAll(devs)
	p := problem{nx: *nx, ny: *ny, steps: *steps, every: *every, tol: float32(*tol)}
	if *weak > 0 {
		err = weakScaling(p, *weak, devs, *check)
	} else {
		err = once(p, devs, *check)
	}
	if err != nil {
		rt.CloseAll(devs)
		log.Fatal(err)
	}
}

// once solves p on every device and, with check, compares the result with
// a run on one device.
func once(p problem, devs []*rt.Device, check bool) error {
	all, err := run(p, devs)
	if err != nil {
		return err
	}
	fmt.Printf("jacobi %d×%d, %d steps on %d devices (%v): %v, %.3f ms a step, residual %g\n",
		p.nx, p.ny, len(all.residuals), len(devs), devs[0], all.elapsed, perStep(all), all.residuals[len(all.residuals)-1])
	if !check {
		return nil
	}
	return sameAsOne(p, all, devs)
}

// sameAsOne checks that got, the result of p on several devices, equals
// the result on the first device alone bit for bit.
func sameAsOne(p problem, got solution, devs []*rt.Device) error {
	one, err := run(p, devs[:1])
	if err != nil {
		return err
	}
	same := slices.Equal(got.grid, one.grid) && slices.Equal(got.residuals, one.residuals)
	fmt.Printf("same as on one device: %v\n", same)
	if !same {
		return fmt.Errorf("the run on %d devices differs from the run on one device", len(devs))
	}
	return nil
}

// weakScaling solves a grid of rows rows per device on 1, 2, … devices and
// prints the time of a step on each and the efficiency, the time on one
// device over the time on n: 100% when the work of n devices takes as
// long as that of one. With check, the run on every device is compared
// with one on a single device.
func weakScaling(p problem, rows int, devs []*rt.Device, check bool) error {
	fmt.Printf("jacobi weak scaling: %d columns, %d rows a device, %d steps (%v)\n", p.nx, rows, p.steps, devs[0])
	var first float64
	var last solution
	for n := 1; n <= len(devs); n++ {
		p.ny = rows * n
		sol, err := run(p, devs[:n])
		if err != nil {
			return fmt.Errorf("%d devices: %w", n, err)
		}
		ms := perStep(sol)
		if n == 1 {
			first = ms
		}
		fmt.Printf("devices %d: %.3f ms a step, efficiency %.1f%%\n", n, ms, 100*first/ms)
		last = sol
	}
	if !check || len(devs) == 1 {
		return nil
	}
	return sameAsOne(p, last, devs)
}

// perStep is the time of one step in milliseconds.
func perStep(s solution) float64 {
	return float64(s.elapsed) / float64(time.Millisecond) / float64(len(s.residuals))
}

// run solves p on devs.
func run(p problem, devs []*rt.Device) (solution, error) {
	comms, err := nccl.InitAll(devs)
	if err != nil {
		return solution{}, err
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	return solve(p, comms)
}
