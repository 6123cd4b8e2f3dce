package lower

import (
	"fmt"
	"go/token"
	"math"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// A reduction is a variable declared before a parallel loop that each
// iteration only updates, with one operation throughout, and that is read
// after the loop:
//
//	var sum float32
//	for i := range x {
//		sum += x[i] // or -=, *=, &=, |=, ^=, &^=, sum = min(sum, v), max
//	}
//	mean := sum / float32(len(x))
//
// Each thread combines its own iterations into a partial result that
// starts at the operation's identity; the partial results of a block's
// threads are combined with warp shuffles and shared memory and written to
// scratch memory, one per block; a second task combines those, in a fixed
// order, with the variable's value before the loop, and writes the result
// to scratch memory, where the statements after the loop read it. The
// order of the combination depends only on the launch's grid, so a float
// reduction gives the same bits on every run of a launch configuration;
// integer reductions, and min and max of floats, equal Go's exactly.
type reduction struct {
	phi  *ssa.Phi // the variable in the loop's header
	init ssa.Value
	op   ir.Op // how partial results combine
	typ  ir.Type
	// result is the variable's value after the loop: the header's phi, or
	// the phi of the loop's exit for a loop tested at its end; nil when
	// nothing reads it.
	result ssa.Value
	slot   int // its place in scratch memory
}

// reductionOps are the Go operators a reduction may update with, and how
// the partial results they leave combine.
var reductionOps = map[token.Token]ir.Op{
	token.ADD: ir.OpAdd, token.SUB: ir.OpAdd, token.MUL: ir.OpMul,
	token.AND: ir.OpAnd, token.AND_NOT: ir.OpAnd, token.OR: ir.OpOr, token.XOR: ir.OpXor,
}

// reductionOf reports whether phi, a variable carried by the parallel loop
// pl, is a reduction, and if not why, with the position to blame.
func (l *lowerer) reductionOf(phi *ssa.Phi, pl *parLoop) (*reduction, string, token.Pos) {
	lp := pl.lp
	t, ok := basicType(phi.Type())
	if !ok || t == ir.Bool {
		return nil, fmt.Sprintf("it has type %s, and reductions combine numbers", phi.Type()), token.NoPos
	}
	red := &reduction{phi: phi, typ: t, op: ir.OpInvalid}
	for i, e := range phi.Edges {
		if !lp.contains(phi.Block().Preds[i]) {
			red.init = e
		}
	}
	members := map[ssa.Value]bool{phi: true}
	work := []ssa.Value{phi}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, r := range *v.Referrers() {
			if _, ok := r.(*ssa.DebugRef); ok {
				continue
			}
			u, isValue := r.(ssa.Value)
			if r.Block() == nil || !lp.contains(r.Block()) {
				switch {
				case v == ssa.Value(phi) && r.Block() != nil && phi.Block().Dominates(r.Block()):
					red.result = phi
					continue
				case isExitPhi(r, pl):
					red.result = u
					continue
				}
				return nil, "its value is used after the loop in a way it cannot be", r.Pos()
			}
			if members[u] {
				continue
			}
			op, why := updateOp(r)
			if why != "" {
				return nil, why, r.Pos()
			}
			if p, ok := r.(*ssa.Phi); ok && p.Block() == lp.header {
				return nil, "it is combined with another variable the loop carries", token.NoPos
			}
			if op != ir.OpInvalid && red.op != ir.OpInvalid && op != red.op {
				return nil, "it is updated with different operations", r.Pos()
			}
			if op != ir.OpInvalid {
				red.op = op
			}
			if !isValue {
				return nil, "it is read in the loop", r.Pos()
			}
			members[u] = true
			work = append(work, u)
		}
	}
	if red.op == ir.OpInvalid {
		return nil, "it is assigned, not updated", token.NoPos
	}
	if why, pos := checkMembers(red, members, pl); why != "" {
		return nil, why, pos
	}
	red.slot = -1
	return red, "", token.NoPos
}

// isExitPhi reports whether r is a phi of the loop's exit, which holds a
// variable's value after a loop tested at its end.
func isExitPhi(r ssa.Instruction, pl *parLoop) bool {
	p, ok := r.(*ssa.Phi)
	return ok && p.Block() == pl.exit
}

// updateOp returns the operation with which the instruction r, which uses
// a value of the variable, updates it; OpInvalid for a phi that merges its
// values, or why r does something else with it.
func updateOp(r ssa.Instruction) (ir.Op, string) {
	const read = "it is read in the loop other than to update it"
	switch r := r.(type) {
	case *ssa.Phi:
		return ir.OpInvalid, ""
	case *ssa.BinOp:
		if op, ok := reductionOps[r.Op]; ok {
			return op, ""
		}
		return ir.OpInvalid, read
	case *ssa.Call:
		if b, ok := r.Common().Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "min":
				return ir.OpMin, ""
			case "max":
				return ir.OpMax, ""
			}
		}
	}
	return ir.OpInvalid, read
}

// checkMembers verifies the values of the variable found in the loop:
// each update has the variable's value as one operand, on the left of a
// subtraction, and never as both; each phi merges only its values; the
// exit's phi merges them with the value before the loop.
func checkMembers(red *reduction, members map[ssa.Value]bool, pl *parLoop) (string, token.Pos) {
	for v := range members {
		var ops [4]*ssa.Value
		n := 0
		switch v := v.(type) {
		case *ssa.Phi:
			for i, e := range v.Edges {
				if v == red.phi && !pl.lp.contains(v.Block().Preds[i]) {
					continue // the value before the loop
				}
				if !members[e] {
					return "it is assigned, not updated, on some path", token.NoPos
				}
			}
			continue
		case *ssa.BinOp:
			if members[v.Y] && (v.Op == token.SUB || v.Op == token.AND_NOT) {
				return "it is subtracted from another value", v.Pos()
			}
		}
		instr := v.(ssa.Instruction)
		for _, op := range instr.Operands(ops[:0]) {
			if *op != nil && members[*op] {
				n++
			}
		}
		if n != 1 {
			return "it is combined with itself", v.Pos()
		}
	}
	if p, ok := red.result.(*ssa.Phi); ok && p != red.phi {
		for i, e := range p.Edges {
			if !members[e] && !(p.Block().Preds[i] == pl.pre && sameValue(e, red.init)) {
				return "its value after the loop is not the loop's", p.Pos()
			}
		}
	}
	return "", token.NoPos
}

// identity is the value a partial result starts from, which the reduction's
// operation leaves any value unchanged with; -0 for a float sum, since
// +0 + -0 is +0 and -0 + -0 is -0.
func (red *reduction) identity() ir.Arg {
	t := red.typ
	var bits uint64
	switch red.op {
	case ir.OpAdd:
		if t.IsFloat() {
			bits = 1 << (t.Bits() - 1)
		}
	case ir.OpMul:
		bits = one(t)
	case ir.OpAnd:
		bits = ^uint64(0)
	case ir.OpMin, ir.OpMax:
		bits = extreme(t, red.op == ir.OpMin)
	}
	return ir.Imm(t, bits)
}

func one(t ir.Type) uint64 {
	switch t {
	case ir.Float32:
		return uint64(math.Float32bits(1))
	case ir.Float64:
		return math.Float64bits(1)
	}
	return 1
}

// extreme is the largest value of t (+Inf for floats), or the smallest.
func extreme(t ir.Type, largest bool) uint64 {
	inf := math.Inf(-1)
	if largest {
		inf = math.Inf(1)
	}
	switch {
	case t == ir.Float32:
		return uint64(math.Float32bits(float32(inf)))
	case t == ir.Float64:
		return math.Float64bits(inf)
	case t.IsSigned() && largest:
		return 1<<(t.Bits()-1) - 1
	case t.IsSigned():
		return 1 << (t.Bits() - 1) // normalized by ir.Imm to the sign-extended minimum
	case largest:
		return ^uint64(0)
	}
	return 0
}
