package hip

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
)

// A device function of a kernel (ir.Kernel.Funcs) is a static __device__
// function: its arguments are value parameters a0, a1, ..., copied into
// its registers, and its results go out through pointers o0, o1, ... A
// call passes the addresses of its result registers.

//
// The module writes each function text once. Functions of library
// packages are the same in every kernel that calls them (lower names them
// after their package, not the kernel): a kernel's function whose text,
// but for its symbol, is one written before is not written again, and the
// kernel's calls call that one.

// funcSymbol names function number i of kernel number k: apart from every
// task (whose names end in _ and a number) and from the prelude's helpers.
func funcSymbol(k, i int) string { return fmt.Sprintf("qdfn%dx%d", k, i) }

// symbolHole stands for a function's symbol in its text until the text is
// known to be new.
const symbolHole = "\x00"

// writeFunc writes device function f, unless its text is written.
func (m *module) writeFunc(b *strings.Builder, f *function) {
	var fb strings.Builder
	fb.WriteString("\n")
	f.writeFunc(&fb)
	text := fb.String()
	if sym, ok := m.funcTexts[text]; ok {
		m.funcSyms[f.t] = sym
		return
	}
	sym := funcSymbol(f.kernel, f.index)
	m.funcTexts[text] = sym
	m.funcSyms[f.t] = sym
	b.WriteString(strings.Replace(text, symbolHole, sym, 1))
}

func (f *function) writeFunc(b *strings.Builder) {
	fmt.Fprintf(b, "// Function %s.\n", f.t.Name)
	fmt.Fprintf(b, "static __device__ void %s(", symbolHole)
	var params []string
	for i, t := range f.t.ParamTypes() {
		params = append(params, declare(t, fmt.Sprintf("a%d", i)))
	}
	for i, t := range f.t.ResultTypes() {
		params = append(params, declare(t, fmt.Sprintf("*o%d", i)))
	}
	b.WriteString(strings.Join(params, ", "))
	b.WriteString(") {\n")
	for i, r := range f.t.Params {
		fmt.Fprintf(&f.body, "\tr%d = a%d;\n", r, i)
	}
	f.writeBody(b)
}

// call writes a call of a function of the kernel.
func (f *function) call(in *ir.Instr) {
	callee := f.k.Callee(in)
	var args []string
	for i, t := range callee.ParamTypes() {
		args = append(args, f.arg(in.Args[i], t))
	}
	for _, r := range in.Results {
		args = append(args, fmt.Sprintf("&r%d", r))
	}
	f.line("%s(%s);", f.m.funcSyms[callee], strings.Join(args, ", "))
}
