package randprog

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The generator writes Go that is valid, whose behaviour Go defines
// completely, and that stays within what kernels support: integers of every
// width, floats, shifts by any count, division by divisors that cannot be
// zero, conversions (floats to integers only clamped into range, where Go
// defines them), nested loops with break and continue, if and switch,
// helpers that call helpers, and qd.StreamParallel blocks that use values
// computed at the top level. Parallel loops write only elements no other
// iteration writes and read only the kernel's inputs, so that any order of
// iterations gives Go's result.

// variable is a name in scope and its type. Only locals of the function
// or iteration being written may be assigned: not a kernel's parameters or
// top-level values (a block cannot assign them, and a parallel loop would
// carry them from one iteration to the next), nor a loop's counter.
type variable struct {
	name  string
	t     typ
	local bool
}

// input is a slice parameter a kernel only reads, or a field of the
// elements of one of structs.
type input struct {
	name  string
	t     typ
	field string // ".A" for field A of a []S; "" for a slice of numbers
}

// plain are the inputs that are slices of numbers, which range may go over.
func (s *scope) plain() []input {
	var ins []input
	for _, in := range s.inputs {
		if in.field == "" {
			ins = append(ins, in)
		}
	}
	return ins
}

// scope is what an expression may refer to.
type scope struct {
	vars   []variable
	inputs []input
	index  string // the parallel loop's index, or "" in serial code
	inLoop bool   // inside an inner loop, where break and continue go
}

func (s *scope) ofType(t typ) []variable {
	var vs []variable
	for _, v := range s.vars {
		if v.t == t {
			vs = append(vs, v)
		}
	}
	return vs
}

// helper is a generated function kernels may call.
type helper struct {
	name   string
	params []typ
	result typ
}

// gen writes one package of random kernels.
type gen struct {
	r        *rand.Rand
	b        strings.Builder
	depth    int // of statements, for indentation
	helpers  []helper
	fresh    int
	usesMath bool
	// noChecks: integers are divided only by constants, so that the code
	// has none of Go's run-time checks (helpers without them may become
	// device functions).
	noChecks bool
}

func (g *gen) name(prefix string) string {
	g.fresh++
	return fmt.Sprintf("%s%d", prefix, g.fresh)
}

func (g *gen) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("\t", g.depth))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteString("\n")
}

// expr writes an expression of type t. It is never a constant unless
// constOK, so that no constant expression can overflow or divide by zero.
func (g *gen) expr(s *scope, t typ, depth int, constOK bool) string {
	if depth <= 0 || g.r.IntN(4) == 0 {
		return g.leaf(s, t, constOK)
	}
	d := depth - 1
	switch {
	case t == tBool:
		return g.boolExpr(s, d)
	case g.r.IntN(8) == 0:
		return g.conversion(s, t, d)
	case g.r.IntN(10) == 0 && len(g.helpers) > 0 && !g.noChecks:
		if call := g.call(s, t, d); call != "" {
			return call
		}
	case g.r.IntN(10) == 0:
		f := "min"
		if g.r.IntN(2) == 0 {
			f = "max"
		}
		return fmt.Sprintf("%s(%s, %s)", f, g.expr(s, t, d, false), g.expr(s, t, d, true))
	case t.isFloat() && g.r.IntN(8) == 0:
		return g.mathCall(s, t, d)
	case g.r.IntN(10) == 0:
		return g.unary(s, t, d)
	}
	return g.binary(s, t, d)
}

// leaf writes a variable, an input element, a constant, or a conversion of
// the loop bound n, which is never constant.
func (g *gen) leaf(s *scope, t typ, constOK bool) string {
	vars := s.ofType(t)
	var ins []input
	for _, in := range s.inputs {
		if in.t == t {
			ins = append(ins, in)
		}
	}
	switch k := g.r.IntN(4); {
	case k == 0 && len(ins) > 0:
		in := pick(g.r, ins)
		if s.index != "" {
			return fmt.Sprintf("%s[(%s+%d)%%n]%s", in.name, s.index, g.r.IntN(3), in.field)
		}
		return fmt.Sprintf("%s[%d%%n]%s", in.name, g.r.IntN(5), in.field)
	case k <= 2 && len(vars) > 0:
		return pick(g.r, vars).name
	case constOK && k == 3:
		return literal(g.r, t)
	case t == tBool:
		return fmt.Sprintf("(n%%%d == %d)", 2+g.r.IntN(3), g.r.IntN(2))
	}
	return fmt.Sprintf("%s(n)", t)
}

func (g *gen) boolExpr(s *scope, d int) string {
	switch k := g.r.IntN(5); k {
	case 0, 1:
		x, y := g.expr(s, tBool, d, false), g.expr(s, tBool, d, true)
		if x == y {
			y = fmt.Sprintf("(n > %d)", g.r.IntN(9)) // vet rejects x && x
		}
		return fmt.Sprintf("(%s %s %s)", x, []string{"&&", "||"}[k], y)
	case 2:
		return fmt.Sprintf("(!%s)", g.expr(s, tBool, d, false))
	}
	t := pick(g.r, numeric)
	op := pick(g.r, []string{"<", "<=", ">", ">=", "==", "!="})
	return fmt.Sprintf("(%s %s %s)", g.expr(s, t, d, false), op, g.expr(s, t, d, true))
}

// binary writes an arithmetic, bitwise or shift operation. Its left
// operand is never constant; divisors are made odd, hence never zero.
func (g *gen) binary(s *scope, t typ, d int) string {
	x := g.expr(s, t, d, false)
	ops := []string{"+", "-", "*", "/"}
	if t.isInt() {
		ops = append(ops, "%", "&", "|", "^", "&^", "<<", ">>", "/", "%")
	}
	switch op := pick(g.r, ops); op {
	case "/", "%":
		if t.isFloat() {
			return fmt.Sprintf("(%s / %s)", x, g.expr(s, t, d, true))
		}
		if g.noChecks {
			return fmt.Sprintf("(%s %s %d)", x, op, 3+2*g.r.IntN(3))
		}
		return fmt.Sprintf("(%s %s (%s | 1))", x, op, g.expr(s, t, d, false))
	case "<<", ">>":
		count := pick(g.r, integers[5:]) // unsigned: a negative count would panic
		return fmt.Sprintf("(%s %s %s)", x, op, g.expr(s, count, d, true))
	default:
		return fmt.Sprintf("(%s %s %s)", x, op, g.expr(s, t, d, true))
	}
}

func (g *gen) unary(s *scope, t typ, d int) string {
	x := g.expr(s, t, d, false)
	if t.isInt() && g.r.IntN(2) == 0 {
		return "(^" + x + ")"
	}
	return "(-" + x + ")"
}

// conversion converts an expression of another type to t; floats become
// integers through a helper that clamps them into t's range.
func (g *gen) conversion(s *scope, t typ, d int) string {
	from := pick(g.r, numeric)
	x := g.expr(s, from, d, false)
	if t.isInt() && from.isFloat() {
		return fmt.Sprintf("%s(float64(%s))", clampName(t), x)
	}
	return fmt.Sprintf("%s(%s)", t, x)
}

func (g *gen) mathCall(s *scope, t typ, d int) string {
	g.usesMath = true
	f := pick(g.r, []string{"Sqrt", "Abs", "Floor", "Ceil", "Trunc"})
	if t == tFloat32 {
		return fmt.Sprintf("float32(math.%s(float64(%s)))", f, g.expr(s, t, d, false))
	}
	return fmt.Sprintf("math.%s(%s)", f, g.expr(s, t, d, false))
}

// call calls a helper with result type t, or returns "".
func (g *gen) call(s *scope, t typ, d int) string {
	var hs []helper
	for _, h := range g.helpers {
		if h.result == t {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		return ""
	}
	h := pick(g.r, hs)
	args := []string{"n"}
	for _, p := range h.params {
		args = append(args, g.expr(s, p, d, true))
	}
	return fmt.Sprintf("%s(%s)", h.name, strings.Join(args, ", "))
}

// statements writes n statements that assign the variables of s.
func (g *gen) statements(s *scope, n, depth int) {
	for range n {
		g.statement(s, depth)
	}
}

func (g *gen) statement(s *scope, depth int) {
	var locals []variable
	for _, v := range s.vars {
		if v.local {
			locals = append(locals, v)
		}
	}
	if len(locals) == 0 {
		return
	}
	v := pick(g.r, locals)
	switch k := g.r.IntN(10); {
	case depth > 0 && k == 0:
		g.line("if %s {", g.expr(s, tBool, 2, false))
		g.depth++
		g.statements(s, 1+g.r.IntN(2), depth-1)
		g.depth--
		if g.r.IntN(2) == 0 {
			g.line("} else {")
			g.depth++
			g.statements(s, 1+g.r.IntN(2), depth-1)
			g.depth--
		}
		g.line("}")
	case depth > 0 && k == 1:
		g.line("switch %s %% 4 {", g.expr(s, pick(g.r, integers), 2, false))
		for _, c := range []string{"case 0:", "case 1, 2:", "default:"} {
			g.line("%s", c)
			g.depth++
			g.statements(s, 1, depth-1)
			g.depth--
		}
		g.line("}")
	case depth > 0 && k == 2:
		g.loop(s, depth)
	case s.inLoop && k == 3:
		g.line("if %s {", g.expr(s, tBool, 2, false))
		g.line("\t%s", pick(g.r, []string{"break", "continue"}))
		g.line("}")
	case k <= 5 && v.t != tBool && !(v.t.isFloat() && k == 5):
		op := pick(g.r, []string{"+=", "-=", "*=", "^=", "|="})
		if v.t.isFloat() {
			op = pick(g.r, []string{"+=", "-=", "*="})
		}
		g.line("%s %s %s", v.name, op, g.expr(s, v.t, 3, true))
	default:
		x := g.expr(s, v.t, 3, true)
		if x == v.name {
			x = literal(g.r, v.t)
		}
		g.line("%s = %s", v.name, x)
	}
}

// loop writes an inner loop of a few iterations, of one of Go's forms.
func (g *gen) loop(s *scope, depth int) {
	j := g.name("j")
	switch g.r.IntN(3) {
	case 0:
		g.line("for %s := 0; %s < int(uint8(%s))%%5; %s++ {", j, j, g.expr(s, pick(g.r, integers), 1, false), j)
	case 1:
		g.line("for %s := range %d {", j, 1+g.r.IntN(4))
	default:
		if len(s.plain()) == 0 {
			g.line("for %s := range 3 {", j)
			break
		}
		in := pick(g.r, s.plain())
		g.line("for %s, %s := range %s {", j+"i", j, in.name)
		inner := *s
		inner.vars = append(append([]variable(nil), s.vars...), variable{j, in.t, true})
		inner.inLoop = true
		g.depth++
		g.line("_, _ = %si, %s", j, j)
		g.statements(&inner, 1+g.r.IntN(2), depth-1)
		g.depth--
		g.line("}")
		return
	}
	inner := *s
	inner.vars = append(append([]variable(nil), s.vars...), variable{j, tInt, false})
	inner.inLoop = true
	g.depth++
	g.line("_ = %s", j)
	g.statements(&inner, 1+g.r.IntN(3), depth-1)
	g.depth--
	g.line("}")
}

// declare declares count fresh locals of random types, initialized from
// the scope, and adds them to it.
func (g *gen) declare(s *scope, count int) []variable {
	var vs []variable
	for range count {
		t := pick(g.r, append(numeric, tBool))
		v := variable{g.name("v"), t, true}
		g.line("%s := %s", v.name, g.expr(s, t, 3, false))
		s.vars = append(s.vars, v)
		vs = append(vs, v)
	}
	return vs
}
