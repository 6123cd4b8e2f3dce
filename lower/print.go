package lower

import (
	"fmt"
	"go/constant"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// Kernels print with Go's print and println builtins and with fmt.Printf
// and fmt.Println, and the GPU prints with device printf: each becomes one
// print instruction (ir.OpPrint), whose format the text of constants is
// written into at compile time, as Go would print them. A value that is
// not constant is printed by device printf, so only where C's printf
// writes what Go does: integers, bools, and for fmt.Printf floats with %e
// and %f. What else a kernel prints is reported, with the way to print it.

// printPlan is what one print writes: a format of the IR and the values
// its conversions print.
type printPlan struct {
	format strings.Builder
	values []ssa.Value
	types  []ir.Type
}

// text appends text to the format.
func (p *printPlan) text(s string) { p.format.WriteString(strings.ReplaceAll(s, "%", "%%")) }

// conv appends a conversion of a value.
func (p *printPlan) conv(spec string, v ssa.Value, t ir.Type) {
	p.format.WriteString(spec)
	p.values = append(p.values, v)
	p.types = append(p.types, t)
}

// floatPrintAdvice says why a float that is not constant cannot be
// printed as Go prints it.
const floatPrintAdvice = "Go prints the shortest decimal that reads back as the value, which device printf cannot compute: " +
	`print it with fmt.Printf and %e or %f (fmt.Printf("%e\n", x))`

// printBuiltin plans a call of print or println, or says why it cannot
// be lowered. Go's print writes integers in decimal, bools as true and
// false, and println separates its operands by spaces and ends the line.
func printBuiltin(name string, args []ssa.Value) (*printPlan, string) {
	p := &printPlan{}
	for i, a := range args {
		if name == "println" && i > 0 {
			p.text(" ")
		}
		if c, ok := a.(*ssa.Const); ok {
			s, ok := printConstant(c)
			if !ok {
				return nil, fmt.Sprintf("%s of %s is not supported in kernels: print integers, bools, constants and strings that are constants", name, describeType(a.Type()))
			}
			p.text(s)
			continue
		}
		t, _ := basicType(a.Type())
		switch {
		case isBasicKind(a.Type(), types.Uintptr):
			p.text("0x")
			p.conv("%x", a, t) // as Go's print writes a uintptr
		case t == ir.Bool:
			p.conv("%t", a, t)
		case t.IsInteger():
			p.conv("%d", a, t)
		case t.IsFloat() || isComplex(a.Type()):
			return nil, fmt.Sprintf("%s of a %s that is not constant is not supported in kernels: %s", name, a.Type(), floatPrintAdvice)
		case isString(a.Type()):
			return nil, fmt.Sprintf("%s of a string that is not constant is not supported in kernels: kernels print only constant strings", name)
		default:
			return nil, fmt.Sprintf("%s of %s is not supported in kernels: print integers, bools, constants and strings that are constants", name, describeType(a.Type()))
		}
	}
	if name == "println" {
		p.text("\n")
	}
	return p, ""
}

// printConstant writes a constant as Go's print does.
func printConstant(c *ssa.Const) (string, bool) {
	if c.Value == nil {
		return "", false
	}
	b, ok := c.Type().Underlying().(*types.Basic)
	if !ok {
		return "", false
	}
	size := 64
	if b.Kind() == types.Float32 || b.Kind() == types.Complex64 {
		size = 32
	}
	switch v := c.Value; {
	case v.Kind() == constant.String:
		return constant.StringVal(v), true
	case v.Kind() == constant.Bool:
		return strconv.FormatBool(constant.BoolVal(v)), true
	case b.Info()&types.IsFloat != 0:
		f, _ := constant.Float64Val(v)
		return strconv.FormatFloat(f, 'g', -1, size), true
	case b.Info()&types.IsComplex != 0:
		re, _ := constant.Float64Val(constant.Real(v))
		im, _ := constant.Float64Val(constant.Imag(v))
		return strconv.FormatComplex(complex(re, im), 'g', -1, 2*size), true
	case b.Kind() == types.Uintptr:
		u, _ := constant.Uint64Val(v)
		return "0x" + strconv.FormatUint(u, 16), true
	case b.Info()&types.IsInteger != 0:
		return v.ExactString(), true
	}
	return "", false
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// emitPrint emits the print instruction of a plan, adding its format to
// the kernel's once.
func (f *frame) emitPrint(v *ssa.Call, p *printPlan) {
	l := f.tb.l
	pr := ir.Print{Format: p.format.String(), Types: p.types}
	index := slices.IndexFunc(l.k.Prints, func(q ir.Print) bool {
		return q.Format == pr.Format && slices.Equal(q.Types, pr.Types)
	})
	if index < 0 {
		index = len(l.k.Prints)
		l.k.Prints = append(l.k.Prints, pr)
	}
	in := ir.Instr{Op: ir.OpPrint, Dst: ir.NoReg, Aux: int64(index), Pos: v.Pos()}
	for _, x := range p.values {
		in.Args = append(in.Args, ir.R(f.regs(x)[0]))
	}
	f.tb.emit(in)
}
