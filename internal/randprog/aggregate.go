package randprog

import (
	"fmt"
	"strings"
)

// Struct values, struct slices and local arrays. Their fields and
// elements join the scope as variables named by their selector or index
// expression ("s3.A", "a4[2]", "a4[uint(v2)%4]"), which expressions read
// and statements assign like any other, and which the parallel loop
// writes to its outputs.

// structField is a field of S, the struct type of every package.
type structField struct {
	name string
	t    typ
}

// structFields are S's fields: of several sizes, so that Go's layout pads
// between them, and a bool.
var structFields = []structField{{"A", tInt32}, {"B", tFloat64}, {"C", tUint8}, {"D", tBool}, {"E", tFloat32}, {"F", tInt16}}

// structType writes S.
func (g *gen) structType() {
	g.line("// S is the struct of the kernels' struct values and slices.")
	g.line("type S struct {")
	for _, f := range structFields {
		g.line("\t%s %s", f.name, f.t)
	}
	g.line("}")
	g.line("")
}

// structInput adds a []S parameter to the kernel's inputs, one input per
// field, and returns the parameter's declaration.
func (s *scope) structInput(name string) string {
	for _, f := range structFields {
		s.inputs = append(s.inputs, input{name, f.t, "." + f.name})
	}
	return name + " []S"
}

// aggregates declares, at random, a local struct and a local array, and
// adds their fields and elements to s.
func (g *gen) aggregates(s *scope) {
	if g.r.IntN(2) == 0 {
		g.structLocal(s)
	}
	if g.r.IntN(2) == 0 {
		g.arrayLocal(s)
	}
}

// structLocal declares a struct value: a composite literal of some of its
// fields, a zero value, or a copy of an input's element.
func (g *gen) structLocal(s *scope) {
	v := g.name("s")
	var structs []input
	for _, in := range s.inputs {
		if in.field == ".A" {
			structs = append(structs, in)
		}
	}
	switch k := g.r.IntN(3); {
	case k == 0 && len(structs) > 0 && s.index != "":
		g.line("%s := %s[(%s+%d)%%n]", v, pick(g.r, structs).name, s.index, g.r.IntN(3))
	case k == 1:
		g.line("var %s S", v)
	default:
		var inits []string
		for _, f := range structFields {
			if g.r.IntN(3) > 0 {
				inits = append(inits, fmt.Sprintf("%s: %s", f.name, g.expr(s, f.t, 2, true)))
			}
		}
		g.line("%s := S{%s}", v, strings.Join(inits, ", "))
	}
	for _, f := range structFields {
		s.vars = append(s.vars, variable{v + "." + f.name, f.t, true})
	}
}

// arrayLocal declares an array of 2 to 5 numbers, from a literal or zero,
// and adds to s an element at a constant index and one at an index
// computed at run time, always in range but checked by the kernel.
func (g *gen) arrayLocal(s *scope) {
	v, t, n := g.name("a"), pick(g.r, numeric), 2+g.r.IntN(4)
	if g.r.IntN(3) == 0 {
		g.line("var %s [%d]%s", v, n, t)
	} else {
		elems := make([]string, n)
		for k := range elems {
			elems[k] = g.expr(s, t, 2, true)
		}
		g.line("%s := [%d]%s{%s}", v, n, t, strings.Join(elems, ", "))
	}
	var ints []variable
	for _, x := range s.vars {
		if x.t.isInt() && x.local {
			ints = append(ints, x)
		}
	}
	var index string
	switch {
	case len(ints) > 0 && g.r.IntN(2) == 0:
		index = fmt.Sprintf("uint(%s)%%%d", pick(g.r, ints).name, n)
	case s.index != "":
		index = fmt.Sprintf("(%s+%d)%%%d", s.index, g.r.IntN(n), n)
	default:
		index = fmt.Sprintf("n%%%d", n)
	}
	s.vars = append(s.vars, variable{fmt.Sprintf("%s[%d]", v, g.r.IntN(n)), t, true}, variable{v + "[" + index + "]", t, true})
}

// topAggregates declares, at the top level of a kernel, a struct value and
// an array built from the scalar parameters, which later loops and blocks
// read (each of their launches builds them again) but do not assign.
func (g *gen) topAggregates(s *scope) {
	top := &scope{vars: s.vars}
	g.aggregates(top)
	if len(top.vars) == len(s.vars) {
		g.arrayLocal(top)
	}
	used := map[string]bool{}
	for _, v := range top.vars[len(s.vars):] {
		if base := v.name[:strings.IndexAny(v.name, ".[")]; !used[base] {
			used[base] = true
			g.line("_ = %s", base) // a kernel may read none of its elements
		}
		v.local = false
		s.vars = append(s.vars, v)
	}
}
