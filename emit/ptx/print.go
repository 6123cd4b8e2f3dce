package ptx

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
)

// A print calls CUDA's vprintf with the address of its format, a global
// byte array, and of its arguments, packed in local memory as C passes
// variadic arguments: each at its alignment, integers of 32 bits or
// fewer as a 32-bit word (their registers hold them extended already), a
// float32 promoted to double, and a bool (%t) as the address of the
// string "true" or "false".

// The symbols of the strings every %t prints.
const (
	trueSymbol  = "qstr_true"
	falseSymbol = "qstr_false"
)

// declarePrints declares vprintf and the module's formats, each once, when
// a kernel prints, and returns the symbol of each kernel's formats.
func declarePrints(b *strings.Builder, kernels []*ir.Kernel) map[*ir.Kernel][]string {
	symbols := map[*ir.Kernel][]string{}
	seen := map[string]string{}
	bools := false
	for _, k := range kernels {
		for _, p := range k.Prints {
			bools = bools || hasBool(p.Types)
			c := p.CFormat()
			sym, ok := seen[c]
			if !ok {
				if len(seen) == 0 {
					b.WriteString("\n.extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 args);\n")
				}
				sym = fmt.Sprintf("qfmt_%d", len(seen))
				seen[c] = sym
				declareString(b, sym, c)
			}
			symbols[k] = append(symbols[k], sym)
		}
	}
	if bools {
		declareString(b, trueSymbol, "true")
		declareString(b, falseSymbol, "false")
	}
	return symbols
}

func hasBool(types []ir.Type) bool {
	for _, t := range types {
		if t == ir.Bool {
			return true
		}
	}
	return false
}

// declareString declares a NUL-terminated string in global memory.
func declareString(b *strings.Builder, symbol, s string) {
	fmt.Fprintf(b, "\n.global .align 1 .b8 %s[%d] = {", symbol, len(s)+1)
	for i := range len(s) {
		fmt.Fprintf(b, "%d, ", s[i])
	}
	b.WriteString("0};\n")
}

// printArgLayout returns the offset of each argument, of the types C
// passes them as (ir.Print.CArgTypes), in the packed arguments, and their
// size.
func printArgLayout(types []ir.Type) (offsets []int, size int) {
	for _, t := range types {
		n := t.Size()
		size = (size + n - 1) / n * n
		offsets = append(offsets, size)
		size += n
	}
	return offsets, size
}

// print writes a print: its arguments, the .param variables of the call
// and its local buffer live in a block of their own.
func (e *entry) print(in *ir.Instr) {
	p := &e.k.Prints[in.Aux]
	types, passed := p.Types, p.CArgTypes()
	name := fmt.Sprintf("print%d", e.prints)
	e.prints++
	offsets, size := printArgLayout(passed)
	e.body.WriteString("\t{\n")
	if size > 0 {
		e.emit(".local .align 8 .b8 %s_buf[%d]", name, size)
	}
	e.emit(".param .b64 %s_format", name)
	e.emit(".param .b64 %s_args", name)
	e.emit(".param .b32 %s_status", name)
	format := e.temp(ir.Uint64)
	e.emit("mov.u64 %s, %s", format, e.formats[in.Aux])
	e.emit("cvta.global.u64 %s, %s", format, format)
	e.emit("st.param.b64 [%s_format], %s", name, format)
	for i, t := range types {
		e.printArg(fmt.Sprintf("%s_buf+%d", name, offsets[i]), e.reg(in.Args[i].Reg), t, passed[i])
	}
	args := e.temp(ir.Uint64)
	if size > 0 {
		e.emit("mov.u64 %s, %s_buf", args, name)
		e.emit("cvta.local.u64 %s, %s", args, args)
	} else {
		e.emit("mov.u64 %s, 0", args)
	}
	e.emit("st.param.b64 [%s_args], %s", name, args)
	e.emit("call.uni (%s_status), vprintf, (%s_format, %s_args)", name, name, name)
	e.body.WriteString("\t}\n")
}

// printArg stores one argument x of type t, passed as type c, at addr in
// local memory.
func (e *entry) printArg(addr, x string, t, c ir.Type) {
	switch {
	case t == ir.Bool:
		yes, no := e.temp(ir.Uint64), e.temp(ir.Uint64)
		e.emit("mov.u64 %s, %s", yes, trueSymbol)
		e.emit("cvta.global.u64 %s, %s", yes, yes)
		e.emit("mov.u64 %s, %s", no, falseSymbol)
		e.emit("cvta.global.u64 %s, %s", no, no)
		e.emit("selp.b64 %s, %s, %s, %s", yes, yes, no, x)
		e.emit("st.local.b64 [%s], %s", addr, yes)
	case t == ir.Float32:
		wide := e.temp(ir.Float64)
		e.emit("cvt.f64.f32 %s, %s", wide, x)
		e.emit("st.local.f64 [%s], %s", addr, wide)
	case t == ir.Float64:
		e.emit("st.local.f64 [%s], %s", addr, x)
	case c.Size() == 8:
		e.emit("st.local.b64 [%s], %s", addr, x)
	case t.Size() == 8:
		e.emit("st.local.b32 [%s], %s", addr, e.low32(x))
	default:
		e.emit("st.local.b32 [%s], %s", addr, x)
	}
}

// low32 returns the low 32 bits of a 64-bit register.
func (e *entry) low32(x string) string {
	low := e.temp(ir.Uint32)
	e.emit("cvt.u32.u64 %s, %s", low, x)
	return low
}
