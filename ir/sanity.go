package ir

import (
	"fmt"
	"slices"
)

// Check verifies the invariants of every task of k: block numbering,
// register numbers and types, operand counts and types, parameter references
// and terminators. Passes call it so a broken pass is caught where it breaks.
func (k *Kernel) Check() error {
	if err := k.checkData(); err != nil {
		return err
	}
	if err := k.checkParams(); err != nil {
		return err
	}
	if err := k.checkSites(); err != nil {
		return err
	}
	for i := range k.Prints {
		if err := k.Prints[i].check(); err != nil {
			return fmt.Errorf("format %d: %w", i, err)
		}
	}
	for i, f := range k.Funcs {
		if f.Kind != Function {
			return fmt.Errorf("function %s: kind %s", f.Name, f.Kind)
		}
		if err := k.checkCallees(f, i); err != nil {
			return fmt.Errorf("function %s: %w", f.Name, err)
		}
		if err := k.CheckTask(f); err != nil {
			return fmt.Errorf("function %s: %w", f.Name, err)
		}
	}
	for _, t := range k.Tasks {
		if t.Kind == Function {
			return fmt.Errorf("task %s: a function among the tasks", t.Name)
		}
		if err := k.CheckTask(t); err != nil {
			return fmt.Errorf("task %s: %w", t.Name, err)
		}
	}
	return nil
}

// checkParams verifies that each parameter has a type a kernel can take.
func (k *Kernel) checkParams() error {
	for _, p := range k.Params {
		switch {
		case p.Slice && p.Type == Invalid && p.ElemSize <= 0:
			return fmt.Errorf("parameter %s: a slice of aggregates needs an element size", p.Name)
		case p.Type != Invalid && !Scalars.Has(p.Type), !p.Slice && p.Type == Invalid:
			return fmt.Errorf("parameter %s has type %s", p.Name, p.Type)
		case p.Type != Invalid && p.ElemSize != 0:
			return fmt.Errorf("parameter %s of type %s has an element size", p.Name, p.Type)
		}
	}
	return nil
}

// checkCallees checks that function number i calls only functions listed
// before it, so that functions never recurse.
func (k *Kernel) checkCallees(f *Task, i int) error {
	for _, b := range f.Blocks {
		for j := range b.Instrs {
			if in := &b.Instrs[j]; in.Op == OpCall && in.Aux >= int64(i) {
				return fmt.Errorf("b%d: %q calls a function not listed before it", b.Index, k.FormatInstr(f, in))
			}
		}
	}
	return nil
}

// CheckTask verifies the invariants of one task or function of k.
func (k *Kernel) CheckTask(t *Task) error {
	if len(t.Blocks) == 0 {
		return fmt.Errorf("no blocks")
	}
	if err := k.checkMemory(t); err != nil {
		return err
	}
	switch {
	case t.Kind == BlockLevel && (t.Threads < 1 || t.Threads > MaxBlockThreads):
		return fmt.Errorf("a blocks task of %d threads a block, not 1 to %d", t.Threads, MaxBlockThreads)
	case t.Kind != BlockLevel && t.Threads != 0:
		return fmt.Errorf("a %s task with threads=%d", t.Kind, t.Threads)
	}
	defined := make([]bool, len(t.Regs))
	define := func(r Reg) {
		if r >= 0 && int(r) < len(defined) {
			defined[r] = true
		}
	}
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			define(b.Instrs[i].Dst)
			for _, r := range b.Instrs[i].Results {
				define(r) // checked as results of a call, or reported if not
			}
		}
	}
	if err := checkSignature(t, defined); err != nil {
		return err
	}
	for _, r := range t.Params {
		define(r)
	}
	for bi, b := range t.Blocks {
		if b.Index != bi {
			return fmt.Errorf("block %d has index %d", bi, b.Index)
		}
		if b.Fallback < 0 || b.Fallback >= len(t.Blocks) {
			return fmt.Errorf("b%d: fallback b%d out of range", bi, b.Fallback)
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
	info := in.Op.Info()
	rt := in.ResultType()
	switch {
	case rt == Invalid && in.Dst != NoReg:
		return fmt.Errorf("has a result register but no result")
	case rt != Invalid && (in.Dst < 0 || int(in.Dst) >= len(t.Regs)):
		return fmt.Errorf("result register out of range")
	case rt != Invalid && t.Regs[in.Dst] != rt:
		return fmt.Errorf("result register has type %s, want %s", t.Regs[in.Dst], rt)
	case info.Types != 0 && !info.Types.Has(in.Type):
		return fmt.Errorf("%s of type %s", in.Op, in.Type)
	case info.From != 0 && !info.From.Has(in.From):
		return fmt.Errorf("%s from type %s", in.Op, in.From)
	case info.Parallel && t.Kind != Parallel && t.Kind != BlockLevel:
		return fmt.Errorf("%s in a %s task", in.Op, t.Kind)
	case t.Kind == Function && !inFunctions(in.Op):
		return fmt.Errorf("%s in a device function, which sees only its arguments", in.Op)
	case info.SameSize && in.Type.Size() != in.From.Size():
		return fmt.Errorf("%s between %s and %s, of different sizes", in.Op, in.From, in.Type)
	case in.Op == OpScratch && k.Reductions == 0:
		return fmt.Errorf("scratch in a kernel without reductions")
	case in.Space >= numSpaces || in.Space != Global && !info.Spaces:
		return fmt.Errorf("%s in %s memory", in.Op, in.Space)
	}
	if err := k.checkAux(t, in, info.Aux); err != nil {
		return err
	}
	if in.Op == OpConst && (len(in.Args) != 1 || !in.Args[0].Imm) {
		return fmt.Errorf("const needs one immediate")
	}
	if err := k.checkCall(t, in); err != nil {
		return err
	}
	types := k.ArgTypes(in)
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

// checkAux checks what the instruction's Aux holds.
func (k *Kernel) checkAux(t *Task, in *Instr, kind AuxKind) error {
	switch kind {
	case ScalarParam, SliceParam:
		if in.Aux < 0 || int(in.Aux) >= len(k.Params) {
			return fmt.Errorf("no parameter %d", in.Aux)
		}
		p := k.Params[in.Aux]
		if p.Slice != (kind == SliceParam) || kind == ScalarParam && p.Type != in.Type {
			return fmt.Errorf("parameter %s does not match", p.Name)
		}
	case ElemSize:
		if in.Aux <= 0 {
			return fmt.Errorf("element size %d", in.Aux)
		}
	case FuncIndex:
		if k.Callee(in) == nil {
			return fmt.Errorf("no function %d", in.Aux)
		}
	case VarIndex:
		if in.Aux < 0 || int(in.Aux) >= len(t.Vars) {
			return fmt.Errorf("no variable %d", in.Aux)
		}
	case DataIndex:
		if in.Aux < 0 || int(in.Aux) >= len(k.Data) {
			return fmt.Errorf("no table %d", in.Aux)
		}
	case FormatIndex:
		if in.Aux < 0 || int(in.Aux) >= len(k.Prints) {
			return fmt.Errorf("no format %d", in.Aux)
		}
		for _, a := range in.Args {
			if a.Imm {
				return fmt.Errorf("an immediate operand: a print's operands are registers")
			}
		}
	case SiteIndex:
		if in.Aux < 0 || int(in.Aux) >= len(k.Sites) {
			return fmt.Errorf("no site %d", in.Aux)
		}
		if s := k.Sites[in.Aux]; !checkKind(in.Op, s.Kind) {
			return fmt.Errorf("%s checks site %d of kind %s", in.Op, in.Aux, s.Kind)
		}
	}
	return nil
}

// checkSignature checks a function's parameter and result registers, and
// that only functions have them.
func checkSignature(t *Task, defined []bool) error {
	if t.Kind != Function {
		if len(t.Params) > 0 || len(t.Results) > 0 {
			return fmt.Errorf("a %s task with parameters or results", t.Kind)
		}
		return nil
	}
	for _, regs := range [][]Reg{t.Params, t.Results} {
		for _, r := range regs {
			if r < 0 || int(r) >= len(t.Regs) || t.Regs[r] == Invalid {
				return fmt.Errorf("parameter or result register r%d out of range", r)
			}
		}
	}
	for _, r := range t.Results {
		if !defined[r] && !slices.Contains(t.Params, r) {
			return fmt.Errorf("result register r%d is never defined", r)
		}
	}
	return nil
}

// checkCall checks a call's result registers against its callee's
// results; other ops must have none.
func (k *Kernel) checkCall(t *Task, in *Instr) error {
	if in.Op != OpCall {
		if len(in.Results) > 0 {
			return fmt.Errorf("results on an op other than call")
		}
		return nil
	}
	want := k.Callee(in).ResultTypes()
	if len(in.Results) != len(want) {
		return fmt.Errorf("%d results, want %d", len(in.Results), len(want))
	}
	for i, r := range in.Results {
		if r < 0 || int(r) >= len(t.Regs) {
			return fmt.Errorf("result register r%d out of range", r)
		}
		if t.Regs[r] != want[i] {
			return fmt.Errorf("result %d: r%d has type %s, want %s", i, r, t.Regs[r], want[i])
		}
	}
	return nil
}

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

// inFunctions reports whether device functions may have op: not the ops
// that read the kernel's parameters or scratch memory, that wait for
// other threads, or that check (a failed check reports through the
// task's arguments).
func inFunctions(op Op) bool {
	switch op.Info().Aux {
	case ScalarParam, SliceParam, SiteIndex:
		return false
	}
	return op != OpScratch && op != OpBarrier && op != OpShuffleDown && op != OpShuffleUp
}
