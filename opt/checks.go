package opt

import (
	"slices"

	"github.com/qdgo/qd/ir"
)

// RemoveRepeatedChecks deletes a check that repeats an earlier one of the
// same block on the same operands, as the load and the store of y[i] in
// y[i] += x do: if the first passed, so does the second, and if it failed
// the thread ended there.
func RemoveRepeatedChecks(t *ir.Task) {
	for _, b := range t.Blocks {
		var done []ir.Instr // the checks so far whose operands still hold
		kept := b.Instrs[:0]
		for _, in := range b.Instrs {
			if in.Op.Info().Checks {
				if slices.ContainsFunc(done, func(c ir.Instr) bool { return sameCheck(&c, &in) }) {
					continue
				}
				done = append(done, in)
			}
			for _, d := range in.Defs() {
				done = slices.DeleteFunc(done, func(c ir.Instr) bool { return reads(&c, d) })
			}
			kept = append(kept, in)
		}
		b.Instrs = kept
	}
}

func sameCheck(a, b *ir.Instr) bool {
	return a.Op == b.Op && a.Type == b.Type && slices.Equal(a.Args, b.Args)
}

func reads(in *ir.Instr, r ir.Reg) bool {
	for _, a := range in.Args {
		if !a.Imm && a.Reg == r {
			return true
		}
	}
	return false
}
