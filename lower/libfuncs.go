package lower

import (
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// Library functions compiled from Go's source (library.go) are device
// functions (ir.Kernel.Funcs) named after their package and function, not
// after the kernel, so that every kernel of a package that calls one gets
// the same function, which the emitters write once per module. Where
// inlining pays, a library function is inlined instead:
//
//   - a function whose code, with what it inlines in turn, stays within
//     libraryInlineBudget go/ssa instructions: a call copies each argument
//     and result through parameters and keeps the callee from folding the
//     caller's constants, which costs more than a tiny leaf such as
//     math.IsNaN, math.Copysign or math.Inf is worth. (With 40, the math
//     kernels' module was 2% larger; its shared functions are the larger
//     ones anyway.)
//   - the functions of math/bits, a few integer instructions each
//     (bits.RotateLeft, bits.Add64), which a call costs more than;
//   - the intrinsics, lowered to an instruction or a few (math.Abs,
//     math.Float64bits, bits.OnesCount…), are never called;
//   - a function whose code may get one of Go's run-time checks (mayCheck:
//     bits.Div64's panics), whose fault a device function cannot report,
//     or whose parameters a device function cannot take (hasSignature);
//   - a function that may call back a function it is inlined into, such
//     as math.pow, which math.Pow calls and which calls math.Pow: inlined
//     into the device function of math.Pow, its tail call of math.Pow is
//     a jump to the function's entry (tailcall.go);
//   - a function that may recurse (math.Pow) where a kernel's own code
//     calls it, and all the library code it calls: the device function of
//     math.Pow holds values across its calls of math.Exp and math.Log,
//     and a kernel calling it took 46 registers a thread, against 32
//     with all of it inlined (emit/ptx's TestMathRegisters). Library
//     functions call it as a device function (math.Gamma, cmplx.Pow).
//   - a function that the module's code, optimized, calls from one place
//     only (Config.CalledOnce, which qdgen fills after lowering and
//     optimizing the module once): inlining it there copies no code, and
//     the call costs much. In SASS (ptxas 11.8, sm_90) there was no
//     stack frame, spill or saved register in the math kernels of
//     bench/kernels, and no lost occupancy (Exp 21 registers against 20
//     inlined, Log 32/30, Tan 32/38); the cost is in the instructions of
//     the call: the argument and the result moved into and out of the
//     registers of the callee's convention, the return address built and
//     moved at every return, CALL and RET, BSSY/BSYNC around the call,
//     and the loop's registers shuffled around it. Per element of Log,
//     126 instructions against 103 inlined; of Exp, 97 against 90. A
//     function the passes copy a call of (opt's index narrowing keeps a
//     checked copy of a loop) is not inlined, which would copy it: in
//     generated_test/mathkernels, whose loops are copied so, only
//     math.sinPi and math.expmulti are.
//
// The functions of package qd/rand are shared so too, by the same rule
// (rand.Block), though the kernel compiles them as its own helpers.
const libraryInlineBudget = 20

// sharedHelpers is the package of helpers that are shared as library
// functions are.
const sharedHelpers = "github.com/qdgo/qd/rand"

// isShared reports whether fn is a helper of sharedHelpers.
func isShared(fn *ssa.Function) bool {
	return fn != nil && fn.Pkg != nil && fn.Pkg.Pkg.Path() == sharedHelpers && fn.Signature.Recv() == nil
}

// inlinesRecursive reports whether f's call of library function fn is
// inlined as a recursive function a kernel's own code calls, or as code
// such a function calls.
func (f *frame) inlinesRecursive(fn *ssa.Function) bool {
	l := f.tb.l
	if l.mayRecurse(fn) && !f.inLibrary() {
		return true
	}
	for g := f; g != nil; g = g.parent {
		if g.inLibrary() && l.mayRecurse(g.fn) && (g.parent == nil || !g.parent.inLibrary()) && !g.isFunc {
			return true
		}
	}
	return false
}

// libraryInlines reports whether a call of fn, a library function compiled
// from its source (after any port), is inlined rather than called.
func (l *lowerer) libraryInlines(fn *ssa.Function) bool {
	return l.inlineSize(fn) <= libraryInlineBudget || isBits(fn) || !l.hasSignature(fn) ||
		!l.pureFunction(fn) || l.mayCheck(fn)
}

// recursesInto reports whether fn may call the function of f or of a
// frame f is inlined into.
func (f *frame) recursesInto(fn *ssa.Function) bool {
	for g := f; g != nil; g = g.parent {
		if g.fn != nil && f.tb.l.reaches(fn, g.fn) {
			return true
		}
	}
	return false
}

// reaches reports whether from calls to, directly or through the static
// calls of functions with bodies.
func (l *lowerer) reaches(from, to *ssa.Function) bool {
	key := [2]*ssa.Function{from, to}
	if r, ok := l.reach[key]; ok {
		return r
	}
	if l.reach == nil {
		l.reach = make(map[[2]*ssa.Function]bool)
	}
	seen := map[*ssa.Function]bool{}
	var visit func(g *ssa.Function) bool
	visit = func(g *ssa.Function) bool {
		if g == to {
			return true
		}
		if seen[g] {
			return false
		}
		seen[g] = true
		for _, b := range g.Blocks {
			for _, instr := range b.Instrs {
				if call, ok := instr.(*ssa.Call); ok {
					if c := call.Common().StaticCallee(); c != nil && visit(c) {
						return true
					}
				}
			}
		}
		return false
	}
	l.reach[key] = visit(from)
	return l.reach[key]
}

// libraryTarget returns, for a call of a library function callee, the
// function whose source the call compiles (callee, or its port), or nil for
// an intrinsic or a function kernels cannot call.
func (l *lowerer) libraryTarget(callee *ssa.Function) (fn *ssa.Function, isLibrary bool) {
	if callee == nil || callee.Pkg == nil || callee.Signature.Recv() != nil {
		return nil, false
	}
	funcs, ok := libraryPackages[callee.Pkg.Pkg.Path()]
	if !ok {
		return nil, false
	}
	lib := funcs[callee.Name()]
	switch {
	case lib.intrinsic != nil || lib.unsupported != "":
		return nil, true
	case lib.port != "":
		port, err := l.portFunc(callee, lib.port)
		if err != nil {
			return nil, true
		}
		callee = port
	}
	if callee.Blocks == nil {
		callee.Pkg.Build()
	}
	if callee.Blocks == nil {
		return nil, true
	}
	return callee, true
}

// libraryFuncName names the device function of a library function after
// its package and name: the same in every kernel of a module.
func libraryFuncName(fn *ssa.Function) (string, bool) {
	if fn.Pkg == nil || libraryPackages[fn.Pkg.Pkg.Path()] == nil && !isShared(fn) {
		return "", false
	}
	return ir.Symbol(fn.Pkg.Pkg.Name()) + "$" + ir.Symbol(fn.Name()), true
}

// isLibraryPackage reports whether fn belongs to a library package, whose
// source kernels compile (library.go).
func isLibraryPackage(fn *ssa.Function) bool {
	return fn != nil && fn.Pkg != nil && libraryPackages[fn.Pkg.Pkg.Path()] != nil
}

// totalLibrary reports whether fn belongs to package math or math/cmplx,
// whose functions are total: their documentation gives a result for every
// argument and they never panic, so an index of one of their arrays (the
// tables of trigReduce, reducePi, Pow10) is in range whatever the
// arguments, and is not checked. Without the checks, which would need the
// fault record of a task, the functions that index tables can be device
// functions; their results are the same.
func totalLibrary(fn *ssa.Function) bool {
	if fn == nil || fn.Pkg == nil {
		return false
	}
	path := fn.Pkg.Pkg.Path()
	return path == "math" || path == "math/cmplx"
}

// isBits reports whether fn belongs to package math/bits.
func isBits(fn *ssa.Function) bool {
	return fn.Pkg != nil && fn.Pkg.Pkg.Path() == "math/bits"
}

// calledOnce reports whether fn is a shared function that the module
// calls from one place only (Config.CalledOnce), to be inlined there. One
// that may recurse keeps the rules of inlinesRecursive.
func (l *lowerer) calledOnce(fn *ssa.Function) bool {
	if l.cfg == nil || len(l.cfg.CalledOnce) == 0 {
		return false
	}
	name, ok := libraryFuncName(fn)
	return ok && l.cfg.CalledOnce[name] && !l.mayRecurse(fn)
}

// ModuleCalledOnce returns the names of the shared functions that the code
// of a module's kernels, lowered, calls from one place only: in one task
// of one kernel, or in one function, which the emitters write once per
// module (a kernel whose multiply-adds are fused has functions of its
// own). A kernel lowered again with them in Config.CalledOnce inlines
// them. The result is nil when there are none.
func ModuleCalledOnce(kernels []*ir.Kernel) map[string]bool {
	type key struct {
		name string
		fma  bool
	}
	calls := map[string]int{}
	count := func(k *ir.Kernel, t *ir.Task) {
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				if f := k.Callee(&b.Instrs[i]); f != nil {
					calls[f.Name]++
				}
			}
		}
	}
	written := map[key]bool{}
	for _, k := range kernels {
		for _, f := range k.Funcs {
			if !written[key{f.Name, k.FMA}] {
				written[key{f.Name, k.FMA}] = true
				count(k, f)
			}
		}
		for _, t := range k.Tasks {
			count(k, t)
		}
	}
	var once map[string]bool
	for name, n := range calls {
		if n == 1 {
			if once == nil {
				once = make(map[string]bool)
			}
			once[name] = true
		}
	}
	return once
}

// CallsAny reports whether kernel k calls a function that names holds.
func CallsAny(k *ir.Kernel, names map[string]bool) bool {
	for _, t := range k.Bodies() {
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				if f := k.Callee(&b.Instrs[i]); f != nil && names[f.Name] {
					return true
				}
			}
		}
	}
	return false
}
