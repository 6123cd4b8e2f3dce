package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/qdgo/qd/ir"
)

// AtomKind says what an atom of an affine form stands for.
type AtomKind uint8

const (
	// Counter is a basic induction variable's value at the start of the
	// current iteration of its loop: "L1.r7".
	Counter AtomKind = iota + 1
	// Param is a scalar kernel parameter: "n".
	Param
	// Len is the length of a slice parameter, known at launch: "len(x)".
	Len
	// ThreadIndex and ThreadCount are the thread's place in the launch
	// grid and the grid's size: "tid", "nthreads".
	ThreadIndex
	ThreadCount
	// Value is what one instruction assigned, the last time it ran before
	// the site: "r9@b3.2". Its site dominates every site whose form holds
	// it, in the same iteration of every loop around it.
	Value
)

// Atom is one unknown of an affine form.
type Atom struct {
	Kind AtomKind
	// Index is the parameter of Param and Len, the loop of Counter.
	Index int
	// Reg is the register of Counter and Value.
	Reg ir.Reg
	// Site is where Value's instruction is.
	Site Site
}

func (x Atom) compare(y Atom) int {
	switch {
	case x.Kind != y.Kind:
		return int(x.Kind) - int(y.Kind)
	case x.Index != y.Index:
		return x.Index - y.Index
	case x.Reg != y.Reg:
		return int(x.Reg) - int(y.Reg)
	case x.Site.Block != y.Site.Block:
		return x.Site.Block - y.Site.Block
	}
	return x.Site.At - y.Site.At
}

// Term is Coeff times the product of Factors, which are sorted; a term
// without factors is not kept in Affine.Terms (it is Affine.Const).
type Term struct {
	Coeff   int64
	Factors []Atom
}

// Affine is Σ Coeff·Factors + Const over 64-bit integers with
// wraparound: the same arithmetic as the IR's 64-bit adds, subtracts and
// multiplies, so a form equals its register's value modulo 2^64 whatever
// overflows. Terms are sorted and have non-zero coefficients. Products of
// atoms appear where an invariant multiplies a counter (i*m); a form is
// affine in the counters of a loop when no term holds two of them
// (Analysis.Split).
type Affine struct {
	Terms []Term
	Const int64
}

// maxTerms bounds the terms a product may make.
const maxTerms = 16

// Constant returns the form c.
func Constant(c int64) Affine { return Affine{Const: c} }

// Of returns the form 1·x.
func Of(x Atom) Affine { return Affine{Terms: []Term{{1, []Atom{x}}}} }

// IsConst reports whether f is a constant, and which.
func (f Affine) IsConst() (int64, bool) { return f.Const, len(f.Terms) == 0 }

// Equal reports whether f and g are the same form.
func (f Affine) Equal(g Affine) bool {
	if f.Const != g.Const || len(f.Terms) != len(g.Terms) {
		return false
	}
	for i := range f.Terms {
		if f.Terms[i].Coeff != g.Terms[i].Coeff || compareFactors(f.Terms[i].Factors, g.Terms[i].Factors) != 0 {
			return false
		}
	}
	return true
}

func compareFactors(x, y []Atom) int {
	for i := range min(len(x), len(y)) {
		if c := x[i].compare(y[i]); c != 0 {
			return c
		}
	}
	return len(x) - len(y)
}

// Add returns f + g.
func (f Affine) Add(g Affine) Affine { return combine(f, g, 1) }

// Sub returns f - g.
func (f Affine) Sub(g Affine) Affine { return combine(f, g, -1) }

// Scale returns c·f.
func (f Affine) Scale(c int64) Affine {
	out := Affine{Const: f.Const * c}
	for _, t := range f.Terms {
		if t.Coeff*c != 0 {
			out.Terms = append(out.Terms, Term{t.Coeff * c, t.Factors})
		}
	}
	return out
}

// Mul returns f·g, false when it would have more than maxTerms terms.
func (f Affine) Mul(g Affine) (Affine, bool) {
	out := Constant(f.Const * g.Const)
	for _, t := range f.Terms {
		out = combine(out, Affine{Terms: []Term{t}}, g.Const)
	}
	for _, u := range g.Terms {
		out = combine(out, Affine{Terms: []Term{u}}, f.Const)
	}
	for _, t := range f.Terms {
		for _, u := range g.Terms {
			factors := slices.SortedFunc(slices.Values(append(slices.Clone(t.Factors), u.Factors...)), Atom.compare)
			out = combine(out, Affine{Terms: []Term{{t.Coeff * u.Coeff, factors}}}, 1)
			if len(out.Terms) > maxTerms {
				return Affine{}, false
			}
		}
	}
	return out, true
}

func combine(f, g Affine, sign int64) Affine {
	out := Affine{Const: f.Const + sign*g.Const}
	i, j := 0, 0
	for i < len(f.Terms) || j < len(g.Terms) {
		var c int
		switch {
		case i == len(f.Terms):
			c = 1
		case j == len(g.Terms):
			c = -1
		default:
			c = compareFactors(f.Terms[i].Factors, g.Terms[j].Factors)
		}
		switch {
		case c < 0:
			out.Terms = append(out.Terms, f.Terms[i])
			i++
		case c > 0:
			if x := sign * g.Terms[j].Coeff; x != 0 {
				out.Terms = append(out.Terms, Term{x, g.Terms[j].Factors})
			}
			j++
		default:
			if x := f.Terms[i].Coeff + sign*g.Terms[j].Coeff; x != 0 {
				out.Terms = append(out.Terms, Term{x, f.Terms[i].Factors})
			}
			i, j = i+1, j+1
		}
	}
	return out
}

// Coeff returns the coefficient of x alone in f.
func (f Affine) Coeff(x Atom) int64 {
	for _, t := range f.Terms {
		if len(t.Factors) == 1 && t.Factors[0] == x {
			return t.Coeff
		}
	}
	return 0
}

// Has reports whether a term of f holds an atom for which pred is true.
func (f Affine) Has(pred func(Atom) bool) bool {
	for _, t := range f.Terms {
		for _, x := range t.Factors {
			if pred(x) {
				return true
			}
		}
	}
	return false
}

// Split writes f as coeff·x + rest, where neither coeff nor rest holds x;
// false when a term holds x more than once.
func (f Affine) Split(x Atom) (coeff, rest Affine, ok bool) {
	for _, t := range f.Terms {
		n := 0
		var others []Atom
		for _, y := range t.Factors {
			if y == x {
				n++
			} else {
				others = append(others, y)
			}
		}
		part := Affine{Terms: []Term{{t.Coeff, others}}}
		if len(others) == 0 {
			part = Constant(t.Coeff)
		}
		switch n {
		case 0:
			rest = rest.Add(part)
		case 1:
			coeff = coeff.Add(part)
		default:
			return Affine{}, Affine{}, false
		}
	}
	rest.Const += f.Const
	return coeff, rest, true
}

// Names gives atoms their printed names.
type Names struct {
	Kernel *ir.Kernel // for parameter names; nil prints p0, p1, ...
}

// Atom prints x.
func (n Names) Atom(x Atom) string {
	param := func(i int) string {
		if n.Kernel != nil && i < len(n.Kernel.Params) {
			return n.Kernel.Params[i].Name
		}
		return fmt.Sprintf("p%d", i)
	}
	switch x.Kind {
	case Counter:
		return fmt.Sprintf("L%d.r%d", x.Index, x.Reg)
	case Param:
		return param(x.Index)
	case Len:
		return "len(" + param(x.Index) + ")"
	case ThreadIndex:
		return "tid"
	case ThreadCount:
		return "nthreads"
	}
	return fmt.Sprintf("r%d@b%d.%d", x.Reg, x.Site.Block, x.Site.At)
}

// Form prints f, as "2*L0.r7 + n*L1.r9 - 3".
func (n Names) Form(f Affine) string {
	var b strings.Builder
	for i, t := range f.Terms {
		c := t.Coeff
		switch {
		case i == 0 && c < 0:
			b.WriteString("-")
			c = -c
		case i > 0 && c < 0:
			b.WriteString(" - ")
			c = -c
		case i > 0:
			b.WriteString(" + ")
		}
		if c != 1 {
			fmt.Fprintf(&b, "%d*", uint64(c))
		}
		for k, x := range t.Factors {
			if k > 0 {
				b.WriteString("*")
			}
			b.WriteString(n.Atom(x))
		}
	}
	switch {
	case len(f.Terms) == 0:
		fmt.Fprintf(&b, "%d", f.Const)
	case f.Const < 0:
		fmt.Fprintf(&b, " - %d", uint64(-f.Const))
	case f.Const > 0:
		fmt.Fprintf(&b, " + %d", f.Const)
	}
	return b.String()
}

// String prints f with parameters numbered.
func (f Affine) String() string { return Names{}.Form(f) }
