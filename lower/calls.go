package lower

import (
	"fmt"
	"go/build"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// callMessage explains why a call cannot be in a kernel, or returns "".
func (f *frame) callMessage(v *ssa.Call) string {
	common := v.Common()
	if common.IsInvoke() {
		return "calling methods of interfaces is not supported in kernels"
	}
	if b, ok := common.Value.(*ssa.Builtin); ok {
		return builtinMessage(b.Name(), common.Args)
	}
	callee := common.StaticCallee()
	if callee == nil {
		return "calling function values is not supported in kernels: call a function by its name"
	}
	if _, ok, msg := atomicCallee(callee); ok {
		return msg
	}
	if _, marker := blockMarker(v); marker != "" || collectiveCallee(v) != "" {
		return "" // placed or reported where it is lowered
	}
	if fmtPrintCallee(callee) {
		_, msg := fmtPrint(v)
		return msg
	}
	if callee.Pkg != nil && callee.Pkg.Pkg.Path() == QDPath {
		if callee.Name() != "StreamParallel" {
			return fmt.Sprintf("qd.%s cannot be called in a kernel", callee.Name())
		}
		switch {
		case f.parent != nil || f.isFunc:
			return "qd.StreamParallel can only be called at the top level of a //qd:kernel function, not in a function a kernel calls"
		case f.fn != f.tb.l.fn:
			return "qd.StreamParallel blocks cannot be nested: put the inner block's work in the outer block, or make it a block of its own"
		}
		return "qd.StreamParallel must be a statement at the top level of the kernel, not inside if, for or switch"
	}
	if lib, ok := f.libraryFunc(callee); ok {
		return libraryMessage(callee, lib)
	}
	if err := f.tb.l.callable(callee); err != nil {
		return err.Error()
	}
	return ""
}

func (f *frame) call(v *ssa.Call, dst []ir.Reg) {
	common := v.Common()
	if b, ok := common.Value.(*ssa.Builtin); ok {
		f.builtin(v, b.Name(), common.Args, dst)
		return
	}
	if _, marker := blockMarker(v); marker != "" {
		f.blockMarker(v, marker, dst)
		return
	}
	if name := collectiveCallee(v); name != "" {
		f.collective(v, name, dst)
		return
	}
	callee := common.StaticCallee()
	if af, ok, _ := atomicCallee(callee); ok {
		f.atomic(v, af, dst)
		return
	}
	if g := f.tailRecursion(v, callee); g != nil {
		f.jumpToEntry(g, common.Args)
		return
	}
	site := callSite{pos: v.Pos(), tail: isTailCall(v)}
	if lib, ok := f.libraryFunc(callee); ok {
		f.libraryCall(callee, lib, common.Args, dst, site)
		return
	}
	var args [][]ir.Reg
	for _, a := range common.Args {
		args = append(args, f.regs(a))
	}
	if f.tb.l.inlines(callee) || isShared(callee) && f.tb.l.calledOnce(callee) {
		f.inline(callee, args, dst, site)
	} else {
		f.callFunction(callee, args, dst, site.pos)
	}
}

// callable reports why fn cannot be called from a kernel.
func (l *lowerer) callable(fn *ssa.Function) error {
	name := fn.String()
	pkg := fn.Pkg
	if pkg == nil && fn.Origin() != nil {
		pkg = fn.Origin().Pkg // an instance of a generic function
	}
	if pkg != nil {
		name = pkg.Pkg.Name() + "." + fn.Name()
	}
	if pkg != nil && pkg.Pkg.Path() == "fmt" && strings.Contains(fn.Name(), "Print") {
		return fmt.Errorf("%s is not supported in kernels: printing is not; write values into a slice and print them on the host", name)
	}
	if fn.Parent() != nil {
		return fmt.Errorf(funcLitMessage)
	}
	if msg := syntheticMessage(fn); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	if pkg == nil || fn.Object() == nil && fn.Origin() == nil {
		return fmt.Errorf("calling %s is not supported in kernels: call functions and methods by name", fn.Name())
	}
	if l.inStandardLibrary(fn) {
		return fmt.Errorf("%s is not supported in kernels: kernels may call functions of your own packages and of packages math, math/bits and math/cmplx", name)
	}
	if fn.TypeParams().Len() > 0 && fn.Origin() == nil {
		return fmt.Errorf("generic function %s is not supported in kernels", name)
	}
	if fn.Blocks == nil && fn.Pkg != nil {
		fn.Pkg.Build() // bodies of other packages are built when first needed
	}
	if fn.Blocks == nil && !(l.cfg.CheckOnly && l.cfg.External != nil) {
		return fmt.Errorf("the body of %s is not available", name)
	}
	if fn.Blocks == nil {
		if _, err := l.cfg.External(fn); err != nil {
			return fmt.Errorf("%s cannot be called from a kernel: %v", name, err)
		}
	}
	return nil
}

func (l *lowerer) inStandardLibrary(fn *ssa.Function) bool {
	return InStandardLibrary(l.fset, fn.Pos())
}

// InStandardLibrary reports whether pos lies in a file of the standard
// library, whose functions kernels cannot call, except those of math and
// math/bits (library.go).
func InStandardLibrary(fset *token.FileSet, pos token.Pos) bool {
	file := fset.File(pos)
	return file != nil && strings.HasPrefix(file.Name(), goroot)
}

var goroot = filepath.Join(build.Default.GOROOT, "src") + string(filepath.Separator)

// A callSite is where a helper is inlined: the call's position, and
// whether the call is a tail call.
type callSite struct {
	pos  token.Pos
	tail bool
}

// inline lowers a call of callee by copying its body into the task.
func (f *frame) inline(callee *ssa.Function, args [][]ir.Reg, dst []ir.Reg, site callSite) {
	tb := f.tb
	pos := site.pos
	if !f.callableHere(callee, pos) || !tb.l.inlineFits(callee, pos) {
		return
	}
	if syn := callee.Syntax(); syn != nil && !slices.Contains(tb.l.syntax, syn) {
		tb.l.syntax = append(tb.l.syntax, syn)
	}
	live := liveBlocks(callee)
	g := tb.newFrame(callee, func(b *ssa.BasicBlock) bool { return live[b] })
	g.parent = f
	g.callPos = pos
	g.tail = site.tail
	g.ownParams = tb.l.mayRecurse(callee)
	for i, p := range callee.Params {
		if i >= len(args) {
			break
		}
		g.vals[p] = args[i]
		if g.ownParams {
			g.vals[p] = make([]ir.Reg, len(args[i]))
			for j, r := range args[i] {
				g.vals[p][j] = tb.t.NewReg(tb.t.Regs[r])
				tb.move(g.vals[p][j], ir.R(r))
			}
		}
	}
	if len(callee.FreeVars) > 0 {
		f.errorf(pos, "calling closures is not supported in kernels")
		return
	}
	for _, p := range callee.Params {
		if needsMemory(p) {
			g.defineInMemory(p)
		}
	}
	for _, b := range callee.Blocks {
		if live[b] {
			g.start[b] = tb.t.NewBlock(fmt.Sprintf("%s.%s", callee.Name(), b.Comment))
		}
	}
	g.results = dst
	g.cont = tb.t.NewBlock(fmt.Sprintf("%s.return", callee.Name()))
	tb.jump(g.start[callee.Blocks[0]])
	for _, b := range callee.Blocks {
		if live[b] {
			g.lowerBlock(b)
		}
	}
	tb.cur = g.cont
	// A helper whose every path ends in a tail call of a function it is
	// inlined into never returns here: what follows the call is dead.
	f.ended = !g.returns
}

// liveBlocks returns the blocks of fn that control can reach when every
// branch on a constant goes the one way it can, so that code behind a
// false constant (if haveArchSin { return archSin(x) } in package math, or
// a user's if debug { … }) is not lowered at all.
func liveBlocks(fn *ssa.Function) map[*ssa.BasicBlock]bool {
	live := make(map[*ssa.BasicBlock]bool)
	var visit func(b *ssa.BasicBlock)
	visit = func(b *ssa.BasicBlock) {
		if live[b] {
			return
		}
		live[b] = true
		if s, ok := constantSuccessor(b); ok {
			visit(s)
			return
		}
		for _, s := range b.Succs {
			visit(s)
		}
	}
	visit(fn.Blocks[0])
	return live
}

// constantSuccessor returns the successor b branches to when it ends in an
// if on a constant.
func constantSuccessor(b *ssa.BasicBlock) (*ssa.BasicBlock, bool) {
	last, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
	if !ok {
		return nil, false
	}
	c, ok := last.Cond.(*ssa.Const)
	if !ok || c.Value == nil {
		return nil, false
	}
	if constant.BoolVal(c.Value) {
		return b.Succs[0], true
	}
	return b.Succs[1], true
}

// callableHere reports whether callee can be lowered where f calls it at
// pos: it has a body, does not recurse and has no loop that never ends.
func (f *frame) callableHere(callee *ssa.Function, pos token.Pos) bool {
	for g := f; g != nil; g = g.up() {
		if g.fn == callee {
			f.errorf(pos, "recursive call of %s: kernels cannot recurse; use a loop", callee.Name())
			return false
		}
	}
	if callee.Blocks == nil {
		return false // allowed by Config.External in CheckOnly mode
	}
	return !f.tb.l.checkEndless(callee)
}

// builtinMessage explains why a builtin cannot be called in a kernel, or
// returns "".
func builtinMessage(name string, args []ssa.Value) string {
	switch name {
	case "len", "cap":
		if _, ok := sliceElem(args[0].Type()); !ok {
			return fmt.Sprintf("%s of %s is not supported in kernels", name, describeType(args[0].Type()))
		}
		return ""
	case "min", "max", "real", "imag", "complex":
		return ""
	case "append":
		return appendMessage
	case "copy":
		return "copy is not supported in kernels: copy the elements by index in a loop"
	case "print", "println":
		_, msg := printBuiltin(name, args)
		return msg
	case "ssa:wrapnilchk":
		return "method values are not supported in kernels: call the method directly"
	}
	return fmt.Sprintf("builtin %s is not supported in kernels", name)
}

// builtin lowers a call of a supported builtin function.
func (f *frame) builtin(v *ssa.Call, name string, args []ssa.Value, dst []ir.Reg) {
	tb := f.tb
	switch name {
	case "len", "cap":
		s := f.regs(args[0])
		if name == "len" {
			tb.move(dst[0], ir.R(s[1]))
		} else {
			tb.move(dst[0], ir.R(s[2]))
		}
	case "real", "imag":
		x := f.leafArgs(args[0])
		if name == "imag" {
			x = x[1:]
		}
		tb.move(dst[0], x[0])
	case "complex":
		tb.move(dst[0], f.arg(args[0]))
		tb.move(dst[1], f.arg(args[1]))
	case "print", "println":
		if p, msg := printBuiltin(name, args); msg == "" {
			f.emitPrint(v, p)
		}
	case "min", "max":
		t, ok := basicType(v.Type())
		if !ok || t == ir.Bool {
			f.errorf(v.Pos(), "%s of %s is not supported in kernels", name, v.Type())
			return
		}
		op := ir.OpMin
		if name == "max" {
			op = ir.OpMax
		}
		acc := f.arg(args[0])
		for i, a := range args[1:] {
			in := ir.Instr{Op: op, Type: t, Args: []ir.Arg{acc, f.arg(a)}, Pos: v.Pos()}
			if i == len(args)-2 {
				in.Dst = dst[0]
			} else {
				in.Dst = tb.t.NewReg(t)
			}
			tb.emit(in)
			acc = ir.R(in.Dst)
		}
		if len(args) == 1 {
			tb.move(dst[0], acc)
		}
	}
}

// narrowOps are the functions of package math whose float32 form gives the
// float32 of their float64 result on a float32 argument: Sqrt because it is
// correctly rounded in both widths, the others because they are exact.
var narrowOps = map[string]ir.Op{
	"Sqrt": ir.OpSqrt, "Abs": ir.OpAbs, "Floor": ir.OpFloor, "Ceil": ir.OpCeil, "Trunc": ir.OpTrunc, "RoundToEven": ir.OpRoundEven,
}

func narrowable(fn *ssa.Function) (ir.Op, bool) {
	if fn == nil || fn.Pkg == nil || fn.Pkg.Pkg.Path() != "math" {
		return ir.OpInvalid, false
	}
	op, ok := narrowOps[fn.Name()]
	return op, ok
}

// narrowFloatIntrinsic lowers float32(math.F(float64(x))) for a float32 x
// to the float32 form of F (narrowOps).
func (f *frame) narrowFloatIntrinsic(v *ssa.Convert, dst []ir.Reg) bool {
	if !isBasicKind(v.Type(), types.Float32) {
		return false
	}
	call, ok := v.X.(*ssa.Call)
	if !ok || call.Common().IsInvoke() || len(call.Common().Args) != 1 {
		return false
	}
	op, ok := narrowable(call.Common().StaticCallee())
	if !ok {
		return false
	}
	widen, ok := call.Common().Args[0].(*ssa.Convert)
	if !ok || !isBasicKind(widen.X.Type(), types.Float32) {
		return false
	}
	f.tb.emit(ir.Instr{Op: op, Type: ir.Float32, Dst: dst[0], Args: []ir.Arg{f.arg(widen.X)}, Pos: v.Pos()})
	return true
}

func isBasicKind(t types.Type, kind types.BasicKind) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == kind
}
