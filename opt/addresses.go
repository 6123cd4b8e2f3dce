package opt

import "github.com/qdgo/qd/ir"

// This file finds which task variables and constant tables the address
// registers of a task may point into, and the exact address each load and
// store accesses where it is known: a variable or table and a constant
// offset. The passes that move variables into registers and fold loads
// from tables use it.

// memoryKind says whether an object is a task variable or a kernel's
// constant table.
type memoryKind uint8

const (
	variable memoryKind = iota
	table
)

// object is a task variable or a constant table, by index.
type object struct {
	kind  memoryKind
	index int64
}

// place is an exact address: an offset into an object.
type place struct {
	at  object
	off int64
}

// pointsInto returns, for every register of t that may hold the address
// of a variable or table, the objects it may point into: the registers
// that addr, dataaddr, elemaddr and moves of addresses define, to a fixed
// point, whatever the paths.
func pointsInto(t *ir.Task) map[ir.Reg]map[object]bool {
	roots := map[ir.Reg]map[object]bool{}
	add := func(r ir.Reg, o object) bool {
		if roots[r] == nil {
			roots[r] = map[object]bool{}
		}
		if roots[r][o] {
			return false
		}
		roots[r][o] = true
		return true
	}
	for changed := true; changed; {
		changed = false
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				in := &b.Instrs[i]
				switch {
				case in.Op == ir.OpAddr:
					changed = add(in.Dst, object{variable, in.Aux}) || changed
				case in.Op == ir.OpDataAddr:
					changed = add(in.Dst, object{table, in.Aux}) || changed
				case derivesAddress(in):
					for o := range roots[in.Args[0].Reg] {
						changed = add(in.Dst, o) || changed
					}
				}
			}
		}
	}
	return roots
}

// derivesAddress reports whether in computes an address from the address
// in its first operand.
func derivesAddress(in *ir.Instr) bool {
	return (in.Op == ir.OpElemAddr || in.Op == ir.OpMove && in.Type == ir.Ptr) && !in.Args[0].Imm
}

// exactPlaces returns the exact address of the first operand of every
// instruction of t whose first operand is an address register, where it
// is known. Within a block an address register holds what its last
// definition there computed; a register not defined earlier in the block
// is known when every definition of it in the task gives the same place.
func exactPlaces(t *ir.Task) map[*ir.Instr]place {
	global := map[ir.Reg]*placeState{}
	for changed := true; changed; {
		changed = false
		for _, b := range t.Blocks {
			scanPlaces(b, global, func(in *ir.Instr, p place, st status) {
				if !isAddressDef(in) || st == pending {
					return
				}
				g := global[in.Dst]
				if g == nil {
					g = &placeState{}
					global[in.Dst] = g
				}
				switch {
				case g.bad:
				case st == unknown, g.set && g.p != p:
					g.bad, changed = true, true
				case !g.set:
					g.set, g.p, changed = true, p, true
				}
			})
		}
	}
	places := map[*ir.Instr]place{}
	for _, b := range t.Blocks {
		scanPlaces(b, global, func(in *ir.Instr, p place, st status) {
			if st == known {
				places[in] = p
			}
		})
	}
	return places
}

// placeState is what is known of an address register across the task.
type placeState struct {
	set, bad bool
	p        place
}

type status uint8

const (
	known   status = iota
	unknown        // not an exact address
	pending        // depends on a register not settled yet
)

func isAddressDef(in *ir.Instr) bool {
	return in.Op == ir.OpAddr || in.Op == ir.OpDataAddr || derivesAddress(in)
}

// scanPlaces walks b and calls visit for each instruction with the place
// of its first operand, or, for an instruction that computes an address,
// of its result.
func scanPlaces(b *ir.Block, global map[ir.Reg]*placeState, visit func(in *ir.Instr, p place, st status)) {
	local := map[ir.Reg]place{}
	defined := map[ir.Reg]bool{}
	lookup := func(r ir.Reg) (place, status) {
		if defined[r] {
			if p, ok := local[r]; ok {
				return p, known
			}
			return place{}, unknown
		}
		switch g := global[r]; {
		case g == nil || !g.set && !g.bad:
			return place{}, pending
		case g.bad:
			return place{}, unknown
		}
		return global[r].p, known
	}
	for i := range b.Instrs {
		in := &b.Instrs[i]
		var p place
		st := unknown
		switch {
		case in.Op == ir.OpAddr:
			p, st = place{object{variable, in.Aux}, 0}, known
		case in.Op == ir.OpDataAddr:
			p, st = place{object{table, in.Aux}, 0}, known
		case derivesAddress(in):
			p, st = lookup(in.Args[0].Reg)
			if in.Op == ir.OpElemAddr && st == known {
				if idx := in.Args[1]; idx.Imm {
					p.off += int64(idx.Bits) * in.Aux
				} else {
					st = unknown
				}
			}
		case len(in.Args) > 0 && !in.Args[0].Imm:
			p, st = lookup(in.Args[0].Reg)
		}
		visit(in, p, st)
		if in.Dst != ir.NoReg {
			defined[in.Dst] = true
			delete(local, in.Dst)
			if isAddressDef(in) && st == known {
				local[in.Dst] = p
			}
		}
	}
}
