package lower

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strings"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// instr lowers one non-terminator instruction of an owned block. What
// kernels cannot have at all is reported at the construct itself (a go
// statement, a function literal, a call of an unsupported function), even
// when its operands were reported already; otherwise an instruction that
// uses a value already reported as unsupported is skipped, so that one
// mistake gives one diagnostic.
func (f *frame) instr(instr ssa.Instruction) {
	l := f.tb.l
	f.at = instr.Pos()
	if f.at.IsValid() {
		f.tb.at = f.at
	}
	v, isValue := instr.(ssa.Value)
	if isValue && f.inLibrary() && onlyPanicked(v) {
		return // the value of a library's panic (libraryPanic)
	}
	if fmtArgsPart(instr) {
		return // the print reads the arguments itself
	}
	before := len(l.diags)
	defer func() {
		if isValue && len(l.diags) > before {
			l.failed[v] = true
		}
	}()
	if f.construct(instr) {
		if isValue {
			l.failed[v] = true
		}
		return
	}
	if f.usesFailed(instr) {
		if isValue {
			l.failed[v] = true
		}
		return
	}
	if !f.checkGlobals(instr) {
		return
	}
	if c, ok := instr.(*ssa.Call); ok && fmtPrintCallee(c.Common().StaticCallee()) {
		if p, msg := fmtPrint(c); msg == "" {
			f.emitPrint(c, p)
		}
		return
	}
	switch in := instr.(type) {
	case *ssa.DebugRef, *ssa.RunDefers:
		// RunDefers comes with a Defer, which is reported.
	case *ssa.Store:
		f.store(in)
	case *ssa.MakeInterface:
		// Whatever uses an interface value is reported instead: a call, a
		// panic, a method call or a type assertion.
		f.regsFor(in)
	case *ssa.Alloc:
		if _, isCell := l.cells[in]; isCell || f.fn != l.fn && capturedByBlock(in) {
			return // a cell, or a variable of a misplaced block, which is reported
		}
		if capturedByClosure(in) && !(isAggregate(in.Type().Underlying().(*types.Pointer).Elem()) && l.replayable(in)) {
			f.errorf(in.Pos(), "%s", f.allocMessage(in))
			return
		}
		f.alloc(in)
	case *ssa.MakeClosure:
		// A block's closure; others are constructs.
	case ssa.Value:
		if needsMemory(in) {
			f.defineInMemory(in)
			return
		}
		if isMemoryCopy(in) {
			return // the store copies memory to memory
		}
		regs := f.regsFor(in)
		if len(l.diags) > before {
			return
		}
		f.valueInto(instr, regs)
	default:
		f.errorf(instr.Pos(), "%T is not supported in kernels", instr)
	}
}

// The diagnostics of function literals and of ranges over functions.
const (
	funcLitMessage   = "function literals are only supported as the argument of qd.StreamParallel: declare a function instead"
	rangeFuncMessage = "range over a function is not supported in kernels: range over an int or a slice"
)

// syntheticMessage explains why a function go/ssa made, not the user, cannot
// be called, if it cannot: it is how Go runs a method value or a method
// expression.
func syntheticMessage(fn *ssa.Function) string {
	switch {
	case strings.HasPrefix(fn.Synthetic, "bound method"):
		return "method values are not supported in kernels: call the method directly"
	case strings.HasPrefix(fn.Synthetic, "thunk"):
		return "method expressions are not supported in kernels: call the method on a value"
	}
	return ""
}

// construct reports instr if it is, or belongs to, a construct kernels
// cannot have, at the construct: a go or defer statement, a function
// literal, a range over a function, or an instruction unsupported
// whatever its operands. The variables such a construct captures are
// failed without a diagnostic of their own. It returns whether instr was
// handled so.
func (f *frame) construct(instr ssa.Instruction) bool {
	l := f.tb.l
	switch in := instr.(type) {
	case *ssa.Go:
		f.errorf(in.Pos(), "go statements are not supported in kernels: a kernel's top-level loops already run in parallel")
	case *ssa.Defer:
		f.errorf(in.Pos(), "defer is not supported in kernels: write the deferred statements at the end of the function")
	case *ssa.Send:
		f.errorf(in.Pos(), "channels are not supported in kernels")
	case *ssa.MapUpdate:
		if !f.usesFailed(instr) { // else reported where the map is made
			f.errorf(in.Pos(), "%s", mapMessage)
		}
	case *ssa.Alloc:
		switch {
		case in.Comment == "varargs" && f.varargsCallFails(in):
			// The call is reported.
		case !in.Heap || l.cells[in] != nil || capturedByBlock(in) || !capturedByClosure(in) && !rangeFuncVar(in):
			return false
		}
		// Otherwise the closure or range statement that captures it is
		// reported.
	case *ssa.MakeClosure:
		fn := in.Fn.(*ssa.Function)
		switch {
		case l.blockClosures[in] || isBlockArgument(in):
			return false
		case fn.Synthetic == rangeFuncYield:
			f.errorf(fn.Pos(), rangeFuncMessage)
		case onlyGoOrDefer(in):
		case syntheticMessage(fn) != "":
			f.errorf(in.Pos(), "%s", syntheticMessage(fn))
		default:
			f.errorf(fn.Pos(), funcLitMessage)
		}
	case *ssa.Call:
		if b, ok := in.Common().Value.(*ssa.Builtin); ok && operandTyped[b.Name()] || l.failed[in.Common().Value] {
			// Whether these builtins are supported depends on their
			// operands; a function value that failed was reported.
			return !f.usesFailed(instr) && f.unsupportedAt(in)
		}
		if callee := in.Common().StaticCallee(); callee != nil && callee.Parent() != nil && !streamParallelCallee(in) {
			if callee.Synthetic == rangeFuncYield {
				f.errorf(callee.Pos(), rangeFuncMessage)
			} else {
				f.errorf(callee.Pos(), funcLitMessage)
			}
			return true
		}
		return f.unsupportedAt(in)
	case ssa.Value:
		return !f.usesFailed(instr) && f.unsupportedAt(in)
	default:
		return false
	}
	return true
}

// unsupportedAt reports v if kernels cannot have it whatever its operands.
func (f *frame) unsupportedAt(v ssa.Value) bool {
	msg := f.unsupported(v)
	if msg == "" {
		return false
	}
	f.errorf(v.Pos(), "%s", msg)
	return true
}

// varargsCallFails reports whether the slice of variadic arguments v goes
// to a call that is reported itself.
func (f *frame) varargsCallFails(v *ssa.Alloc) bool {
	for _, r := range *v.Referrers() {
		sl, ok := r.(*ssa.Slice)
		if !ok {
			continue
		}
		for _, u := range *sl.Referrers() {
			if c, ok := u.(*ssa.Call); ok && f.callMessage(c) != "" {
				return true
			}
		}
	}
	return false
}

// operandTyped are the builtins kernels support for some operands.
var operandTyped = map[string]bool{"len": true, "cap": true, "min": true, "max": true, "print": true, "println": true}

// rangeFuncYield is what go/ssa calls the function it makes of the body of
// a range over a function.
const rangeFuncYield = "range-over-func yield"

// capturedByClosure reports whether a variable is captured by a closure.
func capturedByClosure(v *ssa.Alloc) bool {
	for _, r := range *v.Referrers() {
		if _, ok := r.(*ssa.MakeClosure); ok {
			return true
		}
	}
	return false
}

// rangeFuncVar reports whether v is a variable go/ssa makes for a range
// over a function.
func rangeFuncVar(v *ssa.Alloc) bool {
	for _, r := range *v.Referrers() {
		if mc, ok := r.(*ssa.MakeClosure); ok && mc.Fn.(*ssa.Function).Synthetic == rangeFuncYield {
			return true
		}
	}
	return false
}

// onlyGoOrDefer reports whether a closure is only the function of go or
// defer statements, which are reported instead.
func onlyGoOrDefer(mc *ssa.MakeClosure) bool {
	refs := *mc.Referrers()
	for _, r := range refs {
		switch r := r.(type) {
		case *ssa.Go:
			if r.Call.Value != ssa.Value(mc) {
				return false
			}
		case *ssa.Defer:
			if r.Call.Value != ssa.Value(mc) {
				return false
			}
		default:
			return false
		}
	}
	return len(refs) > 0
}

// usesFailed reports whether an operand of instr was reported unsupported.
func (f *frame) usesFailed(instr ssa.Instruction) bool {
	var ops [8]*ssa.Value
	for _, op := range instr.Operands(ops[:0]) {
		if *op != nil && f.tb.l.failed[*op] {
			return true
		}
	}
	return false
}

// unsupported returns the diagnostic for an instruction kernels cannot
// have at all, before its value's type is looked at.
func (f *frame) unsupported(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.MakeSlice:
		return "make allocates memory, which kernels cannot do: pass a slice parameter of the size you need"
	case *ssa.MakeMap:
		return mapMessage
	case *ssa.Lookup:
		if _, ok := v.X.Type().Underlying().(*types.Map); ok {
			return mapMessage
		}
		return stringIndexMessage
	case *ssa.MakeChan, *ssa.Select:
		return "channels are not supported in kernels"
	case *ssa.TypeAssert, *ssa.ChangeInterface:
		return "interfaces are not supported in kernels"
	case *ssa.Index:
		if _, ok := v.X.Type().Underlying().(*types.Array); !ok {
			return stringIndexMessage
		}
	case *ssa.Range, *ssa.Next:
		return "range over maps, strings, channels and functions is not supported in kernels: range over an int or a slice"
	case *ssa.SliceToArrayPointer:
		return "converting a slice to an array pointer is not supported in kernels"
	case *ssa.MultiConvert:
		return "conversions of type-parameter values are not supported in kernels"
	case *ssa.UnOp:
		if v.Op == token.ARROW {
			return "channels are not supported in kernels"
		}
	case *ssa.Call:
		return f.callMessage(v)
	}
	return ""
}

// mapMessage is the diagnostic of a map, made, updated or indexed.
const mapMessage = "maps are not supported in kernels: index a slice or an array by the key, " +
	"or make the map a constant table (var t = [...]T{...}) when its keys are small integers"

// stringIndexMessage is the diagnostic of indexing a string, which a
// table of bytes does instead.
const stringIndexMessage = "indexing strings is not supported in kernels: " +
	"make the string a table of bytes (var digits = [...]byte{'0', '1', ...}), or pass a []byte parameter"

// valueInto computes the value of instr into the registers dst.
func (f *frame) valueInto(instr ssa.Instruction, dst []ir.Reg) {
	tb := f.tb
	switch v := instr.(type) {
	case *ssa.BinOp:
		f.binOp(v, dst)
	case *ssa.UnOp:
		f.unOp(v, dst)
	case *ssa.Convert:
		f.convert(v, dst)
	case *ssa.ChangeType:
		args := f.leafArgs(v.X)
		for i := range min(len(args), len(dst)) {
			tb.move(dst[i], args[i])
		}
	case *ssa.IndexAddr:
		if l := f.tb.l; l.threadOwn[v] {
			tb.move(dst[0], f.arg(v.X)) // a thread's own part of a per-thread variable
			return
		}
		f.indexAddr(v, dst)
	case *ssa.FieldAddr:
		f.fieldAddr(v, dst)
	case *ssa.Field:
		f.field(v, dst)
	case *ssa.Index:
		f.index(v, dst)
	case *ssa.Slice:
		if _, ok := v.X.Type().Underlying().(*types.Pointer); ok {
			f.sliceArray(v, dst)
			return
		}
		f.slice(v, dst)
	case *ssa.Extract:
		regs := f.regs(v.Tuple)
		tup := v.Tuple.Type().(*types.Tuple)
		off := 0
		for i := range v.Index {
			ts, _ := regTypes(tup.At(i).Type())
			off += len(ts)
		}
		for i := range dst {
			tb.move(dst[i], ir.R(regs[off+i]))
		}
	case *ssa.Call:
		f.call(v, dst)
	case *ssa.Phi:
		f.errorf(v.Pos(), "internal error: phi lowered as a value")
	default:
		f.errorf(instr.Pos(), "%T is not supported in kernels", instr)
	}
}

// allocMessage explains why an allocation cannot be in a kernel.
func (f *frame) allocMessage(v *ssa.Alloc) string {
	switch v.Comment {
	case "slicelit":
		return "slice literals allocate memory, which kernels cannot do: use an array literal ([...]T{...}), or a slice parameter"
	case "makeslice":
		return "make allocates memory, which kernels cannot do: use an array of constant size, or pass a slice parameter of the size you need"
	case "varargs":
		if usedByAppend(v) {
			return appendMessage
		}
		return "calling a variadic function builds a slice, which kernels cannot do: pass a slice parameter"
	}
	for _, r := range *v.Referrers() {
		if mc, ok := r.(*ssa.MakeClosure); ok && f.tb.l.blockClosures[mc] {
			return cellMessage(v)
		}
	}
	return fmt.Sprintf("variable %s is captured by a function literal: kernels support function literals only as the argument of qd.StreamParallel", v.Comment)
}

// usedByAppend reports whether the variadic slice built in v goes to append.
func usedByAppend(v *ssa.Alloc) bool {
	for _, r := range *v.Referrers() {
		sl, ok := r.(*ssa.Slice)
		if !ok {
			continue
		}
		for _, u := range *sl.Referrers() {
			if c, ok := u.(*ssa.Call); ok {
				if b, ok := c.Common().Value.(*ssa.Builtin); ok && b.Name() == "append" {
					return true
				}
			}
		}
	}
	return false
}

var binOps = map[token.Token]ir.Op{
	token.ADD: ir.OpAdd, token.SUB: ir.OpSub, token.MUL: ir.OpMul, token.QUO: ir.OpDiv,
	token.REM: ir.OpRem, token.AND: ir.OpAnd, token.OR: ir.OpOr, token.XOR: ir.OpXor,
	token.AND_NOT: ir.OpAndNot, token.SHL: ir.OpShl, token.SHR: ir.OpShr,
	token.EQL: ir.OpEq, token.NEQ: ir.OpNe, token.LSS: ir.OpLt, token.LEQ: ir.OpLe,
	token.GTR: ir.OpGt, token.GEQ: ir.OpGe,
}

func (f *frame) binOp(v *ssa.BinOp, dst []ir.Reg) {
	switch {
	case isComplex(v.X.Type()) && v.Op != token.EQL && v.Op != token.NEQ:
		f.complexArith(v, dst)
		return
	case isAggregate(v.X.Type()) && (v.Op == token.EQL || v.Op == token.NEQ):
		f.compareAggregates(v, dst)
		return
	}
	xt, ok := basicType(v.X.Type())
	op, known := binOps[v.Op]
	if !ok || !known {
		f.errorf(v.Pos(), "operator %s on %s is not supported in kernels: %s are not supported", v.Op, v.X.Type(), describeType(v.X.Type()))
		return
	}
	in := ir.Instr{Op: op, Type: xt, Dst: dst[0], Pos: v.Pos()}
	if op == ir.OpShl || op == ir.OpShr {
		ct, _ := basicType(v.Y.Type())
		in.From = ct
	}
	in.Args = []ir.Arg{f.arg(v.X), f.arg(v.Y)}
	if (op == ir.OpDiv || op == ir.OpRem) && xt.IsInteger() {
		f.checkDivisor(v, xt, in.Args[1])
	}
	if xt.IsFloat() && f.roundedMul(v) {
		in.Dst = f.tb.t.NewReg(xt)
		f.tb.emit(in)
		f.tb.emit(ir.Instr{Op: ir.OpConvert, Type: xt, From: xt, Dst: dst[0], Args: []ir.Arg{ir.R(in.Dst)}, Pos: v.Pos()})
		return
	}
	f.tb.emit(in)
}

func (f *frame) unOp(v *ssa.UnOp, dst []ir.Reg) {
	switch v.Op {
	case token.SUB, token.XOR, token.NOT:
		if isComplex(v.X.Type()) && v.Op == token.SUB {
			x := f.leafArgs(v.X)
			for i := range dst {
				f.tb.emit(ir.Instr{Op: ir.OpNeg, Type: f.tb.t.Regs[dst[i]], Dst: dst[i], Args: []ir.Arg{x[i]}, Pos: v.Pos()})
			}
			return
		}
		t, ok := basicType(v.X.Type())
		if !ok {
			f.errorf(v.Pos(), "operator %s on %s is not supported in kernels", v.Op, v.X.Type())
			return
		}
		op := ir.OpNeg
		if v.Op != token.SUB {
			op = ir.OpNot
		}
		f.tb.emit(ir.Instr{Op: op, Type: t, Dst: dst[0], Args: []ir.Arg{f.arg(v.X)}, Pos: v.Pos()})
	case token.MUL:
		f.load(v, dst)
	case token.ARROW:
		f.errorf(v.Pos(), "channels are not supported in kernels")
	default:
		f.errorf(v.Pos(), "operator %s is not supported in kernels", v.Op)
	}
}

// load lowers *p.
func (f *frame) load(v *ssa.UnOp, dst []ir.Reg) {
	if value, ok := f.capturedCell(v.X); ok {
		if c, isConst := value.(*ssa.Const); isConst && len(dst) == 1 {
			f.tb.move(dst[0], f.arg(c))
			return
		}
		for i, r := range f.regs(value) {
			f.tb.move(dst[i], ir.R(r))
		}
		return
	}
	f.loadValue(f.arg(v.X), v.Type(), dst, loadPos(v))
}

// loadPos is the position of a load: its own, or for the element a range
// statement reads, which go/ssa leaves without one, its address's.
func loadPos(v *ssa.UnOp) token.Pos {
	if addr, ok := v.X.(*ssa.IndexAddr); ok && !v.Pos().IsValid() {
		return addr.Pos()
	}
	return v.Pos()
}

func (f *frame) store(s *ssa.Store) {
	if alloc, ok := s.Addr.(*ssa.Alloc); ok {
		if _, isCell := f.tb.l.cells[alloc]; isCell || f.fn != f.tb.l.fn && capturedByBlock(alloc) {
			return // the cell stands for the value stored
		}
	}
	if _, ok := s.Addr.(*ssa.FreeVar); ok {
		f.errorf(s.Pos(), "a qd.StreamParallel block cannot assign variables of its kernel: write results into a slice")
		return
	}
	if g := rootGlobal(s.Addr); g != nil {
		f.errorf(s.Pos(), "package-level variable %s is written in a kernel: kernels may only read package-level variables, as constant tables; write results into a slice parameter", g.Name())
		return
	}
	if load, ok := s.Val.(*ssa.UnOp); ok && isMemoryCopy(load) {
		f.copyValue(f.arg(s.Addr), f.arg(load.X), s.Val.Type(), s.Pos())
		return
	}
	f.storeValue(f.arg(s.Addr), s.Val.Type(), f.leafArgs(s.Val), s.Pos())
}

// rootGlobal returns the package-level variable an address points into,
// following field and element addresses, or nil.
func rootGlobal(addr ssa.Value) *ssa.Global {
	for {
		switch a := addr.(type) {
		case *ssa.Global:
			return a
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			if _, ok := a.X.Type().Underlying().(*types.Pointer); !ok {
				return nil
			}
			addr = a.X
		default:
			return nil
		}
	}
}

// capturedCell returns the value a heap cell of a captured variable, or a
// block's free variable bound to one, stands for.
func (f *frame) capturedCell(p ssa.Value) (ssa.Value, bool) {
	l := f.tb.l
	switch p := p.(type) {
	case *ssa.FreeVar:
		v, ok := l.captured[p]
		return v, ok
	case *ssa.Alloc:
		v, ok := l.cells[p]
		return v, ok
	}
	return nil, false
}

// indexArg converts an index operand to i64.
func (f *frame) indexArg(v ssa.Value) ir.Arg {
	t, ok := basicType(v.Type())
	if !ok || !t.IsInteger() {
		f.errorf(v.Pos(), "index of type %s is not supported", v.Type())
		return ir.Imm(ir.Int64, 0)
	}
	return f.tb.convert(f.arg(v), t, ir.Int64)
}

// slice lowers s[lo:hi:max] of a slice s.
func (f *frame) slice(v *ssa.Slice, dst []ir.Reg) {
	elem, ok := sliceElem(v.X.Type())
	if !ok {
		f.errorf(v.Pos(), "slicing %s is not supported in kernels", describeType(v.X.Type()))
		return
	}
	s := f.regs(v.X)
	f.sliceOf(v, s[0], ir.R(s[1]), ir.R(s[2]), elemSize(elem), dst)
}

// sliceOf lowers v, a slice expression over base with length n and
// capacity c, whose elements are size bytes apart.
func (f *frame) sliceOf(v *ssa.Slice, base ir.Reg, n, c ir.Arg, size int64, dst []ir.Reg) {
	tb := f.tb
	lo := ir.Imm(ir.Int64, 0)
	if v.Low != nil {
		lo = f.indexArg(v.Low)
	}
	hi, max := n, c
	if v.High != nil {
		hi = f.indexArg(v.High)
	}
	if v.Max != nil {
		max = f.indexArg(v.Max)
	}
	f.sliceChecks(v, lo, hi, max, n, c)
	tb.emit(ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: dst[0], Args: []ir.Arg{ir.R(base), lo}, Aux: size, Pos: v.Pos()})
	tb.emit(ir.Instr{Op: ir.OpSub, Type: ir.Int64, Dst: dst[1], Args: []ir.Arg{hi, lo}})
	tb.emit(ir.Instr{Op: ir.OpSub, Type: ir.Int64, Dst: dst[2], Args: []ir.Arg{max, lo}})
}

// constBits returns the bits of a constant of IR type t.
func constBits(c *ssa.Const, t ir.Type) uint64 {
	if c.Value == nil {
		return 0
	}
	switch {
	case t == ir.Bool:
		if constant.BoolVal(c.Value) {
			return 1
		}
		return 0
	case t.IsInteger():
		if i, exact := constant.Int64Val(c.Value); exact {
			return t.Normalize(uint64(i))
		}
		u, _ := constant.Uint64Val(c.Value)
		return t.Normalize(u)
	case t == ir.Float32:
		x, _ := constant.Float32Val(c.Value)
		return uint64(math.Float32bits(x))
	case t == ir.Float64:
		x, _ := constant.Float64Val(c.Value)
		return math.Float64bits(x)
	}
	return 0
}

// evalConst folds a conversion of a constant.
func evalConst(in *ir.Instr, bits uint64) uint64 {
	v, err := ir.Fold(in, []uint64{bits})
	if err != nil {
		panic(err)
	}
	return v
}
