package ptx

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
)

// Functions are .func with .param arguments, and their results in one
// .param byte array: ptxas allows several return parameters only in
// registers, which the ABI does not pass. Each argument and result has the
// .param type of its register class (paramClass), at its natural alignment
// in the array.

// paramClass is the .param type that carries a register of type t;
// predicates travel as 32-bit integers.
func paramClass(t ir.Type) string {
	switch classOf(t) {
	case pred, b32:
		return "b32"
	case f32:
		return "f32"
	case f64:
		return "f64"
	}
	return "b64"
}

// resultLayout returns the offset of each result in the result array, and
// its size.
func resultLayout(types []ir.Type) (offsets []int, size int) {
	for _, t := range types {
		n := 4
		if classOf(t) == b64 || classOf(t) == f64 {
			n = 8
		}
		size = (size + n - 1) / n * n
		offsets = append(offsets, size)
		size += n
	}
	return offsets, size
}

func (e *entry) funcHeader(b *strings.Builder) {
	b.WriteString(".func ")
	if _, size := resultLayout(e.t.ResultTypes()); size > 0 {
		fmt.Fprintf(b, "(.param .align 8 .b8 %s_ret[%d]) ", e.funcs.name(e.t), size)
	}
	fmt.Fprintf(b, "%s(", e.funcs.name(e.t))
	for i, t := range e.t.ParamTypes() {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(b, "\n\t.param .%s %s", paramClass(t), e.paramName(i))
	}
	b.WriteString("\n)\n")
}

// loadParams reads a function's arguments into their registers.
func (e *entry) loadParams() {
	for i, r := range e.t.Params {
		e.fromParam(r, e.paramName(i))
	}
}

// returnLabel is the block of a function's one ret, where its returns
// branch if it has several. With a ret at each return, ptxas (11.8,
// sm_90) gives every one its own copy of the return address and the
// results into the registers its call convention returns them in, and
// brackets the call in the caller with BSSY/BSYNC: 8 instructions more
// on the path of a math.Log (126 against 118 SASS instructions per
// element of bench/kernels' Log, one call of amd64math$Log).
const returnLabel = "$Lreturn"

// writeReturn appends a function's return block.
func (e *entry) writeReturn() {
	e.body.WriteString(returnLabel + ":\n")
	e.storeResults()
	e.emit("ret")
}

// storeResults writes a function's results before it returns.
func (e *entry) storeResults() {
	offsets, _ := resultLayout(e.t.ResultTypes())
	for i, r := range e.t.Results {
		e.toParam(fmt.Sprintf("%s_ret+%d", e.funcs.name(e.t), offsets[i]), ir.R(r), e.t.Regs[r])
	}
}

// call writes a call: its arguments and results are .param variables of
// its own, in a block of their own.
func (e *entry) call(in *ir.Instr) {
	f := e.k.Callee(in)
	name := fmt.Sprintf("call%d", e.calls)
	e.calls++
	e.body.WriteString("\t{\n")
	var args []string
	for i, t := range f.ParamTypes() {
		arg := fmt.Sprintf("%s_arg%d", name, i)
		e.emit(".param .%s %s", paramClass(t), arg)
		e.toParam(arg, in.Args[i], t)
		args = append(args, arg)
	}
	offsets, size := resultLayout(f.ResultTypes())
	ret := ""
	if size > 0 {
		ret = name + "_ret"
		e.emit(".param .align 8 .b8 %s[%d]", ret, size)
		ret = "(" + ret + "), "
	}
	e.emit("call %s%s, (%s)", ret, e.funcs.name(f), strings.Join(args, ", "))
	for i, r := range in.Results {
		e.fromParam(r, fmt.Sprintf("%s_ret+%d", name, offsets[i]))
	}
	e.body.WriteString("\t}\n")
}

// toParam stores an operand of type t into a .param variable.
func (e *entry) toParam(param string, a ir.Arg, t ir.Type) {
	x := e.regArg(a, t)
	if t == ir.Bool {
		word := e.temp(ir.Uint32)
		e.emit("selp.u32 %s, 1, 0, %s", word, x)
		x = word
	}
	e.emit("st.param.%s [%s], %s", paramClass(t), param, x)
}

// fromParam loads register r from a .param variable.
func (e *entry) fromParam(r ir.Reg, param string) {
	t := e.t.Regs[r]
	if t != ir.Bool {
		e.emit("ld.param.%s %s, [%s]", paramClass(t), e.reg(r), param)
		return
	}
	word := e.temp(ir.Uint32)
	e.emit("ld.param.b32 %s, [%s]", word, param)
	e.emit("setp.ne.u32 %s, %s, 0", e.reg(r), word)
}

// moduleFuncs writes each function of a module's kernels once. Functions
// of library packages have the same name in every kernel that calls them
// (lower), and the same text: a kernel's function whose text is that of
// the function of its name written before is not written again, and the
// kernel's calls call that one. One whose text differs (a kernel whose
// fused multiply-adds change it) is written again under its name and
// the kernel's number.
type moduleFuncs struct {
	names map[*ir.Task]string // the symbol of each function
	texts map[string]string   // the text written under each symbol
}

// name returns the symbol of a function or task t.
func (m *moduleFuncs) name(t *ir.Task) string {
	if m == nil {
		return t.Name
	}
	if name, ok := m.names[t]; ok {
		return name
	}
	return t.Name
}

// write writes function f of kernel number ki, unless the same text is
// written; entry makes the writer of f.
func (m *moduleFuncs) write(b *strings.Builder, ki int, f *ir.Task, entry func() *entry) {
	text := func(name string) string {
		m.names[f] = name
		var fb strings.Builder
		fb.WriteString("\n")
		entry().write(&fb)
		return fb.String()
	}
	name := f.Name
	t := text(name)
	if prev, ok := m.texts[name]; ok {
		if prev == t {
			return
		}
		name = fmt.Sprintf("%s$k%d", f.Name, ki)
		t = text(name)
	}
	m.texts[name] = t
	b.WriteString(t)
}
