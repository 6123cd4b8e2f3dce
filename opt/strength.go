package opt

import (
	"fmt"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// ReduceStrength turns the element addresses that a loop computes from its
// index with multiplications, like &b[k*n+j] in a matrix product, into
// pointers that step by a constant amount each iteration: the address is
// computed once before the loop, and advanced where the index is. The
// addresses of one element in several places of the body share a pointer,
// and pointers that step alike share their step in bytes. Grid-stride
// loops are reduced too: with the grid capped at a few waves of the
// device, a thread runs many iterations of a large loop, and the pointers
// then cost one addition each, as in nvcc's code.
//
// The index k must be a 64-bit integer that the loop assigns once, at its
// end (in the block that jumps back), as k + c for c that the loop does not
// change. An address qualifies when its base does not change in the loop
// and its index is built from k and such values by addition, subtraction,
// multiplication by a loop constant and shifts by a constant: then
// address(k+c) - address(k) is the same every iteration, and since every
// one of these operations wraps modulo 2^64, so does the pointer.
func ReduceStrength(t *ir.Task) {
	for _, lp := range ir.Innermost(t.Loops()) {
		reduceLoop(t, lp)
	}
}

// inductionVariable is a loop's index: k = step(k) at index at of block latch.
type inductionVariable struct {
	reg   ir.Reg
	step  ir.Arg
	latch *ir.Block
	at    int
}

func reduceLoop(t *ir.Task, lp *ir.Loop) {
	defs := defSites(t)
	dom := t.Dominators()
	single := singleDefs(t, defs, dom)
	inLoop := definedIn(t, lp)
	if len(lp.Latches) != 1 {
		return
	}
	latch := t.Blocks[lp.Latches[0]]
	defIn := func(r ir.Reg) *ir.Instr { // the instruction that assigns r in the loop, if only one does
		var found *ir.Instr
		for _, s := range defs[r] {
			if lp.Has(s.block) {
				if found != nil {
					return nil
				}
				found = &t.Blocks[s.block].Instrs[s.at]
			}
		}
		return found
	}
	// The induction variables: k = move s (or k = add k, c) in the latch,
	// as ir/analysis finds them.
	ivs := map[ir.Reg]inductionVariable{}
	an := analysis.New(t)
	for _, iv := range an.LoopAt(lp.Header).IndVars {
		sum := an.Instr(iv.Sum)
		if iv.Update.Block != latch.Index || iv.Type != ir.Int64 && iv.Type != ir.Uint64 || sum.Op != ir.OpAdd ||
			iv.Sum != iv.Update && !single[sum.Dst] {
			continue
		}
		ivs[iv.Reg] = inductionVariable{reg: iv.Reg, step: iv.StepArg, latch: latch, at: iv.Update.At}
	}
	if len(ivs) == 0 {
		return
	}
	pre := preheader(t, lp)
	source := copySource(t, defs, single) // copies of one index share a pointer
	r := &reducer{t: t, pre: pre, single: single, inLoop: inLoop, defIn: defIn, ivs: ivs}
	updates := map[int][]ir.Instr{}
	pointers := map[string]ir.Reg{} // by base, index and size
	steps := map[string]ir.Arg{}    // by index step and size, in bytes
	for _, bi := range lp.Blocks() {
		b := t.Blocks[bi]
		for i := range b.Instrs {
			x := &b.Instrs[i]
			if x.Op != ir.OpElemAddr || x.Args[1].Imm || !single[x.Dst] || !r.invariantArg(x.Args[0]) {
				continue
			}
			if b == latch && i > minIVAt(ivs) {
				continue // after an index moves on: it would see the new index
			}
			iv, ok := r.affineIn(x.Args[1].Reg, 0)
			if !ok {
				continue
			}
			key := fmt.Sprint(source(x.Args[0]), source(x.Args[1]), x.Aux)
			p, shared := pointers[key]
			if !shared {
				start := r.materialize(x.Args[1].Reg)
				p = t.NewReg(ir.Ptr)
				pointers[key] = p
				pre.Instrs = append(pre.Instrs, ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: p, Args: []ir.Arg{x.Args[0], start}, Aux: x.Aux})
				step, size := r.stride(x.Args[1].Reg, iv), x.Aux
				if !step.Imm { // a step in a register: multiply it by the size once
					stepKey := fmt.Sprint(step, size)
					bytes, ok := steps[stepKey]
					if !ok {
						d := t.NewReg(ir.Int64)
						pre.Instrs = append(pre.Instrs, ir.Instr{Op: ir.OpMul, Type: ir.Int64, Dst: d, Args: []ir.Arg{step, ir.Imm(ir.Int64, uint64(size))}})
						bytes = ir.R(d)
						steps[stepKey] = bytes
					}
					step, size = bytes, 1
				}
				at := ivs[iv].at
				updates[at] = append(updates[at], ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: p, Args: []ir.Arg{ir.R(p), step}, Aux: size})
			}
			*x = ir.Instr{Op: ir.OpMove, Type: ir.Ptr, Dst: x.Dst, Args: []ir.Arg{ir.R(p)}, Pos: x.Pos}
		}
	}
	// The pointers advance right after their index does.
	var out []ir.Instr
	for i, x := range latch.Instrs {
		out = append(out, x)
		out = append(out, updates[i]...)
	}
	latch.Instrs = out
}

func minIVAt(ivs map[ir.Reg]inductionVariable) int {
	m := 1 << 30
	for _, iv := range ivs {
		m = min(m, iv.at)
	}
	return m
}

// reducer holds what ReduceStrength knows of one loop.
type reducer struct {
	t      *ir.Task
	pre    *ir.Block
	single []bool
	inLoop []bool
	defIn  func(ir.Reg) *ir.Instr
	ivs    map[ir.Reg]inductionVariable
	copies map[ir.Reg]ir.Reg // registers of the chain, recomputed in the preheader
}

func (r *reducer) invariantArg(a ir.Arg) bool { return a.Imm || !r.inLoop[a.Reg] }

// affineIn reports whether reg is an affine function of exactly one
// induction variable, which it returns, with loop constants.
func (r *reducer) affineIn(reg ir.Reg, depth int) (ir.Reg, bool) {
	if _, ok := r.ivs[reg]; ok {
		return reg, true
	}
	x := r.defIn(reg)
	if x == nil || depth > 8 || !r.single[reg] || x.Type != ir.Int64 && x.Type != ir.Uint64 {
		return 0, false
	}
	var iv ir.Reg
	found := false
	for j, a := range x.Args {
		if r.invariantArg(a) {
			continue
		}
		switch {
		case x.Op == ir.OpShl && j == 1, x.Op == ir.OpMul && !r.invariantArg(x.Args[1-j]):
			return 0, false
		}
		v, ok := r.affineIn(a.Reg, depth+1)
		if !ok || found && v != iv {
			return 0, false
		}
		iv, found = v, true
	}
	switch x.Op {
	case ir.OpMove, ir.OpAdd, ir.OpSub, ir.OpMul:
	case ir.OpShl:
		if !x.Args[1].Imm {
			return 0, false
		}
	default:
		return 0, false
	}
	return iv, found
}

// materialize computes reg's value on loop entry in the preheader, where
// the induction variables hold their first values.
func (r *reducer) materialize(reg ir.Reg) ir.Arg {
	if _, ok := r.ivs[reg]; ok || !r.inLoop[reg] {
		return ir.R(reg)
	}
	if r.copies == nil {
		r.copies = map[ir.Reg]ir.Reg{}
	}
	if c, ok := r.copies[reg]; ok {
		return ir.R(c)
	}
	x := *r.defIn(reg)
	x.Args = append([]ir.Arg(nil), x.Args...)
	for j, a := range x.Args {
		if !a.Imm {
			x.Args[j] = r.materialize(a.Reg)
		}
	}
	x.Dst = r.t.NewReg(r.t.Regs[reg])
	r.pre.Instrs = append(r.pre.Instrs, x)
	r.copies[reg] = x.Dst
	return ir.R(x.Dst)
}

// stride computes in the preheader how much reg grows when iv steps.
func (r *reducer) stride(reg ir.Reg, iv ir.Reg) ir.Arg {
	typ := r.t.Regs[reg]
	emit := func(op ir.Op, a, b ir.Arg) ir.Arg {
		if a.Imm && b.Imm {
			x := ir.Instr{Op: op, Type: typ, From: ir.Uint32}
			v, _ := ir.Fold(&x, []uint64{a.Bits, b.Bits})
			return ir.Imm(typ, v)
		}
		d := r.t.NewReg(typ)
		x := ir.Instr{Op: op, Type: typ, Dst: d, Args: []ir.Arg{a, b}}
		if op == ir.OpShl {
			x.From = ir.Uint32
		}
		r.pre.Instrs = append(r.pre.Instrs, x)
		return ir.R(d)
	}
	if reg == iv {
		return r.ivs[iv].step
	}
	if !r.inLoop[reg] {
		return ir.Imm(typ, 0)
	}
	x := r.defIn(reg)
	sub := func(j int) ir.Arg {
		if a := x.Args[j]; !a.Imm {
			return r.stride(a.Reg, iv)
		}
		return ir.Imm(typ, 0)
	}
	switch x.Op {
	case ir.OpMove:
		return sub(0)
	case ir.OpAdd:
		return emit(ir.OpAdd, sub(0), sub(1))
	case ir.OpSub:
		return emit(ir.OpSub, sub(0), sub(1))
	case ir.OpMul:
		if r.invariantArg(x.Args[1]) {
			return emit(ir.OpMul, sub(0), x.Args[1])
		}
		return emit(ir.OpMul, x.Args[0], sub(1))
	case ir.OpShl:
		return emit(ir.OpShl, sub(0), ir.Imm(ir.Uint32, min(x.From.Normalize(x.Args[1].Bits), 64)))
	}
	panic("opt: stride of a non-affine index")
}
