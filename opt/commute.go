package opt

import "github.com/qdgo/qd/ir"

// CommuteImmediates puts the immediate operand of a commutative operation
// second, as compilers canonically do; ptxas then keeps constants out of
// the registers it accumulates into.
func CommuteImmediates(t *ir.Task) {
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			switch in.Op {
			case ir.OpAdd, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpMin, ir.OpMax, ir.OpEq, ir.OpNe, ir.OpMulHi:
				if len(in.Args) == 2 && in.Args[0].Imm && !in.Args[1].Imm {
					in.Args[0], in.Args[1] = in.Args[1], in.Args[0]
				}
			case ir.OpLt, ir.OpGt, ir.OpLe, ir.OpGe:
				if in.Args[0].Imm && !in.Args[1].Imm {
					in.Args[0], in.Args[1] = in.Args[1], in.Args[0]
					in.Op = map[ir.Op]ir.Op{ir.OpLt: ir.OpGt, ir.OpGt: ir.OpLt, ir.OpLe: ir.OpGe, ir.OpGe: ir.OpLe}[in.Op]
				}
			}
		}
	}
}
