package ir

import "fmt"

// Check verifies the invariants of every task of k: block numbering,
// register numbers and types, operand counts and types, parameter references
// and terminators. Passes call it so a broken pass is caught where it breaks.
func (k *Kernel) Check() error {
	for _, t := range k.Tasks {
		if err := k.CheckTask(t); err != nil {
			return fmt.Errorf("task %s: %w", t.Name, err)
		}
	}
	return nil
}

// CheckTask verifies the invariants of one task of k.
func (k *Kernel) CheckTask(t *Task) error {
	if len(t.Blocks) == 0 {
		return fmt.Errorf("no blocks")
	}
	defined := make([]bool, len(t.Regs))
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			if d := b.Instrs[i].Dst; d >= 0 && int(d) < len(defined) {
				defined[d] = true
			}
		}
	}
	for bi, b := range t.Blocks {
		if b.Index != bi {
			return fmt.Errorf("block %d has index %d", bi, b.Index)
		}
		for i := range b.Instrs {
			in := &b.Instrs[i]
			if err := k.checkInstr(t, in, defined); err != nil {
				return fmt.Errorf("b%d: %q: %w", bi, k.FormatInstr(t, in), err)
			}
		}
		if err := checkTerm(t, &b.Term, defined); err != nil {
			return fmt.Errorf("b%d: %q: %w", bi, formatTerm(&b.Term), err)
		}
	}
	return nil
}

func (k *Kernel) checkInstr(t *Task, in *Instr, defined []bool) error {
	if in.Op == OpInvalid || in.Op >= numOps {
		return fmt.Errorf("invalid op")
	}
	rt := in.ResultType()
	switch {
	case rt == Invalid && in.Dst != NoReg:
		return fmt.Errorf("has a result register but no result")
	case rt != Invalid && (in.Dst < 0 || int(in.Dst) >= len(t.Regs)):
		return fmt.Errorf("result register out of range")
	case rt != Invalid && t.Regs[in.Dst] != rt:
		return fmt.Errorf("result register has type %s, want %s", t.Regs[in.Dst], rt)
	}
	switch in.Op {
	case OpConst:
		if len(in.Args) != 1 || !in.Args[0].Imm || in.Args[0].Bits != in.Type.Normalize(in.Args[0].Bits) {
			return fmt.Errorf("const needs one normalized immediate")
		}
		return nil
	case OpParam, OpParamBase, OpParamLen:
		if in.Aux < 0 || int(in.Aux) >= len(k.Params) {
			return fmt.Errorf("no parameter %d", in.Aux)
		}
		p := k.Params[in.Aux]
		if p.Slice != (in.Op != OpParam) || in.Op == OpParam && p.Type != in.Type {
			return fmt.Errorf("parameter %s does not match", p.Name)
		}
		return nil
	case OpThreadIndex, OpThreadCount:
		if t.Kind != Parallel {
			return fmt.Errorf("thread index in a serial task")
		}
		return nil
	case OpShl, OpShr:
		if !in.Type.IsInteger() || !in.From.IsInteger() {
			return fmt.Errorf("shift of non-integers")
		}
	case OpConvert:
		if !isNumeric(in.Type) || !isNumeric(in.From) {
			return fmt.Errorf("conversion of non-numeric types")
		}
	case OpElemAddr:
		if in.Aux <= 0 {
			return fmt.Errorf("element size %d", in.Aux)
		}
	case OpRem, OpAnd, OpOr, OpXor, OpAndNot, OpMulHi:
		if !in.Type.IsInteger() {
			return fmt.Errorf("%s needs integers", in.Op)
		}
	case OpSqrt, OpAbs, OpFloor, OpCeil, OpTrunc:
		if !in.Type.IsFloat() {
			return fmt.Errorf("%s needs floats", in.Op)
		}
	}
	types := in.ArgTypes()
	if len(in.Args) != len(types) {
		return fmt.Errorf("%d operands, want %d", len(in.Args), len(types))
	}
	for i, a := range in.Args {
		if err := checkArg(t, a, types[i], defined); err != nil {
			return fmt.Errorf("operand %d: %w", i, err)
		}
	}
	return nil
}

func isNumeric(t Type) bool { return t.IsInteger() || t.IsFloat() }

func checkArg(t *Task, a Arg, want Type, defined []bool) error {
	if a.Imm {
		if a.Bits != want.Normalize(a.Bits) {
			return fmt.Errorf("immediate %#x not normalized for %s", a.Bits, want)
		}
		return nil
	}
	if a.Reg < 0 || int(a.Reg) >= len(t.Regs) {
		return fmt.Errorf("register r%d out of range", a.Reg)
	}
	if !defined[a.Reg] {
		return fmt.Errorf("register r%d is never defined", a.Reg)
	}
	if t.Regs[a.Reg] != want {
		return fmt.Errorf("r%d has type %s, want %s", a.Reg, t.Regs[a.Reg], want)
	}
	return nil
}

func checkTerm(t *Task, term *Term, defined []bool) error {
	for _, s := range term.Successors() {
		if s < 0 || s >= len(t.Blocks) {
			return fmt.Errorf("successor b%d out of range", s)
		}
	}
	if term.Kind == Branch {
		return checkArg(t, term.Cond, Bool, defined)
	}
	return nil
}
