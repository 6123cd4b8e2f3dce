package ir

import (
	"fmt"
	"strconv"
)

// taskParser reads the blocks of one task and infers its register types.
type taskParser struct {
	p    *parser
	k    *Kernel
	t    *Task
	defs map[Reg]regDef // the first definition of each register
	uses []regUse
	refs []blockRef
}

// regDef is where a register is first defined, and with which type.
type regDef struct {
	typ Type
	at  place
}

type regUse struct {
	reg Reg
	at  place
}

type blockRef struct {
	block int
	at    place
}

func (tp *taskParser) block() *Block {
	c := tp.p.line("a block")
	b := &Block{Index: len(tp.t.Blocks)}
	if label := c.next("a block label"); label.text != fmt.Sprintf("b%d", b.Index) {
		c.failAt(label, "expected block label b%d, found %q", b.Index, label.text)
	}
	c.expect(":")
	if c.peek() == "checked" {
		c.next("checked")
		b.Checked = true
	}
	if c.peek() == "fallback" {
		c.next("fallback")
		c.expect("=")
		b.Fallback = tp.blockRef(c)
	}
	c.end()
	if c.ln.comment != nil {
		b.Comment = c.ln.comment.text
	}
	for {
		c := tp.p.line("an instruction or a terminator")
		switch c.peek() {
		case "return", "jump", "branch":
			b.Term = tp.term(c)
			return b
		}
		if isLabel(c.ln) || c.peek() == "task" || c.peek() == "kernel" {
			c.failAt(c.ln.words[0], "expected an instruction or a terminator, found %q", c.peek())
		}
		b.Instrs = append(b.Instrs, tp.instr(c))
	}
}

func (tp *taskParser) instr(c *cursor) Instr {
	in := Instr{Dst: NoReg}
	var dst word
	if c.isCall() {
		return tp.call(c)
	}
	if len(c.ln.words) > 1 && c.ln.words[1].text == "=" {
		dst = c.next("a register")
		in.Dst = c.reg(dst)
		c.expect("=")
	}
	c.opName(c.next("an op"), &in)
	if in.Dst != NoReg {
		rt := in.ResultType()
		if rt == Invalid {
			c.failAt(dst, "%s has no result", in.Op)
		}
		tp.define(in.Dst, rt, c.at(dst))
	}
	switch info := in.Op.Info(); info.Aux {
	case ScalarParam, SliceParam:
		in.Aux = c.param(tp.k)
	case VarIndex:
		tok := c.next("a variable name")
		in.Aux = -1
		for i, v := range tp.t.Vars {
			if v.Name == tok.text {
				in.Aux = int64(i)
			}
		}
		if in.Aux < 0 {
			c.failAt(tok, "task %s has no variable %s", tp.t.Name, tok.text)
		}
	case FormatIndex:
		tp.printArgs(c, &in)
	case DataIndex:
		tok := c.next("a table name")
		in.Aux = -1
		for i, d := range tp.k.Data {
			if d.Name == tok.text {
				in.Aux = int64(i)
			}
		}
		if in.Aux < 0 {
			c.failAt(tok, "kernel %s has no table %s", tp.k.Name, tok.text)
		}
	default:
		for i, typ := range in.ArgTypes() {
			if i > 0 {
				c.expect(",")
			}
			in.Args = append(in.Args, tp.arg(c, typ))
		}
		switch info.Aux {
		case ElemSize:
			c.expect(",")
			in.Aux = int64(c.int("an element size"))
		case SiteIndex:
			c.expect(",")
			c.expect("site")
			in.Aux = int64(c.int("a site number"))
		}
	}
	c.done()
	return in
}

// printArgs reads the operands and the format of a print: "r1, r2,
// format 0", or "format 0" without operands.
func (tp *taskParser) printArgs(c *cursor, in *Instr) {
	var toks []word
	for c.peek() != "format" {
		toks = append(toks, c.next("a register or format"))
		c.expect(",")
	}
	c.expect("format")
	at := c.i
	in.Aux = int64(c.int("a format number"))
	if in.Aux < 0 || int(in.Aux) >= len(tp.k.Prints) {
		c.failAt(c.ln.words[at], "kernel %s has no format %d", tp.k.Name, in.Aux)
	}
	for _, tok := range toks {
		if !isNumbered(tok.text, 'r') {
			c.failAt(tok, "expected a register, found %q: a print's operands are registers", tok.text)
		}
		r := c.reg(tok)
		tp.uses = append(tp.uses, regUse{r, c.at(tok)})
		in.Args = append(in.Args, R(r))
	}
}

// isCall reports whether the line is a call: "call F(...)" or
// "r1, r2 = call F(...)".
func (c *cursor) isCall() bool {
	for i, w := range c.ln.words {
		if w.text == "call" {
			return i == 0 || c.ln.words[i-1].text == "="
		}
	}
	return false
}

// call reads "r3, r4 = call F(r1, 7)": F must be a function listed
// before.
func (tp *taskParser) call(c *cursor) Instr {
	in := Instr{Op: OpCall, Dst: NoReg}
	var results []word
	for c.peek() != "call" {
		if len(results) > 0 {
			c.expect(",")
		}
		results = append(results, c.next("a register"))
		if c.peek() == "=" {
			c.expect("=")
			break
		}
	}
	c.expect("call")
	name := c.next("a function name")
	callee := -1
	for i, f := range tp.k.Funcs {
		if f.Name == name.text {
			callee = i
		}
	}
	if callee < 0 {
		c.failAt(name, "kernel %s has no function %s before this", tp.k.Name, name.text)
	}
	in.Aux = int64(callee)
	f := tp.k.Funcs[callee]
	if len(results) != len(f.Results) {
		c.failAt(name, "%s has %d results, not %d", f.Name, len(f.Results), len(results))
	}
	for i, r := range results {
		in.Results = append(in.Results, c.reg(r))
		tp.define(in.Results[i], f.ResultTypes()[i], c.at(r))
	}
	c.expect("(")
	for i, typ := range f.ParamTypes() {
		if i > 0 {
			c.expect(",")
		}
		in.Args = append(in.Args, tp.arg(c, typ))
	}
	c.expect(")")
	c.done()
	return in
}

// signature reads a function's parameter or result registers with their
// types, "(r0 i64, r1 f32)", and defines them if define is set.
func (tp *taskParser) signature(c *cursor, define bool) (regs []Reg, types []Type, toks []word) {
	c.expect("(")
	for c.peek() != ")" {
		if len(regs) > 0 {
			c.expect(",")
		}
		tok := c.next("a register")
		r, typ := c.reg(tok), c.typ(c.next("a type"))
		if define {
			tp.define(r, typ, c.at(tok))
		}
		regs, types, toks = append(regs, r), append(types, typ), append(toks, tok)
	}
	c.expect(")")
	return regs, types, toks
}

func (tp *taskParser) term(c *cursor) Term {
	var term Term
	switch c.next("a terminator").text {
	case "return":
		term.Kind = Return
	case "jump":
		term.Kind = Jump
		term.Succs[0] = tp.blockRef(c)
	case "branch":
		term.Kind = Branch
		term.Cond = tp.arg(c, Bool)
		c.expect(",")
		term.Succs[0] = tp.blockRef(c)
		c.expect(",")
		term.Succs[1] = tp.blockRef(c)
	}
	c.done()
	return term
}

// arg reads an operand of type typ: a register or an immediate.
func (tp *taskParser) arg(c *cursor, typ Type) Arg {
	tok := c.next("an operand")
	if isNumbered(tok.text, 'r') {
		r := c.reg(tok)
		tp.uses = append(tp.uses, regUse{r, c.at(tok)})
		return R(r)
	}
	bits, ok := parseBits(tok.text, typ)
	if !ok {
		c.failAt(tok, "expected a register or an immediate of type %s, found %q", typ, tok.text)
	}
	return Imm(typ, bits)
}

func (tp *taskParser) blockRef(c *cursor) int {
	tok := c.next("a block")
	n, err := strconv.Atoi(tok.text[1:])
	if !isNumbered(tok.text, 'b') || err != nil {
		c.failAt(tok, "expected a block, as b1, found %q", tok.text)
	}
	tp.refs = append(tp.refs, blockRef{n, c.at(tok)})
	return n
}

func (tp *taskParser) define(r Reg, typ Type, at place) {
	d, ok := tp.defs[r]
	switch {
	case !ok:
		tp.defs[r] = regDef{typ, at}
	case d.typ != typ:
		fail(at, "r%d is defined as %s here but as %s at %s", r, typ, d.typ, d.at)
	}
}

// finish checks the task's block references and gives its registers the
// types of their definitions.
func (tp *taskParser) finish() {
	for _, ref := range tp.refs {
		if ref.block >= len(tp.t.Blocks) {
			fail(ref.at, "task %s has no block b%d", tp.t.Name, ref.block)
		}
	}
	n := Reg(0)
	for r := range tp.defs {
		n = max(n, r+1)
	}
	for _, u := range tp.uses {
		if _, ok := tp.defs[u.reg]; !ok {
			fail(u.at, "r%d is used but never defined, so its type is unknown", u.reg)
		}
	}
	tp.t.Regs = make([]Type, n)
	for r, d := range tp.defs {
		tp.t.Regs[r] = d.typ
	}
}
