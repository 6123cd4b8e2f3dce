// Command jacobi relaxes a 2-D heat problem with Jacobi steps, its rows
// split across every device (rt.OpenAll; QD_CPU_DEVICES pretend devices on
// the CPU): each step exchanges edge rows with the neighbours while the
// inner rows are updated, and all-reduces the largest change. It checks
// that the result equals a run on one device bit for bit.
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
	flag.Parse()
	log.SetFlags(0)
	devs, err := rt.OpenAll()
	if err != nil {
		log.Fatal(err)
	}
	defer rt.CloseAll(devs)
	p := problem{*nx, *ny, *steps}
	start := time.Now()
	all, err := run(p, devs)
	if err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)
	one, err := run(p, devs[:1])
	if err != nil {
		log.Fatal(err)
	}
	same := slices.Equal(all.grid, one.grid) && slices.Equal(all.residuals, one.residuals)
	fmt.Printf("jacobi %d×%d, %d steps on %d devices (%v): %v, residual %g, same as on one device: %v\n",
		p.nx, p.ny, p.steps, len(devs), devs[0], elapsed, all.residuals[p.steps-1], same)
	if !same {
		log.Fatal("the split run differs from the run on one device")
	}
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
