package opt

import (
	"math"

	"github.com/qdgo/qd/ir"
)

// PropagateConstants finds the registers that hold the same constant on
// every path that reaches an instruction, following only the branches
// that can be taken, and puts the constants in: operands become
// immediates, pure instructions of constants become moves of their value,
// identities such as x*1 and x+0 become moves, and branches on constants
// become jumps. A loop whose copies were fully unrolled thus loses its
// index tests and its back edge, and SimplifyCFG removes what is left
// unreachable.
func PropagateConstants(t *ir.Task) {
	in := constantsIn(t)
	for bi, b := range t.Blocks {
		if in[bi] == nil {
			continue // unreachable
		}
		state := append([]value(nil), in[bi]...)
		for i := range b.Instrs {
			x := &b.Instrs[i]
			// A call's operands have no types of their own (its callee's
			// parameters give them) and stay registers.
			types := x.ArgTypes()
			for j, a := range x.Args {
				if j < len(types) && !a.Imm && state[a.Reg].known {
					x.Args[j] = ir.Imm(types[j], state[a.Reg].bits)
				}
			}
			simplify(x)
			transfer(state, x)
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm && state[c.Reg].known {
			b.Term.Cond = ir.Imm(ir.Bool, state[c.Reg].bits)
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && c.Imm {
			target := b.Term.Succs[1]
			if c.Bits != 0 {
				target = b.Term.Succs[0]
			}
			b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{target}}
		}
	}
}

// value is what is known of a register at a point: a constant, or nothing.
type value struct {
	known bool
	bits  uint64
}

// constantsIn computes the known registers at the start of each block; nil
// for the blocks no executable branch reaches.
func constantsIn(t *ir.Task) [][]value {
	in := make([][]value, len(t.Blocks))
	in[0] = make([]value, len(t.Regs)) // nothing is known at the entry
	work := []int{0}
	for len(work) > 0 {
		bi := work[len(work)-1]
		work = work[:len(work)-1]
		b := t.Blocks[bi]
		state := append([]value(nil), in[bi]...)
		for i := range b.Instrs {
			transfer(state, &b.Instrs[i])
		}
		for _, s := range executable(&b.Term, state) {
			if in[s] == nil {
				in[s] = append([]value(nil), state...)
				work = append(work, s)
				continue
			}
			changed := false
			for r, v := range in[s] {
				if v.known && (!state[r].known || state[r].bits != v.bits) {
					in[s][r] = value{}
					changed = true
				}
			}
			if changed {
				work = append(work, s)
			}
		}
	}
	return in
}

// executable lists the successors a terminator may pass control to.
func executable(term *ir.Term, state []value) []int {
	if term.Kind != ir.Branch {
		return term.Successors()
	}
	c := term.Cond
	if !c.Imm && state[c.Reg].known {
		c = ir.Arg{Imm: true, Bits: state[c.Reg].bits}
	}
	switch {
	case !c.Imm:
		return term.Successors()
	case c.Bits != 0:
		return term.Succs[:1]
	}
	return term.Succs[1:2]
}

// transfer updates state past one instruction.
func transfer(state []value, x *ir.Instr) {
	for _, d := range x.Results {
		state[d] = value{} // a call's results are not known
	}
	if x.Dst == ir.NoReg {
		return
	}
	state[x.Dst] = value{}
	if !x.Op.Info().Pure {
		return
	}
	args := make([]uint64, len(x.Args))
	for j, a := range x.Args {
		switch {
		case a.Imm:
			args[j] = a.Bits
		case state[a.Reg].known:
			args[j] = state[a.Reg].bits
		default:
			return
		}
	}
	if bits, err := ir.Fold(x, args); err == nil {
		state[x.Dst] = value{known: true, bits: bits}
	}
}

// simplify rewrites an instruction whose operands are all immediates, or
// that is an integer identity, as a move.
func simplify(x *ir.Instr) {
	info := x.Op.Info()
	if !info.Pure || x.Op == ir.OpConst || x.Op == ir.OpMove || x.Dst == ir.NoReg {
		return
	}
	args := make([]uint64, len(x.Args))
	all := true
	for j, a := range x.Args {
		all = all && a.Imm
		args[j] = a.Bits
	}
	if all {
		if bits, err := ir.Fold(x, args); err == nil {
			*x = ir.Instr{Op: ir.OpMove, Type: x.ResultType(), Dst: x.Dst, Args: []ir.Arg{ir.Imm(x.ResultType(), bits)}, Pos: x.Pos}
		}
		return
	}
	if len(x.Args) == 2 && x.Type.IsFloat() {
		simplifyFloat(x)
		return
	}
	if len(x.Args) != 2 || !x.Type.IsInteger() || x.Op == ir.OpElemAddr {
		return
	}
	if info.Commutative && x.Args[0].Imm {
		x.Args[0], x.Args[1] = x.Args[1], x.Args[0]
	}
	if !x.Args[1].Imm {
		return
	}
	c := x.Args[1].Bits
	if (x.Op == ir.OpMul || x.Op == ir.OpAnd) && c == 0 {
		*x = ir.Instr{Op: ir.OpMove, Type: x.Type, Dst: x.Dst, Args: []ir.Arg{ir.Imm(x.Type, 0)}, Pos: x.Pos}
		return
	}
	identity := false
	switch x.Op {
	case ir.OpAdd, ir.OpSub, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr, ir.OpAndNot:
		identity = c == 0
	case ir.OpMul, ir.OpDiv:
		identity = c == 1
	case ir.OpAnd:
		identity = c == x.Type.Normalize(^uint64(0))
	}
	if identity {
		*x = ir.Instr{Op: ir.OpMove, Type: x.Type, Dst: x.Dst, Args: []ir.Arg{x.Args[0]}, Pos: x.Pos}
	}
}

// simplifyFloat rewrites the float identities that hold for every operand
// as moves: x*1, x/1, x-(+0) and x+(-0) are x, -0 and infinities
// included. (x+0 is not: -0+0 is +0.) A NaN stays a NaN; its bits may
// differ from the arithmetic's, as they may between the GPU and the CPU.
func simplifyFloat(x *ir.Instr) {
	if x.Op == ir.OpMul && x.Args[0].Imm {
		x.Args[0], x.Args[1] = x.Args[1], x.Args[0]
	}
	c := x.Args[1]
	if !c.Imm || x.Args[0].Imm {
		return
	}
	one, zero := floatBits(x.Type, 1), floatBits(x.Type, 0)
	negZero := x.Type.Normalize(1 << (x.Type.Bits() - 1))
	switch {
	case (x.Op == ir.OpMul || x.Op == ir.OpDiv) && c.Bits == one,
		x.Op == ir.OpSub && c.Bits == zero,
		x.Op == ir.OpAdd && c.Bits == negZero:
		*x = ir.Instr{Op: ir.OpMove, Type: x.Type, Dst: x.Dst, Args: []ir.Arg{x.Args[0]}, Pos: x.Pos}
	}
}

// floatBits returns the bits of f as a float of type t.
func floatBits(t ir.Type, f float64) uint64 {
	if t == ir.Float32 {
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}
