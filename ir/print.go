package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatKernels prints kernels one after the other, separated by blank
// lines, as golden files hold them and Parse reads them. A function whose
// text is that of a function of the same name an earlier kernel printed
// is printed as a reference to it (sharedFuncs).
func FormatKernels(kernels []*Kernel) string {
	var b strings.Builder
	shared := &sharedFuncs{texts: map[string]string{}, owners: map[string]string{}}
	for i, k := range kernels {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(k.format(shared))
	}
	return b.String()
}

// sharedFuncs holds the functions FormatKernels has printed, by name: the
// text of each and the kernel that printed it. Kernels of one module call
// the same library functions (math$Exp…), which "func math$Exp = Acos"
// then prints once: Parse reads the text of kernel Acos's math$Exp again
// in its place, where its calls and tables name the functions and tables
// of the kernel it reads. The same text read in the same way is the same
// function, so a reference needs nothing but equal text.
type sharedFuncs struct {
	texts, owners map[string]string
}

// String prints the whole kernel in the IR's text form.
func (k *Kernel) String() string { return k.format(nil) }

// format prints the kernel, its functions shared with those printed
// before when shared is not nil.
func (k *Kernel) format(shared *sharedFuncs) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernel %s(", k.Name)
	for i := range k.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.Params[i].String())
	}
	b.WriteString(")\n")
	if k.FMA {
		b.WriteString("fma\n")
	}
	if len(k.Groups) > 0 {
		fmt.Fprintf(&b, "groups %v\n", k.Groups)
	}
	for _, c := range k.Conflicts {
		fmt.Fprintf(&b, "disjoint %s %s\n", k.Params[c[0]].Name, k.Params[c[1]].Name)
	}
	for _, d := range k.Data {
		fmt.Fprintf(&b, "data %s align %d = %x\n", d.Name, d.Align, d.Bytes)
	}
	if k.Reductions > 0 {
		fmt.Fprintf(&b, "reductions %d\n", k.Reductions)
	}
	for i, s := range k.Sites {
		fmt.Fprintf(&b, "site %d %s\n", i, s)
	}
	for i, p := range k.Prints {
		fmt.Fprintf(&b, "format %d", i)
		for _, t := range p.Types {
			fmt.Fprintf(&b, " %s", t)
		}
		fmt.Fprintf(&b, " = %s\n", strconv.Quote(p.Format))
	}
	for _, t := range k.Bodies() {
		b.WriteString("\n")
		if t.Kind != Function || shared == nil {
			k.writeTask(&b, t)
			continue
		}
		var fb strings.Builder
		k.writeTask(&fb, t)
		text := fb.String()
		switch prev, ok := shared.texts[t.Name]; {
		case ok && prev == text:
			fmt.Fprintf(&b, "func %s = %s\n", t.Name, shared.owners[t.Name])
			continue
		case !ok:
			shared.texts[t.Name], shared.owners[t.Name] = text, k.Name
		}
		b.WriteString(text)
	}
	return b.String()
}

func (k *Kernel) writeTask(b *strings.Builder, t *Task) {
	if t.Kind == Function {
		fmt.Fprintf(b, "func %s(%s) (%s)\n", t.Name, formatRegs(t, t.Params), formatRegs(t, t.Results))
	} else {
		fmt.Fprintf(b, "task %s %s", t.Name, t.Kind)
		if t.Count != nil {
			fmt.Fprintf(b, " count=%s", k.FormatExpr(t.Count))
		}
		if t.StreamBlock != 0 {
			fmt.Fprintf(b, " block=%d group=%d", t.StreamBlock, t.Group)
		}
		if t.MaxRegs != 0 {
			fmt.Fprintf(b, " maxregs=%d", t.MaxRegs)
		}
		if t.Threads != 0 {
			fmt.Fprintf(b, " threads=%d", t.Threads)
		}
		if t.Uneven {
			b.WriteString(" uneven")
		}
		b.WriteString("\n")
	}
	for _, v := range t.Vars {
		fmt.Fprintf(b, "var %s %s %d align %d\n", v.Name, v.Space, v.Size, v.Align)
	}
	for _, blk := range t.Blocks {
		fmt.Fprintf(b, "b%d:", blk.Index)
		if blk.Checked {
			b.WriteString(" checked")
		}
		if blk.Fallback != 0 {
			fmt.Fprintf(b, " fallback=b%d", blk.Fallback)
		}
		if blk.Comment != "" {
			fmt.Fprintf(b, " # %s", blk.Comment)
		}
		b.WriteString("\n")
		for i := range blk.Instrs {
			fmt.Fprintf(b, "\t%s\n", k.FormatInstr(t, &blk.Instrs[i]))
		}
		fmt.Fprintf(b, "\t%s\n", formatTerm(&blk.Term))
	}
}

// formatRegs prints a function's parameter or result registers with their
// types: "r0 i64, r1 f32".
func formatRegs(t *Task, regs []Reg) string {
	var parts []string
	for i, r := range regs {
		parts = append(parts, fmt.Sprintf("r%d %s", r, t.regTypes(regs)[i]))
	}
	return strings.Join(parts, ", ")
}

// FormatInstr prints one instruction of task t.
func (k *Kernel) FormatInstr(t *Task, in *Instr) string {
	var b strings.Builder
	if in.Dst != NoReg {
		fmt.Fprintf(&b, "r%d = ", in.Dst)
	}
	if in.Op == OpCall {
		k.formatCall(&b, in)
		return b.String()
	}
	info := in.Op.Info()
	b.WriteString(in.Op.String())
	if in.Space != Global {
		fmt.Fprintf(&b, ".%s", in.Space)
	}
	if info.Types != 0 {
		fmt.Fprintf(&b, ".%s", in.Type)
	}
	if info.From != 0 {
		fmt.Fprintf(&b, ".%s", in.From)
	}
	switch info.Aux {
	case ScalarParam, SliceParam:
		fmt.Fprintf(&b, " %s", k.paramName(in.Aux))
		return b.String()
	case VarIndex:
		if in.Aux >= 0 && int(in.Aux) < len(t.Vars) {
			fmt.Fprintf(&b, " %s", t.Vars[in.Aux].Name)
		} else {
			fmt.Fprintf(&b, " $%d", in.Aux)
		}
		return b.String()
	case DataIndex:
		if in.Aux >= 0 && int(in.Aux) < len(k.Data) {
			fmt.Fprintf(&b, " %s", k.Data[in.Aux].Name)
		} else {
			fmt.Fprintf(&b, " $%d", in.Aux)
		}
		return b.String()
	}
	types := in.ArgTypes()
	for i, a := range in.Args {
		if i == 0 {
			b.WriteString(" ")
		} else {
			b.WriteString(", ")
		}
		typ := Invalid
		if i < len(types) {
			typ = types[i]
		}
		b.WriteString(formatArg(a, typ))
	}
	switch info.Aux {
	case ElemSize:
		fmt.Fprintf(&b, ", %d", in.Aux)
	case SiteIndex:
		fmt.Fprintf(&b, ", site %d", in.Aux)
	case FormatIndex:
		if len(in.Args) > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " format %d", in.Aux)
	}
	return b.String()
}

// formatCall prints "r3, r4 = call F(r1, 7)".
func (k *Kernel) formatCall(b *strings.Builder, in *Instr) {
	for i, r := range in.Results {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "r%d", r)
	}
	if len(in.Results) > 0 {
		b.WriteString(" = ")
	}
	name := fmt.Sprintf("$%d", in.Aux)
	if f := k.Callee(in); f != nil {
		name = f.Name
	}
	fmt.Fprintf(b, "call %s(", name)
	types := k.ArgTypes(in)
	for i, a := range in.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := Invalid
		if i < len(types) {
			typ = types[i]
		}
		b.WriteString(formatArg(a, typ))
	}
	b.WriteString(")")
}

func (k *Kernel) paramName(i int64) string {
	if i >= 0 && int(i) < len(k.Params) {
		return k.Params[i].Name
	}
	return fmt.Sprintf("$%d", i)
}

// FormatExpr prints an expression in prefix form: "(add.i64 (param n) 1)".
func (k *Kernel) FormatExpr(e *Expr) string {
	switch e.Op {
	case OpConst:
		return FormatBits(e.Type, e.Bits)
	case OpParam, OpParamLen:
		return fmt.Sprintf("(%s %s)", e.Op, k.paramName(e.Aux))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "(%s.%s", e.Op, e.Type)
	if e.Op.Info().From != 0 {
		fmt.Fprintf(&b, ".%s", e.From)
	}
	for _, a := range e.Args {
		b.WriteString(" ")
		b.WriteString(k.FormatExpr(a))
	}
	b.WriteString(")")
	return b.String()
}

func formatArg(a Arg, t Type) string {
	if a.Imm {
		return FormatBits(t, a.Bits)
	}
	return fmt.Sprintf("r%d", a.Reg)
}

func formatTerm(t *Term) string {
	switch t.Kind {
	case Jump:
		return fmt.Sprintf("jump b%d", t.Succs[0])
	case Branch:
		return fmt.Sprintf("branch %s, b%d, b%d", formatArg(t.Cond, Bool), t.Succs[0], t.Succs[1])
	}
	return "return"
}

// FormatBits prints the value of type t held in bits.
func FormatBits(t Type, bits uint64) string {
	switch {
	case t == Bool:
		return strconv.FormatBool(bits != 0)
	case t.IsSigned():
		return strconv.FormatInt(int64(t.Normalize(bits)), 10)
	case t == Float32:
		return formatFloat(float64(math.Float32frombits(uint32(bits))), 32)
	case t == Float64:
		return formatFloat(math.Float64frombits(bits), 64)
	}
	return strconv.FormatUint(t.Normalize(bits), 10)
}

func formatFloat(f float64, size int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	}
	s := strconv.FormatFloat(f, 'g', -1, size)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
