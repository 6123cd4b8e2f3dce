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
//     math.IsNaN, math.Copysign or math.Inf is worth;
//   - the intrinsics, lowered to an instruction or a few (math.Abs,
//     math.Float64bits, bits.OnesCount…), are never called;
//   - a function whose code may get one of Go's run-time checks (mayCheck:
//     a table indexed by a variable, bits.Div64's panics), whose fault a
//     device function cannot report, or that may recurse, or whose
//     parameters a device function cannot take (hasSignature).
const libraryInlineBudget = 40

// libraryInlines reports whether a call of fn, a library function compiled
// from its source (after any port), is inlined rather than called.
func (l *lowerer) libraryInlines(fn *ssa.Function) bool {
	return l.inlineSize(fn) <= libraryInlineBudget || !l.hasSignature(fn) ||
		!l.pureFunction(fn) || l.mayCheck(fn) || l.mayRecurse(fn)
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
	if fn.Pkg == nil || libraryPackages[fn.Pkg.Pkg.Path()] == nil {
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
