package lower

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/qdgo/qd/internal/fault"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// Kernels call the functions of packages math, math/bits and math/cmplx,
// which are compiled from Go's own source: a call is inlined like a call of
// a helper, and so are the unexported functions those call. A few functions are
// intrinsics instead, lowered to one op or a few: those whose source Go's
// compiler replaces by an instruction (math.Sqrt, math.FMA, bits.OnesCount…)
// or that reinterpret memory through package unsafe (math.Float64bits…), and
// the functions math implements in amd64 assembly, whose algorithms
// package amd64math holds in Go. Each library function is pure.

// A libFunc says how a call of a library function is lowered. A libFunc
// with neither an intrinsic nor a port is compiled from its Go source.
type libFunc struct {
	// intrinsic lowers a call into the registers dst.
	intrinsic func(f *frame, args []ssa.Value, dst []ir.Reg, pos token.Pos)
	// port names the function compiled instead: one of package
	// amd64math, or one of another package by its qualified name
	// (math.max).
	port string
	// unsupported says why kernels cannot call it.
	unsupported string
	// checks emits, before the body, the run-time checks Go's compiler
	// makes at the call, where it replaces the body by an instruction
	// (bits.Div64 on amd64), so that a fault has the call's position.
	checks func(f *frame, args []ssa.Value, pos token.Pos)
}

// libraryPackages are the packages whose functions kernels may call, by
// import path, with the name of each exported function kernels may call.
// (The tables are filled in init: the intrinsics lower calls, which look
// calls up in them.)
var libraryPackages map[string]map[string]libFunc

var mathFuncs map[string]libFunc

func initMath() {
	mathFuncs = map[string]libFunc{
		"Sqrt":        unaryFloat(ir.OpSqrt),
		"Abs":         unaryFloat(ir.OpAbs),
		"Floor":       unaryFloat(ir.OpFloor),
		"Ceil":        unaryFloat(ir.OpCeil),
		"Trunc":       unaryFloat(ir.OpTrunc),
		"RoundToEven": unaryFloat(ir.OpRoundEven),
		"FMA":         {intrinsic: fma},

		"Float64bits":     bitcast(ir.Uint64, ir.Float64),
		"Float64frombits": bitcast(ir.Float64, ir.Uint64),
		"Float32bits":     bitcast(ir.Uint32, ir.Float32),
		"Float32frombits": bitcast(ir.Float32, ir.Uint32),

		// The assembly of package math on amd64 (floor_asm.go, dim_asm.go,
		// exp_asm.go, log_asm.go, hypot_asm.go): Floor, Ceil and Trunc are
		// exact in any algorithm, and Max and Min give the results of Go's own
		// max and min of dim.go.
		"archFloor": unaryFloat(ir.OpFloor),
		"archCeil":  unaryFloat(ir.OpCeil),
		"archTrunc": unaryFloat(ir.OpTrunc),
		"archMax":   {port: "math.max"},
		"archMin":   {port: "math.min"},
		"archExp":   {port: "Exp"},
		"archLog":   {port: "Log"},
		"archHypot": {port: "Hypot"},
	}
	for _, name := range mathSource {
		mathFuncs[name] = libFunc{}
	}
}

// mathSource lists the exported functions of package math that kernels
// compile from Go's source.
var mathSource = strings.Fields(`Acos Acosh Asin Asinh Atan Atan2 Atanh Cbrt Copysign Cosh Dim
	Erf Erfc Erfcinv Erfinv Exp Exp2 Expm1 Frexp Hypot Ilogb Inf IsInf IsNaN Ldexp Log Log10
	Log1p Log2 Logb Max Min Mod Modf NaN Nextafter Nextafter32 Pow Remainder Round Signbit Sinh
	Sin Cos Sincos Tan Tanh Gamma Lgamma Pow10 J0 J1 Jn Y0 Y1 Yn`)

// cmplxFuncs are the functions of package math/cmplx, all compiled from
// Go's source.
var cmplxFuncs = func() map[string]libFunc {
	funcs := map[string]libFunc{}
	for _, name := range strings.Fields(`Abs Acos Acosh Asin Asinh Atan Atanh Conj Cos Cosh Cot Exp
		Inf IsInf IsNaN Log Log10 NaN Phase Polar Pow Rect Sin Sinh Sqrt Tan Tanh`) {
		funcs[name] = libFunc{}
	}
	return funcs
}()

var bitsFuncs map[string]libFunc

func initBits() {
	bitsFuncs = map[string]libFunc{
		"Mul":   {intrinsic: mulWide},
		"Mul32": {intrinsic: mulWide},
		"Mul64": {intrinsic: mulWide},
		"Div":   {checks: quotientChecks},
		"Div32": {},
		"Div64": {checks: quotientChecks},
		"Rem":   {},
		"Rem32": {},
		"Rem64": {},
		"Add":   {},
		"Add32": {},
		"Add64": {},
		"Sub":   {},
		"Sub32": {},
		"Sub64": {},
	}
	for _, width := range []string{"", "8", "16", "32", "64"} {
		bitsFuncs["OnesCount"+width] = bitCount(ir.OpPopCount, false)
		bitsFuncs["LeadingZeros"+width] = bitCount(ir.OpLeadingZeros, false)
		bitsFuncs["TrailingZeros"+width] = bitCount(ir.OpTrailingZeros, false)
		bitsFuncs["Len"+width] = bitCount(ir.OpLeadingZeros, true)
		bitsFuncs["Reverse"+width] = bitPermutation(ir.OpBitReverse)
		bitsFuncs["RotateLeft"+width] = libFunc{}
		if width != "8" {
			bitsFuncs["ReverseBytes"+width] = bitPermutation(ir.OpByteSwap)
		}
	}
}

func init() {
	initMath()
	initBits()
	libraryPackages = map[string]map[string]libFunc{
		"math":        mathFuncs,
		"math/bits":   bitsFuncs,
		"math/cmplx":  cmplxFuncs,
		amd64MathPath: {},
	}
}

// libraryFunc returns how a call of fn is lowered, if fn belongs to a
// library package. A function of a library package that is not in its
// table, such as an unexported helper of package math, is compiled from
// its source when a library function calls it, and cannot be called by
// kernels themselves.
func (f *frame) libraryFunc(fn *ssa.Function) (lib libFunc, isLibrary bool) {
	if fn == nil || fn.Pkg == nil || fn.Signature.Recv() != nil {
		return libFunc{}, false
	}
	path := fn.Pkg.Pkg.Path()
	funcs, ok := libraryPackages[path]
	if !ok {
		return libFunc{}, false
	}
	if lib, ok := funcs[fn.Name()]; ok {
		return lib, true
	}
	if f.inLibrary() {
		return libFunc{}, true
	}
	return libFunc{unsupported: "of package " + path + ", kernels may call the functions docs/language.md lists"}, true
}

// libraryChecks reports whether a call of fn makes run-time checks of its
// arguments before fn's body runs (lib.checks).
func libraryChecks(fn *ssa.Function) bool {
	if fn == nil || fn.Pkg == nil {
		return false
	}
	return libraryPackages[fn.Pkg.Pkg.Path()][fn.Name()].checks != nil
}

// isLibraryFunc reports whether fn is a library function kernels may call:
// such a function is pure.
func isLibraryFunc(fn *ssa.Function) bool {
	if fn == nil || fn.Pkg == nil {
		return false
	}
	lib, ok := libraryPackages[fn.Pkg.Pkg.Path()][fn.Name()]
	return ok && lib.unsupported == ""
}

// inLibrary reports whether f lowers the body of a library function.
func (f *frame) inLibrary() bool {
	return f.fn != nil && f.fn.Pkg != nil && libraryPackages[f.fn.Pkg.Pkg.Path()] != nil
}

// libraryMessage explains why a library function cannot be called.
func libraryMessage(fn *ssa.Function, lib libFunc) string {
	if lib.unsupported == "" {
		return ""
	}
	return fmt.Sprintf("%s.%s is not supported in kernels: %s", fn.Pkg.Pkg.Name(), fn.Name(), lib.unsupported)
}

// libraryCall lowers a call of a library function.
func (f *frame) libraryCall(callee *ssa.Function, lib libFunc, args []ssa.Value, dst []ir.Reg, site callSite) {
	pos := site.pos
	if lib.intrinsic != nil {
		lib.intrinsic(f, args, dst, pos)
		return
	}
	if lib.checks != nil {
		lib.checks(f, args, pos)
	}
	fn := callee
	if lib.port != "" {
		var err error
		if fn, err = f.tb.l.portFunc(callee, lib.port); err != nil {
			f.errorf(pos, "%s: %v", callee.Name(), err)
			return
		}
	}
	if fn.Blocks == nil {
		fn.Pkg.Build() // the bodies of other packages are built when first needed
	}
	if fn.Blocks == nil {
		if !f.tb.l.cfg.CheckOnly {
			f.errorf(pos, "the source of %s.%s is not loaded", fn.Pkg.Pkg.Name(), fn.Name())
		}
		return
	}
	if fn.Pkg.Pkg.Path() == "math" && !f.tb.l.mathIsAMD64(fn.Prog) {
		f.errorf(pos, "kernels compute package math as Go does on amd64, but package math was loaded for another GOARCH: run qdgen with GOARCH=amd64")
		return
	}
	var regs [][]ir.Reg
	for _, a := range args {
		regs = append(regs, f.regs(a))
	}
	if f.tb.l.libraryInlines(fn) || f.recursesInto(fn) || f.inlinesRecursive(fn) || f.tb.l.calledOnce(fn) {
		f.inline(fn, regs, dst, site)
		return
	}
	f.callFunction(fn, regs, dst, pos)
}

// portFunc finds the function a port names: a function of package
// amd64math, or with a package-qualified name, of that package.
func (l *lowerer) portFunc(callee *ssa.Function, port string) (*ssa.Function, error) {
	if pkg, name, ok := strings.Cut(port, "."); ok {
		if fn := callee.Prog.ImportedPackage(pkg).Func(name); fn != nil {
			return fn, nil
		}
		return nil, fmt.Errorf("no function %s", port)
	}
	return amd64MathFunc(callee.Prog, port)
}

// mathIsAMD64 reports whether package math was loaded for amd64, whose
// results kernels reproduce: only there does it declare useFMA.
func (l *lowerer) mathIsAMD64(prog *ssa.Program) bool {
	math := prog.ImportedPackage("math")
	return math != nil && math.Members["useFMA"] != nil
}

func unaryFloat(op ir.Op) libFunc {
	return libFunc{intrinsic: func(f *frame, args []ssa.Value, dst []ir.Reg, pos token.Pos) {
		f.tb.emit(ir.Instr{Op: op, Type: ir.Float64, Dst: dst[0], Args: []ir.Arg{f.arg(args[0])}, Pos: pos})
	}}
}

func fma(f *frame, args []ssa.Value, dst []ir.Reg, pos token.Pos) {
	f.tb.emit(ir.Instr{Op: ir.OpFMA, Type: ir.Float64, Dst: dst[0], Args: []ir.Arg{f.arg(args[0]), f.arg(args[1]), f.arg(args[2])}, Pos: pos})
}

func bitcast(to, from ir.Type) libFunc {
	return libFunc{intrinsic: func(f *frame, args []ssa.Value, dst []ir.Reg, pos token.Pos) {
		f.tb.emit(ir.Instr{Op: ir.OpBitcast, Type: to, From: from, Dst: dst[0], Args: []ir.Arg{f.arg(args[0])}, Pos: pos})
	}}
}

// bitCount lowers a count of bits, which math/bits returns as an int; the
// length of x is its width less its leading zeros.
func bitCount(op ir.Op, length bool) libFunc {
	return libFunc{intrinsic: func(f *frame, args []ssa.Value, dst []ir.Reg, pos token.Pos) {
		tb := f.tb
		t, _ := basicType(args[0].Type())
		n := tb.t.NewReg(t)
		tb.emit(ir.Instr{Op: op, Type: t, Dst: n, Args: []ir.Arg{f.arg(args[0])}, Pos: pos})
		count := tb.convert(ir.R(n), t, ir.Int64)
		if !length {
			tb.move(dst[0], count)
			return
		}
		tb.emit(ir.Instr{Op: ir.OpSub, Type: ir.Int64, Dst: dst[0], Args: []ir.Arg{ir.Imm(ir.Int64, uint64(t.Bits())), count}, Pos: pos})
	}}
}

func bitPermutation(op ir.Op) libFunc {
	return libFunc{intrinsic: func(f *frame, args []ssa.Value, dst []ir.Reg, pos token.Pos) {
		t, _ := basicType(args[0].Type())
		f.tb.emit(ir.Instr{Op: op, Type: t, Dst: dst[0], Args: []ir.Arg{f.arg(args[0])}, Pos: pos})
	}}
}

// mulWide lowers bits.Mul, Mul32 and Mul64: the high and the low half of
// the double-width product.
func mulWide(f *frame, args []ssa.Value, dst []ir.Reg, pos token.Pos) {
	t, _ := basicType(args[0].Type())
	x, y := f.arg(args[0]), f.arg(args[1])
	f.tb.emit(ir.Instr{Op: ir.OpMulHi, Type: t, Dst: dst[0], Args: []ir.Arg{x, y}, Pos: pos})
	f.tb.emit(ir.Instr{Op: ir.OpMul, Type: t, Dst: dst[1], Args: []ir.Arg{x, y}, Pos: pos})
}

// libraryPanic lowers a panic of a library function. The panics of
// math/bits (Div64 and its kin) are Go's run-time errors, which become
// faults with Go's messages at the panic's place in Go's source, where Go
// reports them too; any other panic of a library (math/cmplx's "not
// reached") cannot happen, and ends the thread.
func (f *frame) libraryPanic(p *ssa.Panic) {
	if kind, ok := runtimeError(p.X); ok {
		f.raise(p.Pos(), kind)
		return
	}
	f.tb.cur.Term = ir.Term{Kind: ir.Return}
}

// raise ends the current block with a fault of the given kind at pos: a
// check that always fails.
func (f *frame) raise(pos token.Pos, kind fault.Kind) {
	f.tb.emit(ir.Instr{Op: ir.OpCheckDivide, Type: ir.Uint64, Args: []ir.Arg{ir.Imm(ir.Uint64, 0)}, Aux: f.site(pos, kind, false), Pos: pos})
	f.tb.cur.Term = ir.Term{Kind: ir.Return}
}

// runtimeErrors are the run-time errors math/bits panics with, which it
// links from package runtime.
var runtimeErrors = map[string]fault.Kind{"divideError": fault.Divide, "overflowError": fault.Overflow}

// runtimeError reports the kind of fault a panic's value v is.
func runtimeError(v ssa.Value) (fault.Kind, bool) {
	if c, ok := v.(*ssa.ChangeInterface); ok {
		v = c.X // error to any
	}
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return 0, false
	}
	g, ok := load.X.(*ssa.Global)
	if !ok || g.Pkg == nil || g.Pkg.Pkg.Path() != "math/bits" {
		return 0, false
	}
	kind, ok := runtimeErrors[g.Name()]
	return kind, ok
}

// onlyPanicked reports whether v is used only as the value of panics,
// converted to another interface or not.
func onlyPanicked(v ssa.Value) bool {
	refs := v.Referrers()
	if refs == nil || len(*refs) == 0 {
		return false
	}
	for _, r := range *refs {
		switch r := r.(type) {
		case *ssa.Panic:
		case *ssa.ChangeInterface:
			if !onlyPanicked(r) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// quotientChecks emits the checks of bits.Div64(hi, lo, y) that Go makes
// at the call on amd64: y is not zero, and hi < y, else the quotient
// overflows.
func quotientChecks(f *frame, args []ssa.Value, pos token.Pos) {
	tb := f.tb
	hi, y := f.arg(args[0]), f.arg(args[2])
	tb.emit(ir.Instr{Op: ir.OpCheckDivide, Type: ir.Uint64, Args: []ir.Arg{y}, Aux: f.site(pos, fault.Divide, false), Pos: pos})
	fits := tb.op(ir.OpLt, ir.Uint64, hi, y)
	overflow, cont := tb.t.NewBlock("overflow"), tb.t.NewBlock("quotient")
	tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(fits), Succs: [2]int{cont.Index, overflow.Index}}
	tb.cur = overflow
	f.raise(pos, fault.Overflow)
	tb.cur = cont
}
