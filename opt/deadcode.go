package opt

import "github.com/qdgo/qd/ir"

// RemoveDeadCode deletes instructions whose results nothing reads. A
// function's results are read by its callers.
func RemoveDeadCode(t *ir.Task) {
	for {
		used := make([]bool, len(t.Regs))
		for _, r := range t.Results {
			used[r] = true
		}
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				for _, a := range b.Instrs[i].Args {
					if !a.Imm {
						used[a.Reg] = true
					}
				}
			}
			if b.Term.Kind == ir.Branch && !b.Term.Cond.Imm {
				used[b.Term.Cond.Reg] = true
			}
		}
		removed := false
		for _, b := range t.Blocks {
			kept := b.Instrs[:0]
			for _, in := range b.Instrs {
				if in.Op.Info().SideEffects || in.Dst == ir.NoReg || used[in.Dst] {
					kept = append(kept, in)
				} else {
					removed = true
				}
			}
			b.Instrs = kept
		}
		if !removed {
			return
		}
	}
}
