package ir

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/qdgo/qd/internal/fault"
)

// Parse reads kernels in the printed form of Kernel.String, separated by
// blank lines as golden files hold them. It is the printer's inverse:
// printing what it returns gives the text back. What the text does not show
// is lost: positions, and the types of registers that no instruction
// mentions. Each register's type is the result type of the instructions
// that define it, which must agree; a register used but never defined is an
// error. Lines of comment before the first kernel are skipped. Errors are
// "line:col: message". Parse does not run Check, so that
// tests of the checker can start from text too.
func Parse(text string) (kernels []*Kernel, err error) {
	p := &parser{}
	for i, s := range strings.Split(text, "\n") {
		p.lines = append(p.lines, lex(i+1, s))
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			kernels, err = nil, b.err
		}
	}()
	for p.skipBlank() && len(p.lines[p.next].words) == 0 {
		p.next++ // a comment before the first kernel, such as a file's header
	}
	for p.skipBlank() {
		kernels = append(kernels, p.kernel())
	}
	return kernels, nil
}

// bailout carries a parse error up to Parse, as go/parser does.
type bailout struct{ err error }

// place is a position in the text.
type place struct{ line, col int }

func (at place) String() string { return fmt.Sprintf("%d:%d", at.line, at.col) }

func fail(at place, format string, args ...any) {
	panic(bailout{fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...))})
}

type parser struct {
	lines []srcLine
	next  int // the index of the next line to read
	// funcs holds the line each function read starts at, by the name of
	// its kernel and its own (kernel + " " + name), for the functions
	// printed as references to it (sharedFuncs).
	funcs map[string]int
}

// skipBlank moves past blank lines and reports whether a line is left.
func (p *parser) skipBlank() bool {
	for ; p.next < len(p.lines); p.next++ {
		if l := &p.lines[p.next]; len(l.words) > 0 || l.comment != nil {
			return true
		}
	}
	return false
}

// peek returns the first word of the next line that is not blank, "#" if
// that line holds only a comment, or "" at the end of the text.
func (p *parser) peek() string {
	switch {
	case !p.skipBlank():
		return ""
	case len(p.lines[p.next].words) == 0:
		return "#"
	}
	return p.lines[p.next].words[0].text
}

// line returns a cursor over the next line that is not blank; what
// describes what the text needs there.
func (p *parser) line(what string) *cursor {
	if !p.skipBlank() {
		fail(p.here(), "expected %s, found end of text", what)
	}
	p.next++
	return &cursor{ln: &p.lines[p.next-1]}
}

// here is where the next line starts, for errors about it.
func (p *parser) here() place {
	if !p.skipBlank() {
		last := &p.lines[len(p.lines)-1]
		return place{last.num, last.end}
	}
	l := &p.lines[p.next]
	if len(l.words) == 0 {
		return place{l.num, l.comment.col}
	}
	return place{l.num, l.words[0].col}
}

func (p *parser) kernel() *Kernel {
	c := p.line("a kernel")
	c.expect("kernel")
	k := &Kernel{Name: c.next("a kernel name").text}
	c.expect("(")
	for c.peek() != ")" {
		if len(k.Params) > 0 {
			c.expect(",")
		}
		param := Param{Name: c.next("a parameter name").text}
		if c.peek() == "[" {
			c.expect("[")
			c.expect("]")
			param.Slice = true
		}
		if tok := c.next("a type"); param.Slice && tok.text[0] >= '0' && tok.text[0] <= '9' {
			param.ElemSize = c.intOf(tok, "an element size")
		} else {
			param.Type = c.typ(tok)
		}
		k.Params = append(k.Params, param)
	}
	c.expect(")")
	c.done()
	if p.peek() == "fma" {
		c := p.line("fma")
		c.expect("fma")
		k.FMA = true
		c.done()
	}
	if p.peek() == "groups" {
		c := p.line("groups")
		c.expect("groups")
		c.expect("[")
		for c.peek() != "]" {
			k.Groups = append(k.Groups, c.int("a block count"))
		}
		c.expect("]")
		c.done()
	}
	for p.peek() == "disjoint" {
		c := p.line("disjoint")
		c.expect("disjoint")
		var pair [2]int
		for i := range pair {
			at := c.i
			if pair[i] = int(c.param(k)); pair[i] >= len(k.Params) {
				c.failAt(c.ln.words[at], "kernel %s has no parameter %s", k.Name, c.ln.words[at].text)
			}
		}
		k.Conflicts = append(k.Conflicts, pair)
		c.done()
	}
	for p.peek() == "data" {
		c := p.line("data")
		c.expect("data")
		d := Data{Name: c.next("a table name").text}
		c.expect("align")
		d.Align = c.int("an alignment")
		c.expect("=")
		tok := c.next("the table's bytes in hexadecimal")
		var err error
		if d.Bytes, err = hex.DecodeString(tok.text); err != nil {
			c.failAt(tok, "expected the table's bytes in hexadecimal, found %q", tok.text)
		}
		k.Data = append(k.Data, d)
		c.done()
	}
	if p.peek() == "reductions" {
		c := p.line("reductions")
		c.expect("reductions")
		k.Reductions = c.int("a number of reductions")
		c.done()
	}
	for p.peek() == "site" {
		k.Sites = append(k.Sites, p.site(len(k.Sites)))
	}
	for p.peek() == "format" {
		k.Prints = append(k.Prints, p.format(len(k.Prints)))
	}
	for p.peek() == "func" {
		if l := &p.lines[p.next]; len(l.words) > 2 && l.words[2].text == "=" {
			k.Funcs = append(k.Funcs, p.sharedFunction(k))
			continue
		}
		k.Funcs = append(k.Funcs, p.function(k))
	}
	for p.peek() == "task" {
		k.Tasks = append(k.Tasks, p.task(k))
	}
	if w := p.peek(); w != "" && w != "kernel" {
		fail(p.here(), `expected "func", "task" or "kernel", found %q`, w)
	}
	return k
}

// function reads a function: "func NAME(r0 i64, r1 f32) (r4 i64)" and its
// blocks.
func (p *parser) function(k *Kernel) *Task {
	c := p.line("a function")
	start := p.next - 1
	c.expect("func")
	t := &Task{Name: c.next("a function name").text, Kind: Function}
	if p.funcs == nil {
		p.funcs = map[string]int{}
	}
	key := k.Name + " " + t.Name
	if _, ok := p.funcs[key]; !ok {
		p.funcs[key] = start
	}
	tp := &taskParser{p: p, k: k, t: t, defs: map[Reg]regDef{}}
	var types []Type
	var toks []word
	t.Params, _, _ = tp.signature(c, true)
	t.Results, types, toks = tp.signature(c, false)
	c.done()
	tp.blocks()
	for i, r := range t.Results {
		switch d, ok := tp.defs[r]; {
		case !ok:
			c.failAt(toks[i], "result r%d is never defined", r)
		case d.typ != types[i]:
			c.failAt(toks[i], "result r%d is %s, but defined as %s at %s", r, types[i], d.typ, d.at)
		}
	}
	return t
}

// sharedFunction reads "func NAME = KERNEL": the text of function NAME of
// the earlier kernel KERNEL, read again for kernel k (sharedFuncs).
func (p *parser) sharedFunction(k *Kernel) *Task {
	c := p.line("a function")
	c.expect("func")
	name := c.next("a function name")
	c.expect("=")
	owner := c.next("a kernel name")
	c.done()
	start, ok := p.funcs[owner.text+" "+name.text]
	if !ok {
		c.failAt(owner, "no kernel %s before this has a function %s", owner.text, name.text)
	}
	next := p.next
	p.next = start
	t := p.function(k)
	p.next = next
	return t
}

// site reads the line of fault site number n, as Site.String prints it
// after "site n".
func (p *parser) site(n int) Site {
	c := p.line("a site")
	c.expect("site")
	if at := c.i; c.int("a site number") != n {
		c.failAt(c.ln.words[at], "expected site %d", n)
	}
	var s Site
	tok := c.next("a fault kind")
	var ok bool
	if s.Kind, ok = fault.ByName(tok.text); !ok {
		c.failAt(tok, "expected a fault kind, found %q", tok.text)
	}
	if c.peek() == "unsigned" {
		c.expect("unsigned")
		s.Unsigned = true
	}
	s.File = c.next("a file name").text
	c.expect(":")
	s.Line = c.int("a line")
	c.expect(":")
	s.Col = c.int("a column")
	c.done()
	return s
}

// format reads the line of print format number n: `format 0 i32 f64 =
// "x=%d %e\n"`.
func (p *parser) format(n int) Print {
	c := p.line("a format")
	c.expect("format")
	if at := c.i; c.int("a format number") != n {
		c.failAt(c.ln.words[at], "expected format %d", n)
	}
	var pr Print
	for c.peek() != "=" {
		pr.Types = append(pr.Types, c.typ(c.next("a type or =")))
	}
	c.expect("=")
	tok := c.next("a quoted format")
	var err error
	if pr.Format, err = strconv.Unquote(tok.text); err != nil || tok.text[0] != '"' {
		c.failAt(tok, "expected a quoted format, found %s", tok.text)
	}
	c.done()
	return pr
}

func (p *parser) task(k *Kernel) *Task {
	c := p.line("a task")
	c.expect("task")
	t := &Task{Name: c.next("a task name").text}
	switch kind := c.next(`"serial", "parallel" or "blocks"`); kind.text {
	case "serial":
		t.Kind = Serial
	case "parallel":
		t.Kind = Parallel
	case "blocks":
		t.Kind = BlockLevel
	default:
		c.failAt(kind, `expected "serial", "parallel" or "blocks", found %q`, kind.text)
	}
	if c.peek() == "count" {
		c.expect("count")
		c.expect("=")
		t.Count = c.expr(k, Int64) // a task's count is always an i64
	}
	if c.peek() == "block" {
		c.expect("block")
		c.expect("=")
		t.StreamBlock = c.int("a block number")
		c.expect("group")
		c.expect("=")
		t.Group = c.int("a group number")
	}
	if c.peek() == "maxregs" {
		c.expect("maxregs")
		c.expect("=")
		t.MaxRegs = c.int("a register count")
	}
	if c.peek() == "threads" {
		c.expect("threads")
		c.expect("=")
		t.Threads = c.int("a block size")
	}
	if c.peek() == "uneven" {
		c.expect("uneven")
		t.Uneven = true
	}
	c.done()
	tp := &taskParser{p: p, k: k, t: t, defs: map[Reg]regDef{}}
	tp.blocks()
	return t
}

// vars reads the variables of a task or function: "var acc shared 64
// align 8".
func (p *parser) vars(t *Task) {
	for p.peek() == "var" {
		c := p.line("var")
		c.expect("var")
		v := Var{Name: c.next("a variable name").text}
		tok := c.next("a memory space")
		var ok bool
		if v.Space, ok = spaceByName(tok.text); !ok {
			c.failAt(tok, "expected a memory space, found %q", tok.text)
		}
		v.Size = c.int("a size in bytes")
		c.expect("align")
		v.Align = c.int("an alignment")
		t.Vars = append(t.Vars, v)
		c.done()
	}
}

// blocks reads the variables and blocks of a task or function.
func (tp *taskParser) blocks() {
	p, t := tp.p, tp.t
	p.vars(t)
	for p.skipBlank() && isLabel(&p.lines[p.next]) {
		t.Blocks = append(t.Blocks, tp.block())
	}
	if w := p.peek(); len(t.Blocks) == 0 || w != "" && w != "task" && w != "kernel" && w != "func" {
		fail(p.here(), "expected block label b%d:, found %q", len(t.Blocks), w)
	}
	tp.finish()
}

func isLabel(l *srcLine) bool {
	return len(l.words) >= 2 && l.words[1].text == ":" && isNumbered(l.words[0].text, 'b')
}

// isNumbered reports whether s is the letter followed by a decimal number,
// as "r12" or "b3".
func isNumbered(s string, letter byte) bool {
	if len(s) < 2 || s[0] != letter {
		return false
	}
	for _, c := range []byte(s[1:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// param reads a parameter's name and returns its index; "$N" names one
// that the printer could not name.
func (c *cursor) param(k *Kernel) int64 {
	tok := c.next("a parameter name")
	for i, p := range k.Params {
		if p.Name == tok.text {
			return int64(i)
		}
	}
	if n, err := strconv.ParseInt(strings.TrimPrefix(tok.text, "$"), 10, 32); err == nil && n >= 0 && tok.text[0] == '$' {
		return n
	}
	c.failAt(tok, "kernel %s has no parameter %s", k.Name, tok.text)
	return 0
}

// opName reads an op and the types it is printed with into in. An untyped
// op's Type is its result type.
func (c *cursor) opName(tok word, in *Instr) {
	parts := strings.Split(tok.text, ".")
	op, ok := opsByName[parts[0]]
	if !ok {
		c.failAt(tok, "unknown op %q", parts[0])
	}
	in.Op = op
	info := op.Info()
	if len(parts) > 1 {
		if space, ok := spaceByName(parts[1]); ok && space != Global {
			in.Space = space
			parts = append(parts[:1], parts[2:]...)
		}
	}
	want := parts[0]
	if info.Types != 0 {
		want += ".TYPE"
	}
	if info.From != 0 {
		want += ".TYPE"
	}
	if strings.Count(want, ".") != len(parts)-1 {
		c.failAt(tok, "expected %s, found %q", want, tok.text)
	}
	switch {
	case info.Types == 0:
		in.Type = info.Result.Of(in)
	case info.From != 0:
		in.Type, in.From = c.typ(word{parts[1], tok.col}), c.typ(word{parts[2], tok.col})
	default:
		in.Type = c.typ(word{parts[1], tok.col})
	}
}

// expr reads a host expression of type typ in prefix form, as FormatExpr
// prints it. Constants are printed without their type: it is typ, the
// type the enclosing operation expects.
func (c *cursor) expr(k *Kernel, typ Type) *Expr {
	if c.peek() != "(" {
		tok := c.next("an expression")
		bits, ok := parseBits(tok.text, typ)
		if !ok {
			c.failAt(tok, "expected an expression or a constant of type %s, found %q", typ, tok.text)
		}
		return &Expr{Op: OpConst, Type: typ, Bits: bits}
	}
	c.expect("(")
	tok := c.next("an op")
	e := &Expr{}
	switch op := opsByName[tok.text]; {
	case op == OpParam || op == OpParamLen:
		e.Op = op
		e.Aux = c.param(k)
		if e.Aux < 0 || e.Aux >= int64(len(k.Params)) || k.Params[e.Aux].Slice != (op == OpParamLen) {
			c.failAt(tok, "%s needs a %s parameter", op, map[bool]string{true: "slice", false: "scalar"}[op == OpParamLen])
		}
		e.Type = k.Params[e.Aux].Type
		if op == OpParamLen {
			e.Type = Int64
		}
	default:
		in := &Instr{}
		c.opName(tok, in)
		if !in.Op.Info().Expr {
			c.failAt(tok, "%s is not allowed in a host expression", in.Op)
		}
		e.Op, e.Type, e.From = in.Op, in.Type, in.From
		for _, at := range in.ArgTypes() {
			e.Args = append(e.Args, c.expr(k, at))
		}
	}
	c.expect(")")
	return e
}

var typesByName = func() map[string]Type {
	m := map[string]Type{}
	for t, name := range typeNames {
		if Type(t) != Invalid {
			m[name] = Type(t)
		}
	}
	return m
}()

func (c *cursor) typ(tok word) Type {
	t, ok := typesByName[tok.text]
	if !ok {
		c.failAt(tok, "expected a type, found %q", tok.text)
	}
	return t
}

func (c *cursor) int(what string) int { return c.intOf(c.next(what), what) }

func (c *cursor) intOf(tok word, what string) int {
	n, err := strconv.Atoi(tok.text)
	if err != nil {
		c.failAt(tok, "expected %s, found %q", what, tok.text)
	}
	return n
}
