package lower

import (
	"fmt"
	"go/token"
	"go/types"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// Helpers are inlined while their code, with everything they inline in
// turn, stays within inlineBudget go/ssa instructions (library functions
// and qd/rand's by the rule of libfuncs.go), and so are helpers
// called from one place only, which inlining does not copy; any other
// that touches no memory becomes a device function of the kernel
// (ir.Kernel.Funcs), lowered once and called. Inlining alone grows
// exponentially in helpers that call helpers twice (e(x) = d(d(x)),
// d(x) = c(c(x)), ...); with the budget, the kernel's code grows linearly.
//
// Helpers that read or write slices are always inlined, so that the checks
// of memory accesses (conflicting iterations, races between blocks) see
// each access where it happens; a kernel into which they would copy more
// than maxInlined instructions is reported instead.
const (
	inlineBudget = 160
	callCost     = 4 // what a call counts for in its caller's size
	maxInlined   = 50000
)

// inlines reports whether calls of fn are inlined. A helper that may
// recurse is, so that its tail calls become jumps (tailcall.go).
func (l *lowerer) inlines(fn *ssa.Function) bool {
	if isShared(fn) {
		return l.libraryInlines(fn) || l.mayRecurse(fn)
	}
	return l.inlineSize(fn) <= inlineBudget || l.callSites()[fn] <= 1 || !l.hasSignature(fn) ||
		!l.pureFunction(fn) || l.mayCheck(fn) || l.mayRecurse(fn)
}

// mayCheck reports whether fn's code, or that of a helper it inlines, may
// get one of Go's run-time checks (an integer division by a variable, a
// slice expression, a check or panic of a library function such as
// bits.Div64): a failed check reports through the task's fault
// record, which a device function cannot reach, so such a helper is
// inlined.
func (l *lowerer) mayCheck(fn *ssa.Function) bool {
	if c, ok := l.checked[fn]; ok {
		return c
	}
	if l.checked == nil {
		l.checked = make(map[*ssa.Function]bool)
	}
	l.checked[fn] = false // recursion is reported where it is lowered
	c := false
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.BinOp:
				_, constant := in.Y.(*ssa.Const)
				c = c || (in.Op == token.QUO || in.Op == token.REM) && isIntegerType(in) && !constant
			case *ssa.Slice:
				c = true
			case *ssa.Panic:
				// A library's panic of a run-time error is a fault; its
				// others cannot happen and end the thread (libraryPanic).
				_, isFault := runtimeError(in.X)
				c = c || isFault || !isLibraryPackage(fn)
			case *ssa.IndexAddr:
				// Only a constant index of an array needs no check, or
				// any index of an array of a total library (checkArrayIndex).
				_, constant := in.Index.(*ssa.Const)
				_, array := in.X.Type().Underlying().(*types.Pointer)
				c = c || !array || !constant && !totalLibrary(fn)
			case *ssa.Index: // of an array value, likewise
				_, constant := in.Index.(*ssa.Const)
				c = c || !constant && !totalLibrary(fn)
			case *ssa.Call:
				callee := in.Common().StaticCallee()
				c = c || libraryChecks(callee)
				if target, ok := l.libraryTarget(callee); ok {
					callee = target // its port, built when first called; nil for an intrinsic
				}
				if callee != nil && callee.Blocks != nil {
					c = c || l.mayCheck(callee)
				}
			}
		}
	}
	l.checked[fn] = c
	return c
}

// inlineFits counts the instructions inlining fn copies into the kernel,
// and reports the call at pos, once, if they pass maxInlined.
func (l *lowerer) inlineFits(fn *ssa.Function, pos token.Pos) bool {
	for _, b := range fn.Blocks {
		l.inlined += len(b.Instrs)
	}
	if l.inlined <= maxInlined {
		return true
	}
	if !l.tooLarge {
		l.tooLarge = true
		l.errorf(pos, "inlining %s here makes the kernel larger than %d instructions: a helper that reads or writes slices is copied into each call of it; call it from fewer places, or keep the slice accesses out of the helpers it calls many times", fn.Name(), maxInlined)
	}
	return false
}

// callSites counts the calls of each function in the code the kernel
// reaches: its body, its blocks' functions and the functions they call.
func (l *lowerer) callSites() map[*ssa.Function]int {
	if l.calls != nil {
		return l.calls
	}
	l.calls = make(map[*ssa.Function]int)
	seen := map[*ssa.Function]bool{}
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if seen[fn] {
			return
		}
		seen[fn] = true
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if call, ok := instr.(*ssa.Call); ok && !call.Common().IsInvoke() {
					if callee := call.Common().StaticCallee(); callee != nil {
						l.calls[callee]++
						visit(callee)
					}
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	visit(l.fn)
	return l.calls
}

// inlineSize is the number of go/ssa instructions that inlining fn
// copies: its own, and those of the helpers it inlines in turn.
func (l *lowerer) inlineSize(fn *ssa.Function) int {
	if n, ok := l.sizes[fn]; ok {
		return n
	}
	if l.sizes == nil {
		l.sizes = make(map[*ssa.Function]int)
	}
	l.sizes[fn] = 0 // recursion is reported where it is lowered
	n := 0
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			n++
			call, ok := instr.(*ssa.Call)
			if !ok || call.Common().IsInvoke() {
				continue
			}
			callee := call.Common().StaticCallee()
			if target, ok := l.libraryTarget(callee); ok {
				switch {
				case target == nil: // an intrinsic, an instruction or a few
				case l.libraryInlines(target) || l.reaches(target, fn) || l.mayRecurse(target) && !isLibraryPackage(fn):
					n += l.inlineSize(target)
				default:
					n += callCost
				}
				continue
			}
			if callee == nil || callee.Blocks == nil {
				continue
			}
			if l.inlines(callee) {
				n += l.inlineSize(callee)
			} else {
				n += callCost
			}
		}
	}
	l.sizes[fn] = n
	return n
}

// hasSignature reports whether fn's parameters and results are all of
// types that registers hold, so that it can be a device function; calls of
// others are inlined, which reports what is not supported. Structs and
// arrays pass one register per leaf. Pointers do not pass: an address
// given to a function is taken as global memory's, and a pointer may be to
// a local variable.
func (l *lowerer) hasSignature(fn *ssa.Function) bool {
	for _, p := range fn.Params {
		if _, ok := p.Type().Underlying().(*types.Pointer); ok {
			return false
		}
		if _, ok := regTypes(p.Type()); !ok {
			return false
		}
	}
	_, ok := regTypes(fn.Signature.Results())
	return ok && len(fn.FreeVars) == 0
}

// callFunction lowers a call of callee as a call of its device function.
func (f *frame) callFunction(callee *ssa.Function, args [][]ir.Reg, dst []ir.Reg, pos token.Pos) {
	if !f.callableHere(callee, pos) {
		return
	}
	index, ok := f.tb.l.function(callee, f, pos)
	if !ok {
		return
	}
	in := ir.Instr{Op: ir.OpCall, Dst: ir.NoReg, Aux: int64(index), Results: dst, Pos: pos}
	for _, regs := range args {
		for _, r := range regs {
			in.Args = append(in.Args, ir.R(r))
		}
	}
	f.tb.emit(in)
}

// function returns the index of the device function of fn in the kernel's
// Funcs, lowering it the first time; caller is the frame of the call that
// needs it. Functions are appended once their bodies are lowered, after
// every function they call.
func (l *lowerer) function(fn *ssa.Function, caller *frame, pos token.Pos) (int, bool) {
	if i, ok := l.funcIndex[fn]; ok {
		return i, i >= 0
	}
	if l.funcIndex == nil {
		l.funcIndex = make(map[*ssa.Function]int)
	}
	l.funcIndex[fn] = -1 // being lowered; a recursive call is reported
	t := &ir.Task{Name: l.funcName(fn), Kind: ir.Function, Pos: fn.Pos()}
	tb := l.builderFor(t)
	g := tb.newFrame(fn, func(*ssa.BasicBlock) bool { return true })
	g.isFunc, g.caller, g.callPos = true, caller, pos
	g.ownParams = true // a tail call of fn in code it inlines jumps to its entry
	for _, p := range fn.Params {
		ts, _ := regTypes(p.Type())
		var regs []ir.Reg
		for _, typ := range ts {
			regs = append(regs, t.NewReg(typ))
		}
		g.vals[p] = regs
		t.Params = append(t.Params, regs...)
	}
	results, _ := regTypes(fn.Signature.Results())
	for _, typ := range results {
		t.Results = append(t.Results, t.NewReg(typ))
	}
	g.results = t.Results
	for _, b := range fn.Blocks {
		g.start[b] = t.NewBlock(b.Comment)
	}
	tb.jump(g.start[fn.Blocks[0]])
	for _, b := range fn.Blocks {
		g.lowerBlock(b)
	}
	l.assignSpaces(t) // its own local variables are in local memory
	l.funcIndex[fn] = len(l.k.Funcs)
	l.k.Funcs = append(l.k.Funcs, t)
	return l.funcIndex[fn], true
}

// funcName names the device function of fn after the kernel and fn,
// with "$", which Go names lack, so that it is distinct from every task;
// a library function after its package and itself (math$Exp), the same
// in every kernel of the module (libfuncs.go).
func (l *lowerer) funcName(fn *ssa.Function) string {
	base := fn.Name()
	if fn.Origin() != nil {
		base = fn.Origin().Name() // an instance of a generic function
	}
	prefix := ir.Symbol(l.k.Name) + "$" + ir.Symbol(base)
	if lib, ok := libraryFuncName(fn); ok {
		prefix = lib
	}
	name := prefix
	for i := 2; l.funcNames[name]; i++ {
		name = fmt.Sprintf("%s$%d", prefix, i)
	}
	if l.funcNames == nil {
		l.funcNames = make(map[string]bool)
	}
	l.funcNames[name] = true
	return name
}
