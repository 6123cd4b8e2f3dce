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

// funcSymbol names function number i of kernel number k: apart from every
// task (whose names end in _ and a number) and from the prelude's helpers.
func funcSymbol(k, i int) string { return fmt.Sprintf("qdfn%dx%d", k, i) }

func (f *function) writeFunc(b *strings.Builder) {
	fmt.Fprintf(b, "// Function %s of kernel %s.\n", f.t.Name, f.signature())
	fmt.Fprintf(b, "static __device__ void %s(", funcSymbol(f.kernel, f.index))
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
	f.line("%s(%s);", funcSymbol(f.kernel, int(in.Aux)), strings.Join(args, ", "))
}
