package opt

import (
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/ir"
)

// TestDivideByReciprocal runs the sequence of DivideByInvariants on the
// reference semantics for divisors and dividends at the edges of 32 bits
// and at random.
func TestDivideByReciprocal(t *testing.T) {
	u := ir.Uint32
	task := &ir.Task{Kind: ir.Serial, Name: "t"}
	n, d, q := task.NewReg(u), task.NewReg(u), task.NewReg(u)
	s := &seq{t: task}
	m := s.op(ir.OpDiv, u, ir.Imm(u, 1<<32-1), ir.R(d))
	r := s.divideByReciprocal(q, ir.R(n), ir.R(d), m)
	run := func(nv, dv uint64) {
		regs := make([]uint64, len(task.Regs))
		regs[n], regs[d] = nv, dv
		for _, in := range s.out {
			args := make([]uint64, len(in.Args))
			for i, a := range in.Args {
				args[i] = a.Bits
				if !a.Imm {
					args[i] = regs[a.Reg]
				}
			}
			v, err := ir.Fold(&in, args)
			if err != nil {
				t.Fatal(err)
			}
			regs[in.Dst] = v
		}
		if regs[q] != nv/dv || regs[r.Reg] != nv%dv {
			t.Fatalf("%d / %d: got %d rem %d", nv, dv, regs[q], regs[r.Reg])
		}
	}
	edges := []uint64{0, 1, 2, 3, 7, 10, 1<<16 - 1, 1 << 16, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 2, 1<<32 - 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dv := range edges[1:] {
		for _, nv := range edges {
			run(nv, dv)
			run(nv*dv&(1<<32-1), dv)
		}
	}
	for range 200000 {
		dv := rng.Uint64N(1<<32-1) + 1
		if rng.IntN(2) == 0 {
			dv = rng.Uint64N(1<<12) + 1
		}
		nv := rng.Uint64N(1 << 32)
		run(nv, dv)
		run(nv-nv%dv, dv)
		if nv >= dv {
			run(nv-nv%dv-1, dv)
		}
	}
}
