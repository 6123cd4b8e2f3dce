package lower

import (
	"fmt"
	"go/constant"
	"go/types"
	"strings"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// fmtPrintFuncs are the functions of package fmt kernels may call.
var fmtPrintFuncs = map[string]bool{"Printf": true, "Println": true}

// fmtPrintCallee reports whether fn is a function of package fmt that
// prints to standard output.
func fmtPrintCallee(fn *ssa.Function) bool {
	return fn != nil && fn.Pkg != nil && fn.Pkg.Pkg.Path() == "fmt" && fn.Signature.Recv() == nil &&
		(fmtPrintFuncs[fn.Name()] || fn.Name() == "Print")
}

// fmtPrint plans a call of fmt.Printf or fmt.Println, or says why it
// cannot be lowered.
func fmtPrint(v *ssa.Call) (*printPlan, string) {
	common := v.Common()
	name := common.StaticCallee().Name()
	if !fmtPrintFuncs[name] {
		return nil, fmt.Sprintf("fmt.%s is not supported in kernels: use fmt.Printf or fmt.Println", name)
	}
	if refs := v.Referrers(); refs != nil && len(*refs) > 0 {
		return nil, fmt.Sprintf("the results of fmt.%s are not supported in kernels: call it as a statement", name)
	}
	values, ok := varargValues(common.Args[len(common.Args)-1])
	if !ok {
		return nil, fmt.Sprintf("fmt.%s in a kernel needs its arguments listed in the call, not a slice passed with ...", name)
	}
	for _, x := range values {
		if m := fmtMethod(x.Type()); m != "" {
			return nil, fmt.Sprintf("fmt.%s of a %s is not supported in kernels: fmt calls its %s method, which device printf cannot; print %s(x)",
				name, x.Type(), m, x.Type().Underlying())
		}
	}
	if name == "Println" {
		return fmtPrintln(values)
	}
	c, ok := common.Args[0].(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.String {
		return nil, "fmt.Printf's format must be a constant string in kernels: device printf needs it at compile time"
	}
	return fmtPrintf(constant.StringVal(c.Value), values)
}

// fmtMethod returns the name of a method of t that fmt calls to print a
// value of type t, or "".
func fmtMethod(t types.Type) string {
	methods := types.NewMethodSet(t)
	for _, name := range []string{"Format", "GoString", "Error", "String"} {
		if methods.Lookup(nil, name) != nil {
			return name
		}
	}
	return ""
}

// varargValues returns the values passed as the variadic arguments of a
// call, in order: what go/ssa stores into the array it slices.
func varargValues(arg ssa.Value) ([]ssa.Value, bool) {
	if c, ok := arg.(*ssa.Const); ok && c.IsNil() {
		return nil, true // no arguments
	}
	alloc := varargsArray(arg)
	if alloc == nil {
		return nil, false
	}
	n := int(alloc.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array).Len())
	values := make([]ssa.Value, n)
	for _, r := range *alloc.Referrers() {
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		i, ok := ia.Index.(*ssa.Const)
		if !ok {
			return nil, false
		}
		for _, u := range *ia.Referrers() {
			if st, ok := u.(*ssa.Store); ok {
				values[i.Int64()] = unwrapInterface(st.Val)
			}
		}
	}
	for _, x := range values {
		if x == nil {
			return nil, false
		}
	}
	return values, true
}

// varargsArray returns the array go/ssa allocates for the variadic
// arguments a call is passed as the slice arg, or nil.
func varargsArray(arg ssa.Value) *ssa.Alloc {
	sl, ok := arg.(*ssa.Slice)
	if !ok {
		return nil
	}
	alloc, ok := sl.X.(*ssa.Alloc)
	if !ok || alloc.Comment != "varargs" {
		return nil
	}
	return alloc
}

// unwrapInterface returns the value an interface value is made of.
func unwrapInterface(v ssa.Value) ssa.Value {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		return mi.X
	}
	return v
}

// fmtArgsPart reports whether instr only builds the variadic arguments of
// a call of fmt's print functions, which the call's print reads itself.
func fmtArgsPart(instr ssa.Instruction) bool {
	var alloc *ssa.Alloc
	switch in := instr.(type) {
	case *ssa.Alloc:
		alloc = in
	case *ssa.Slice:
		alloc, _ = in.X.(*ssa.Alloc)
	case *ssa.IndexAddr:
		alloc, _ = in.X.(*ssa.Alloc)
	case *ssa.Store:
		if ia, ok := in.Addr.(*ssa.IndexAddr); ok {
			alloc, _ = ia.X.(*ssa.Alloc)
		}
	case *ssa.MakeInterface:
		refs := *in.Referrers()
		if len(refs) != 1 {
			return false
		}
		return fmtArgsPart(refs[0])
	}
	if alloc == nil || alloc.Comment != "varargs" {
		return false
	}
	for _, r := range *alloc.Referrers() {
		sl, ok := r.(*ssa.Slice)
		if !ok {
			continue
		}
		for _, u := range *sl.Referrers() {
			if c, ok := u.(*ssa.Call); ok && fmtPrintCallee(c.Common().StaticCallee()) {
				return true
			}
		}
	}
	return false
}

// fmtPrintln plans fmt.Println: operands separated by spaces, and a
// newline.
func fmtPrintln(values []ssa.Value) (*printPlan, string) {
	p := &printPlan{}
	for i, x := range values {
		if i > 0 {
			p.text(" ")
		}
		if c, ok := x.(*ssa.Const); ok {
			if s, ok := constantText("%v", c); ok {
				p.text(s)
				continue
			}
		}
		t, ok := basicType(x.Type())
		switch {
		case ok && t == ir.Bool:
			p.conv("%t", x, t)
		case ok && t.IsInteger():
			p.conv("%d", x, t)
		case ok && t.IsFloat() || isComplex(x.Type()):
			return nil, fmt.Sprintf("fmt.Println of a %s that is not constant is not supported in kernels: %s", x.Type(), floatPrintAdvice)
		default:
			return nil, fmt.Sprintf("fmt.Println of %s is not supported in kernels: print integers, bools and constants", describeType(x.Type()))
		}
	}
	p.text("\n")
	return p, ""
}

// constantText formats a constant with a verb of fmt, as Go would; it
// fails where fmt reports a wrong verb.
func constantText(spec string, c *ssa.Const) (string, bool) {
	if c.Value == nil {
		return "", false
	}
	var x any
	b, ok := c.Type().Underlying().(*types.Basic)
	if !ok {
		return "", false
	}
	switch v := c.Value; {
	case v.Kind() == constant.String:
		x = constant.StringVal(v)
	case v.Kind() == constant.Bool:
		x = constant.BoolVal(v)
	case b.Kind() == types.Float32:
		f, _ := constant.Float64Val(v)
		x = float32(f)
	case b.Info()&types.IsFloat != 0:
		x, _ = constant.Float64Val(v)
	case b.Info()&types.IsUnsigned != 0:
		x, _ = constant.Uint64Val(v)
	case b.Info()&types.IsInteger != 0:
		x, _ = constant.Int64Val(v)
		if b.Kind() == types.Int32 || b.Kind() == types.UntypedRune {
			x = int32(x.(int64)) // %v of a rune constant is its number, as Go's
		}
	default:
		return "", false
	}
	s := fmt.Sprintf(spec, x)
	return s, !strings.Contains(s, "%!")
}

// fmtPrintf plans fmt.Printf with a constant format: the verbs of Go's
// fmt that device printf writes alike, for the types whose values it
// writes alike; a constant operand is formatted at compile time with any
// verb.
func fmtPrintf(format string, values []ssa.Value) (*printPlan, string) {
	p := &printPlan{}
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			p.text(format[i : i+1])
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+# 0", format[j]) >= 0 {
			j++
		}
		for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.') {
			j++
		}
		if j >= len(format) {
			return nil, fmt.Sprintf("fmt.Printf format %q ends inside a verb", format)
		}
		spec, verb := format[i:j], format[j]
		i = j
		if verb == '%' {
			p.text("%")
			continue
		}
		if verb == '*' || verb == '[' {
			return nil, fmt.Sprintf("fmt.Printf's %s%c in a kernel: widths and argument indexes must be written in the format, not taken from the arguments", spec, verb)
		}
		if n >= len(values) {
			return nil, fmt.Sprintf("fmt.Printf format %q has more verbs than arguments", format)
		}
		if msg := printfVerb(p, spec, verb, values[n]); msg != "" {
			return nil, msg
		}
		n++
	}
	if n < len(values) {
		return nil, fmt.Sprintf("fmt.Printf format %q has fewer verbs than arguments", format)
	}
	return p, ""
}

// printfVerb plans one verb of fmt.Printf with its operand x.
func printfVerb(p *printPlan, spec string, verb byte, x ssa.Value) string {
	full := spec + string(verb)
	if c, ok := x.(*ssa.Const); ok {
		s, ok := constantText(full, c)
		if !ok {
			return fmt.Sprintf("fmt.Printf's %s cannot print %s", full, describeType(x.Type()))
		}
		p.text(s)
		return ""
	}
	flags := strings.TrimRight(spec[1:], "0123456789.")
	if len(flags) < len(spec)-1 && spec[len(flags)+1] == '0' {
		flags += "0" // a width that starts with 0 is the 0 flag
	}
	t, ok := basicType(x.Type())
	switch {
	case !ok || isBasicKind(x.Type(), types.Uintptr):
		if isString(x.Type()) {
			return fmt.Sprintf("fmt.Printf's %s of a string that is not constant is not supported in kernels: kernels print only constant strings", full)
		}
		return fmt.Sprintf("fmt.Printf's %s of %s is not supported in kernels: print integers, bools and floats", full, describeType(x.Type()))
	case t == ir.Bool:
		if verb != 't' && verb != 'v' {
			return fmt.Sprintf("fmt.Printf's %s of a bool is not supported in kernels: use %%t", full)
		}
		return printfConv(p, spec, flags, "-", 't', x, t)
	case t.IsInteger():
		switch verb {
		case 'd', 'v':
			// %+v is %v for numbers; C's printf writes no sign of an
			// unsigned value, where Go's + and space flags do.
			allowed := "-+ 0"
			switch {
			case t.IsUnsigned():
				allowed = "-0"
			case verb == 'v':
				allowed = "- 0"
			}
			return printfConv(p, spec, flags, allowed, 'd', x, t)
		case 'x', 'X', 'o':
			if t.IsSigned() {
				return fmt.Sprintf("fmt.Printf's %s of a signed integer is not supported in kernels: Go writes a minus sign where device printf writes the two's complement; convert the value to an unsigned type (uint32(x))", full)
			}
			if verb == 'o' {
				return printfConv(p, spec, flags, "-0#", verb, x, t)
			}
			// C's %#x writes 0 as 0, Go's as 0x0.
			return printfConv(p, spec, flags, "-0", verb, x, t)
		case 'c':
			return printfConv(p, spec, flags, "-", 'c', x, t)
		}
		return fmt.Sprintf("fmt.Printf's %s of an integer is not supported in kernels: use %%d, %%x, %%X, %%o or %%c", full)
	default: // a float
		switch verb {
		case 'e', 'E', 'f':
			return printfConv(p, spec, flags, "-+ 0", verb, x, t)
		case 'F':
			return printfConv(p, spec, flags, "-+ 0", 'f', x, t)
		case 'v', 'g', 'G':
			return fmt.Sprintf("fmt.Printf's %s of a float is not supported in kernels: %s prints the shortest decimal that reads back as the value, which device printf cannot compute; use %%e or %%f", full, full)
		}
		return fmt.Sprintf("fmt.Printf's %s of a float is not supported in kernels: use %%e, %%E or %%f", full)
	}
}

// printfConv appends a conversion whose flags must be among allowed.
func printfConv(p *printPlan, spec, flags, allowed string, verb byte, x ssa.Value, t ir.Type) string {
	for _, fl := range flags {
		if !strings.ContainsRune(allowed, fl) {
			return fmt.Sprintf("fmt.Printf's flag %q in %s%c is not supported in kernels: device printf writes it otherwise than Go", fl, spec, verb)
		}
	}
	if verb == 't' && strings.Contains(spec, ".") {
		return fmt.Sprintf("fmt.Printf's precision in %st is not supported in kernels", spec)
	}
	p.conv(spec+string(verb), x, t)
	return ""
}
