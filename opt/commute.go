package opt

import "github.com/qdgo/qd/ir"

// CommuteImmediates puts the immediate operand of a commutative operation
// second, as compilers canonically do; ptxas then keeps constants out of
// the registers it accumulates into. An ordered comparison with the
// immediate first becomes its mirror: 1 < x is x > 1.
func CommuteImmediates(t *ir.Task) {
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			if len(in.Args) != 2 || !in.Args[0].Imm || in.Args[1].Imm {
				continue
			}
			switch info := in.Op.Info(); {
			case info.Commutative:
				in.Args[0], in.Args[1] = in.Args[1], in.Args[0]
			case info.Mirror != ir.OpInvalid:
				in.Args[0], in.Args[1] = in.Args[1], in.Args[0]
				in.Op = info.Mirror
			}
		}
	}
}
