package opt

import (
	"sort"

	"github.com/qdgo/qd/ir"
)

// HoistInvariants moves the computations a loop repeats with the same
// operands on every iteration, like i*n in a matrix product's inner loop,
// to a preheader that runs once before the loop. An instruction moves when
// it is pure (or reads a kernel parameter), its result is assigned only
// there and that assignment dominates every read, and none of its operands
// is assigned in the loop. Integer division stays where it is: moved out
// of a loop that would not have run, a division by zero would divide
// where Go does not. Inner loops go first, so that what leaves them can
// leave the loops around them too.
func HoistInvariants(t *ir.Task) {
	for round := 0; round < 16; round++ {
		loops := t.Loops()
		sort.SliceStable(loops, func(i, j int) bool { return len(loops[i].Blocks()) < len(loops[j].Blocks()) })
		moved := false
		for _, lp := range loops {
			if hoist(t, lp) {
				moved = true
				break // the loops changed: a preheader was added
			}
		}
		if !moved {
			return
		}
	}
}

// hoist moves the invariant instructions of lp and reports whether any moved.
func hoist(t *ir.Task, lp *ir.Loop) bool {
	defs := defSites(t)
	single := singleDefs(t, defs, t.Dominators())
	inLoop := definedIn(t, lp)
	var moved []ir.Instr
	for changed := true; changed; {
		changed = false
		for _, bi := range lp.Blocks() {
			b := t.Blocks[bi]
			kept := b.Instrs[:0]
			for _, x := range b.Instrs {
				if invariant(&x, single, inLoop) {
					moved = append(moved, x)
					inLoop[x.Dst] = false
					changed = true
					continue
				}
				kept = append(kept, x)
			}
			b.Instrs = kept
		}
	}
	if len(moved) == 0 {
		return false
	}
	pre := preheader(t, lp)
	pre.Instrs = append(pre.Instrs, moved...)
	return true
}

func invariant(x *ir.Instr, single, inLoop []bool) bool {
	if x.Dst == ir.NoReg || !single[x.Dst] || !hoistable(x) {
		return false
	}
	for _, a := range x.Args {
		if !a.Imm && inLoop[a.Reg] {
			return false
		}
	}
	return true
}

// hoistable reports whether x may run before a loop instead of in it, once
// its operands are available there.
func hoistable(x *ir.Instr) bool {
	info := x.Op.Info()
	switch {
	case info.SideEffects || info.Memory != ir.MemNone:
		return false
	case x.Op == ir.OpDiv && x.Type.IsInteger() || x.Op == ir.OpRem:
		return false
	}
	return info.Pure || x.Op == ir.OpParam || x.Op == ir.OpParamBase || x.Op == ir.OpParamLen || x.Op == ir.OpThreadCount
}
