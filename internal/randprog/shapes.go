package randprog

import (
	"fmt"
)

// Shapes of parallel loops whose safety rests on index arithmetic: nests
// of two and three levels that read their neighbours (stencils), loops
// whose inner bounds depend on the outer index (triangular nests), pairs
// of elements exchanged by XOR partners, and elements at a stride known
// only at run time. Each writes only elements its iteration owns, so that
// any order of iterations gives Go's result; qd may accept such a kernel
// or reject it with a positioned diagnostic, but never fail inside.

// stencilNest writes a nest of two or three levels over the first n
// elements seen as planes of h rows of w columns (w and h small
// constants), whose iteration reads its element of a plain input and its
// neighbours inside the bounds, then writes its locals as iteration does
// at the element's index. It returns the sizes of the outputs.
func (g *gen) stencilNest(s *scope, levels int, iout, fout string) []int {
	in := pick(g.r, s.plain())
	w, h := 1+g.r.IntN(4), 1+g.r.IntN(3)
	rows := fmt.Sprintf("n/%d", w)
	if levels == 3 {
		rows = fmt.Sprintf("%d", h)
		g.line("for z := range n / %d {", w*h)
		g.depth++
	}
	interior := g.r.IntN(3) == 0
	if interior { // neighbours without conditions, of the inner elements
		g.line("for y := 1; y < %s-1; y++ {", rows)
		g.line("\tfor x := 1; x < %d; x++ {", w-1)
	} else {
		g.line("for y := range %s {", rows)
		g.line("\tfor x := 0; x < %d; x++ {", w)
	}
	g.depth += 2
	row := "y"
	if levels == 3 {
		row = fmt.Sprintf("(z*%d+y)", h)
	}
	g.line("i := %s*%d + x", row, w)
	c := variable{g.name("c"), in.t, true}
	g.line("%s := %s[i]", c.name, in.name)
	neighbours := []struct{ cond, index string }{
		{"y > 0", fmt.Sprintf("i-%d", w)},
		{fmt.Sprintf("y+1 < %s", rows), fmt.Sprintf("i+%d", w)},
		{"x > 0", "i-1"},
		{fmt.Sprintf("x+1 < %d", w), "i+1"},
	}
	if levels == 3 {
		neighbours = append(neighbours,
			struct{ cond, index string }{"z > 0", fmt.Sprintf("i-%d", w*h)},
			struct{ cond, index string }{fmt.Sprintf("z+1 < n/%d", w*h), fmt.Sprintf("i+%d", w*h)})
	}
	for _, nb := range neighbours {
		if g.r.IntN(3) == 0 {
			continue
		}
		op := pick(g.r, []string{"+=", "-="})
		if interior && nb.cond != fmt.Sprintf("z+1 < n/%d", w*h) && nb.cond != "z > 0" {
			g.line("%s %s %s[%s]", c.name, op, in.name, nb.index)
			continue
		}
		g.line("if %s {", nb.cond)
		g.line("\t%s %s %s[%s]", c.name, op, in.name, nb.index)
		g.line("}")
	}
	inner := *s
	inner.vars = append(append([]variable(nil), s.vars...), c)
	inner.index = "i"
	sizes := g.iteration(s, &inner, iout, fout)
	g.depth -= 2
	g.line("\t}")
	g.line("}")
	if levels == 3 {
		g.depth--
		g.line("}")
	}
	return sizes
}

// dependentRead declares a local that accumulates a plain input over an
// inner loop whose bounds depend on the parallel loop's index i, and adds
// it to s.
func (g *gen) dependentRead(s *scope) {
	in := pick(g.r, s.plain())
	acc := variable{g.name("acc"), in.t, true}
	g.line("var %s %s", acc.name, in.t)
	j := g.name("j")
	switch g.r.IntN(4) {
	case 0:
		g.line("for %s := i + 1; %s < n; %s++ {", j, j, j)
	case 1:
		g.line("for %s := 0; %s < i; %s++ {", j, j, j)
	case 2:
		g.line("for %s := i; %s < min(n, i+%d); %s++ {", j, j, 1+g.r.IntN(4), j)
	default:
		g.line("for %s := i / 2; %s <= i; %s++ {", j, j, j)
	}
	op := "+="
	if in.t.isInt() {
		op = pick(g.r, []string{"+=", "^=", "-="})
	}
	g.line("\t%s %s %s[%s]", acc.name, op, in.name, j)
	g.line("}")
	s.vars = append(s.vars, acc)
}

// triangularWrite writes, from iteration i, a triangle's row of tri, an
// n×n matrix: the elements above the diagonal or those up to it, each
// updated from a local of the iteration.
func (g *gen) triangularWrite(s *scope, tri string) {
	v := pick(g.r, localsOf(s))
	j := g.name("j")
	if g.r.IntN(2) == 0 {
		g.line("for %s := i + 1; %s < n; %s++ {", j, j, j)
	} else {
		g.line("for %s := 0; %s <= i; %s++ {", j, j, j)
	}
	op := pick(g.r, []string{"+=", "^=", "="})
	g.line("\t%s[i*n+%s] %s uint64(%s) + uint64(%s)", tri, j, op, convertToU64(v), j)
	g.line("}")
}

// xorPartners writes a loop after one that wrote ni elements per
// iteration into iout: iteration i exchanges its first element with that
// of its partner i^k, for k the same in every iteration, when the partner
// is above it, as a bitonic sort's stage compares and exchanges.
func (g *gen) xorPartners(s *scope, iout string, ni int) {
	top := &scope{vars: s.vars}
	k := fmt.Sprintf("int(uint8(%s))", g.expr(top, pick(g.r, integers), 2, false))
	if g.r.IntN(2) == 0 {
		k = fmt.Sprintf("1 << (uint(%s) %% 5)", g.expr(top, pick(g.r, integers), 1, false))
	}
	g.line("for i := range n {")
	g.line("\tif p := i ^ (%s); p > i && p < n {", k)
	a, b := fmt.Sprintf("%s[i*%d]", iout, ni), fmt.Sprintf("%s[p*%d]", iout, ni)
	if g.r.IntN(2) == 0 {
		g.line("\t\tif %s > %s {", a, b)
		g.line("\t\t\t%s, %s = %s, %s", a, b, b, a)
		g.line("\t\t}")
	} else {
		g.line("\t\t%s, %s = %s, %s", a, b, b, a)
	}
	g.line("\t}")
	g.line("}")
}

// stridedWrite writes, from iteration i, a local into element i*stride
// (plus an offset below the stride) of sout, stride being the kernel's
// parameter, from 1 to maxStride at run time.
func (g *gen) stridedWrite(s *scope, sout string) {
	v := pick(g.r, localsOf(s))
	off := pick(g.r, []string{"", "+stride-1", "+(stride-1)/2"})
	g.line("%s[i*stride%s] = uint64(%s)", sout, off, convertToU64(v))
}

// stridedUpdate writes a loop that updates in place the elements a
// strided write wrote: a read, changed and written back at the same
// run-time stride, which is safe only because the stride is not zero.
func (g *gen) stridedUpdate(sout string) {
	g.line("for i := range n {")
	switch g.r.IntN(3) {
	case 0:
		g.line("\t%s[i*stride] *= 3", sout)
	case 1:
		g.line("\t%s[i*stride] += uint64(i)", sout)
	default:
		g.line("\tif v := %s[i*stride]; v%%2 == 1 {", sout)
		g.line("\t\t%s[i*stride] = v >> 1", sout)
		g.line("\t}")
	}
	g.line("}")
}

// maxStride is the largest stride a kernel's stride parameter gets.
const maxStride = 3

// localsOf returns the assignable variables of s (the iteration's locals).
func localsOf(s *scope) []variable {
	var vs []variable
	for _, v := range s.vars {
		if v.local {
			vs = append(vs, v)
		}
	}
	return vs
}

// phases writes a kernel of several launches that pass values on: a
// top-level value, a parallel loop that also reduces its locals into a
// variable, serial code reading it, and two qd.StreamParallel blocks that
// read both, one writing iout2 and fout2, the other exchanging XOR
// partners of iout (a few read the reduction's result too). It returns
// the sizes of the outputs.
func (g *gen) phases(s *scope) []int {
	top := g.topValue(s)
	red := variable{g.name("red"), tUint64, false}
	g.line("var %s uint64", red.name)
	sizes := g.parallelLoop(s, "iout", "fout", func(inner *scope, after bool) {
		if after {
			v := pick(g.r, localsOf(inner))
			switch g.r.IntN(3) {
			case 0:
				g.line("%s += uint64(%s)", red.name, convertToU64(v))
			case 1:
				g.line("%s ^= uint64(%s)", red.name, convertToU64(v))
			default:
				g.line("%s = max(%s, uint64(%s))", red.name, red.name, convertToU64(v))
			}
		}
	})
	g.line("iout[0] += %s ^ uint64(%s)", red.name, convertToU64(top))
	if g.r.IntN(4) == 0 {
		// Blocks that read a reduction's result are rejected today (its
		// value is in memory), with a position; most kernels leave it.
		s.vars = append(s.vars, red)
	}
	g.line("qd.StreamParallel(func() {")
	g.depth++
	sizes = append(sizes, g.parallelLoop(s, "iout2", "fout2", nil)...)
	g.depth--
	g.line("})")
	g.line("qd.StreamParallel(func() {")
	g.depth++
	g.xorPartners(s, "iout", sizes[0])
	g.depth--
	g.line("})")
	return sizes
}
