package lower

import (
	"github.com/qdgo/qd/ir"
)

// assignSpaces sets the memory space of every load and store of t (every
// op the op table marks Spaces) from where its address comes from: a task
// variable's space, or global memory for slices and constant tables. The
// lowering emits addresses without caring about spaces; a pointer that may
// point into two spaces, depending on the path taken, is reported, since
// GPUs address them with different instructions.
func (l *lowerer) assignSpaces(t *ir.Task) {
	spaces := make([]uint8, len(t.Regs)) // a bit per space each address register may hold
	for changed := true; changed; {
		changed = false
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				in := &b.Instrs[i]
				var s uint8
				switch {
				case in.Op == ir.OpAddr:
					s = 1 << t.Vars[in.Aux].Space
				case in.Op == ir.OpParamBase, in.Op == ir.OpDataAddr:
					s = 1 << ir.Global
				case in.Op == ir.OpElemAddr, in.Op == ir.OpMove && in.Type == ir.Ptr:
					if a := in.Args[0]; !a.Imm {
						s = spaces[a.Reg]
					}
				default:
					continue
				}
				if spaces[in.Dst]|s != spaces[in.Dst] {
					spaces[in.Dst] |= s
					changed = true
				}
			}
		}
	}
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			if !in.Op.Info().Spaces || in.Args[0].Imm {
				continue
			}
			switch s := spaces[in.Args[0].Reg]; s {
			case 0, 1 << ir.Global:
				in.Space = ir.Global
			case 1 << ir.Local:
				in.Space = ir.Local
				if in.Op.Info().Atomic {
					l.errorf(in.Pos, "%s", atomicOnLocal("this local variable"))
				}
			case 1 << ir.Shared:
				in.Space = ir.Shared
			default:
				l.errorf(in.Pos, "this pointer points to a local variable on one path and to a slice or table on another: a GPU reaches the two kinds of memory with different instructions; copy the value into a local variable and use that on both paths")
			}
		}
	}
}
