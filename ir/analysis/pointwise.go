package analysis

import (
	"github.com/qdgo/qd/ir"
)

// A value that pure integer operations compute from one other value,
// which takes few values where it is read, has its range found by
// computing it for each of them. Interval arithmetic cannot see that two
// operands grow together: opt's division by a constant,
// ((x - mulhi(x, m)) >> 1 + mulhi(x, m)) >> s, subtracts two values that
// rise with x, and x - (x/c)*c another two, so their intervals spread to
// the whole type where the quotient is x/c and the remainder below c.
// Computed at every x, e/34 and e%34 of e < 1156 are [0, 33], whatever
// sequence stands for them.

const (
	// maxPointwiseValues bounds the values of the one input a range is
	// computed for, and maxPointwiseOps the instructions between it and
	// the value.
	maxPointwiseValues = 4096
	maxPointwiseOps    = 16
)

// pointwiseNode is one instruction of the computation: its operands'
// forms, in the atoms of the input and of the nodes before it, and the
// type each operand is read as.
type pointwiseNode struct {
	in    *ir.Instr
	args  []Affine
	types []ir.Type
}

// pointwise is the computation of a value from one input atom.
type pointwise struct {
	a      *Analysis
	input  Atom
	hasIn  bool
	nodes  []pointwiseNode
	index  map[Atom]int
	values []int64
}

// pointwiseRange bounds the value of x, a Value atom, by computing it for
// every value its one input takes at x's site; false when it has more
// than one input, too many values or too many instructions between.
func (a *Analysis) pointwiseRange(x Atom) (interval, bool) {
	if !a.computable(x) {
		return full, false
	}
	p := &pointwise{a: a, index: map[Atom]int{}}
	if !p.visit(x, 0) || !p.hasIn {
		return full, false
	}
	in := a.atomRange(p.input, x.Site, true)
	if in.lo > in.hi || uint64(in.hi-in.lo) >= maxPointwiseValues {
		return full, false
	}
	p.values = make([]int64, len(p.nodes))
	out := interval{lo: 1, hi: 0}
	for v := in.lo; ; v++ {
		r, ok := p.at(v)
		if !ok {
			return full, false
		}
		if out.lo > out.hi {
			out = point(r)
		} else {
			out = interval{min(out.lo, r), max(out.hi, r)}
		}
		if v == in.hi {
			break
		}
	}
	return out, true
}

// computable reports whether x is what a pure integer instruction
// assigned, which pointwise can compute from its operands.
func (a *Analysis) computable(x Atom) bool {
	if x.Kind != Value || x.Site.Block < 0 {
		return false
	}
	in := a.Instr(x.Site)
	info := in.Op.Info()
	if !info.Pure || !in.ResultType().IsInteger() || len(in.Args) == 0 || len(info.Operands) != len(in.Args) {
		return false
	}
	for i := range in.Args {
		if !info.Operands[i].Of(in).IsInteger() {
			return false
		}
	}
	return true
}

// visit adds x's computation, its operands' first; false where a second
// input appears or the computation is too long.
func (p *pointwise) visit(x Atom, depth int) bool {
	if _, ok := p.index[x]; ok {
		return true
	}
	if x == p.input && p.hasIn {
		return true
	}
	if !p.a.computable(x) {
		if p.hasIn {
			return false
		}
		p.input, p.hasIn = x, true
		return true
	}
	if depth >= maxPointwiseOps || len(p.nodes) >= maxPointwiseOps {
		return false
	}
	in := p.a.Instr(x.Site)
	node := pointwiseNode{in: in}
	for i, arg := range in.Args {
		f, ok := p.a.AffineOf(arg, x.Site)
		if !ok {
			return false
		}
		for _, t := range f.Terms {
			for _, y := range t.Factors {
				if !p.visit(y, depth+1) {
					return false
				}
			}
		}
		node.args = append(node.args, f)
		node.types = append(node.types, in.Op.Info().Operands[i].Of(in))
	}
	p.index[x] = len(p.nodes)
	p.nodes = append(p.nodes, node)
	return true
}

// at computes the value, the last node, where the input is v. A form's
// arithmetic wraps at 64 bits as the IR's does, and a form of a narrower
// register stands for it only where it fits, so the form's value read as
// the operand's type is the operand.
func (p *pointwise) at(v int64) (int64, bool) {
	atom := func(y Atom) int64 {
		if i, ok := p.index[y]; ok {
			return p.values[i]
		}
		return v
	}
	args := make([]uint64, 0, 3)
	for i, node := range p.nodes {
		args = args[:0]
		for k, f := range node.args {
			s := f.Const
			for _, t := range f.Terms {
				prod := t.Coeff
				for _, y := range t.Factors {
					prod *= atom(y)
				}
				s += prod
			}
			args = append(args, node.types[k].Normalize(uint64(s)))
		}
		r, err := ir.Fold(node.in, args)
		if err != nil {
			return 0, false
		}
		p.values[i] = int64(node.in.ResultType().Normalize(r))
	}
	return p.values[len(p.values)-1], true
}
