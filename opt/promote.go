package opt

import (
	"sort"

	"github.com/qdgo/qd/ir"
)

// maxPromotedSlots bounds the registers one variable may become.
const maxPromotedSlots = 64

// PromoteLocals moves the task's local variables that are accessed only at
// known offsets into registers: each scalar the variable holds becomes a
// register, a load from it a move out of that register, a store a move
// into it. Local memory is as slow as global memory on a GPU; with this
// pass small structs and arrays indexed by constants cost nothing. A
// variable whose address is used any other way (indexed by a register,
// compared, stored, read at one offset as two types) stays in memory.
func PromoteLocals(t *ir.Task) {
	if len(t.Vars) == 0 {
		return
	}
	roots := pointsInto(t)
	places := exactPlaces(t)
	ok := make([]bool, len(t.Vars))
	for i, v := range t.Vars {
		ok[i] = v.Space == ir.Local
	}
	slots := make([]map[int64]ir.Type, len(t.Vars))
	reject := func(r ir.Reg) {
		for o := range roots[r] {
			if o.kind == variable {
				ok[o.index] = false
			}
		}
	}
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			for j, a := range in.Args {
				if a.Imm || roots[a.Reg] == nil || j == 0 && derivesAddress(in) {
					continue
				}
				p, known := places[in]
				access := j == 0 && (in.Op == ir.OpLoad || in.Op == ir.OpStore) && in.Space == ir.Local
				if !access || !known || p.at.kind != variable || len(roots[a.Reg]) != 1 {
					reject(a.Reg)
					continue
				}
				v := p.at.index
				if slots[v] == nil {
					slots[v] = map[int64]ir.Type{}
				}
				if old, seen := slots[v][p.off]; seen && old != in.Type {
					ok[v] = false
				}
				slots[v][p.off] = in.Type
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm && roots[c.Reg] != nil {
			reject(c.Reg)
		}
	}
	regs := make([]map[int64]ir.Reg, len(t.Vars))
	changed := false
	for v := range t.Vars {
		if ok[v] && fits(t.Vars[v], slots[v]) {
			regs[v] = map[int64]ir.Reg{}
			for _, off := range sortedOffsets(slots[v]) {
				regs[v][off] = t.NewReg(slots[v][off])
			}
			changed = true
		}
	}
	if !changed {
		return
	}
	promoted := func(r ir.Reg) bool {
		for o := range roots[r] {
			if o.kind != variable || regs[o.index] == nil {
				return false
			}
		}
		return len(roots[r]) > 0
	}
	for _, b := range t.Blocks {
		kept := b.Instrs[:0]
		for i := range b.Instrs {
			in := b.Instrs[i]
			switch {
			case isAddressDef(&in) && promoted(in.Dst):
				continue // only promoted accesses used it
			case (in.Op == ir.OpLoad || in.Op == ir.OpStore) && !in.Args[0].Imm && promoted(in.Args[0].Reg):
				p := places[&b.Instrs[i]]
				slot := regs[p.at.index][p.off]
				if in.Op == ir.OpLoad {
					in = ir.Instr{Op: ir.OpMove, Type: in.Type, Dst: in.Dst, Args: []ir.Arg{ir.R(slot)}, Pos: in.Pos}
				} else {
					in = ir.Instr{Op: ir.OpMove, Type: in.Type, Dst: slot, Args: []ir.Arg{in.Args[1]}, Pos: in.Pos}
				}
			}
			kept = append(kept, in)
		}
		b.Instrs = kept
	}
	removeVars(t, func(v int) bool { return regs[v] != nil })
}

// fits reports whether the slots of a variable lie inside it without
// overlapping, and are few enough for registers.
func fits(v ir.Var, slots map[int64]ir.Type) bool {
	if len(slots) > maxPromotedSlots {
		return false
	}
	end := int64(0)
	for _, off := range sortedOffsets(slots) {
		if off < end {
			return false
		}
		end = off + int64(slots[off].Size())
	}
	return end <= int64(v.Size)
}

func sortedOffsets(slots map[int64]ir.Type) []int64 {
	offs := make([]int64, 0, len(slots))
	for off := range slots {
		offs = append(offs, off)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	return offs
}

// removeVars deletes the variables drop selects, which nothing addresses
// any more, and renumbers the others.
func removeVars(t *ir.Task, drop func(v int) bool) {
	index := make([]int64, len(t.Vars))
	kept := t.Vars[:0]
	for v, vr := range t.Vars {
		index[v] = int64(len(kept))
		if !drop(v) {
			kept = append(kept, vr)
		}
	}
	t.Vars = kept
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			if in := &b.Instrs[i]; in.Op == ir.OpAddr {
				in.Aux = index[in.Aux]
			}
		}
	}
}
