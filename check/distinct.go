package check

import (
	"slices"
	"strconv"
)

// This file decides whether an index gives each iteration of the parallel
// loop elements no other iteration has, as a number's digits in a mixed
// radix do: y*w + x with x below w, i + n*j with i below n, a row j1*m+j2
// of a triangle whose j2 runs from j1+1 to m. Where that holds only for
// some values of the kernel's parameters (x[i*stride], for stride != 0),
// it says which: the kernel tests them at launch (Result.Conditions).

// condition is a fact on parameters and lengths that an index needs to be
// distinct: f > 0, or f != 0 where nonzero is set.
type condition struct {
	f       form
	nonzero bool
}

// String writes the condition as Go source does: "stride != 0",
// "stride > 2".
func (c condition) String() string {
	op := " > "
	if c.nonzero {
		op = " != "
	}
	k := c.f[""]
	return c.f.sub(constForm(k)).String() + op + strconv.FormatInt(-k, 10)
}

// term is a variable of an index, times its coefficient: the variable
// takes width values, from 0.
type term struct {
	coeff form
	width form
}

// distinct reports whether index f gives each iteration elements no other
// iteration has: f is a sum of the loop index and inner loops' counters,
// each times a coefficient that exceeds everything the smaller terms can
// add up to. When that needs facts the check cannot prove, but the kernel
// can test at launch, it returns them.
func (ix *indexer) distinct(f form) (bool, []condition) {
	// A counter whose start or bound changes with the iteration (j2 from
	// j1+1, or below j1) is taken as its value, bounded over all
	// iterations, instead.
	rest, terms, ok := ix.counterValues(f)
	if !ok || rest.has(isVarying) || !f.has(isIndex) {
		return false, nil
	}
	vars := []string{indexSymbol}
	rest.symbols(func(s string) bool {
		if isCounter(s) && !slices.Contains(vars, s) {
			vars = append(vars, s)
		}
		return true
	})
	for _, v := range vars {
		coeff, r, ok := rest.split(v)
		if !ok || !coeff.invariant() || len(coeff) == 0 {
			return false, nil
		}
		coeff = positive(coeff)
		if coeff == nil {
			return false, nil
		}
		width := ix.widths[v]
		if v == indexSymbol {
			width = ix.loopWidth()
		}
		if width == nil {
			return false, nil
		}
		terms = append(terms, term{coeff, width})
		rest = r
	}
	if !rest.invariant() || len(terms) > 4 {
		return false, nil
	}
	if _, ok := mixedRadix(terms, nil); ok {
		return true, nil
	}
	if len(terms) == 1 && ix.launchKnown(terms[0].coeff) {
		// a·i for a the same in every iteration: distinct iff a != 0.
		return true, []condition{{terms[0].coeff, true}}
	}
	// Only a coefficient known at launch (a stride) is worth testing
	// there: with constant coefficients, a condition would bound the
	// loops' lengths, and hold only for loops too short to matter.
	var strides []string
	for _, tm := range terms {
		tm.coeff.symbols(func(s string) bool {
			strides = append(strides, s)
			return true
		})
	}
	assumed, ok := mixedRadix(terms, func(d form) bool {
		return ix.launchKnown(d) && d.has(func(s string) bool { return slices.Contains(strides, s) })
	})
	if !ok {
		return false, nil
	}
	var conds []condition
	for _, d := range assumed {
		conds = append(conds, condition{f: d})
	}
	return true, conds
}

// mixedRadix reports whether some order of the terms makes each
// coefficient exceed the largest sum of the terms before it. A difference
// that is not a constant passes when assume accepts it as positive; the
// differences so assumed on the way to success are returned.
func mixedRadix(terms []term, assume func(form) bool) ([]form, bool) {
	var try func(used []bool, sum form, assumed []form) ([]form, bool)
	try = func(used []bool, sum form, assumed []form) ([]form, bool) {
		if !slices.Contains(used, false) {
			return assumed, true
		}
		for k, tm := range terms {
			if used[k] {
				continue
			}
			diff := tm.coeff.sub(sum)
			next := assumed
			if d, ok := diff.constant(); ok && d <= 0 {
				continue
			} else if !ok {
				if assume == nil || !diff.invariant() || !assume(diff) {
					continue
				}
				next = append(slices.Clip(assumed), diff)
			}
			span := tm.coeff.mul(tm.width.sub(constForm(1)))
			if span == nil {
				continue
			}
			used[k] = true
			if got, ok := try(used, sum.add(span), next); ok {
				return got, true
			}
			used[k] = false
		}
		return nil, false
	}
	return try(make([]bool, len(terms)), form{}, nil)
}

// counterValues rewrites f = c·#r + rest, for each counter #r whose start
// or bound changes with the iteration, as c·(v - lo) + rest', with v the counter's
// value and lo the least value it takes in any iteration: v - lo is a
// variable of its own, from 0 to the largest value less lo. It returns what
// is left of f and the terms of those variables.
func (ix *indexer) counterValues(f form) (form, []term, bool) {
	var terms []term
	var counters []string
	f.symbols(func(s string) bool {
		if r, ok := ix.ranges[s]; ok && (!r.init.invariant() || !r.bound.invariant()) && !slices.Contains(counters, s) {
			counters = append(counters, s)
		}
		return true
	})
	slices.Sort(counters)
	for _, c := range counters {
		r := ix.ranges[c]
		coeff, rest, ok := f.split(c)
		if !ok || !coeff.invariant() || len(coeff) == 0 {
			return nil, nil, false
		}
		start := coeff.mul(r.init)
		lo, hi := ix.bound(r.init, true, 0), ix.bound(r.bound, false, 0)
		if start == nil || lo == nil || hi == nil {
			return nil, nil, false
		}
		coeff = positive(coeff)
		if coeff == nil {
			return nil, nil, false
		}
		// f = coeff·(init+#c) + rest - coeff·init, and init+#c = lo + (v-lo).
		f = rest.sub(start).add(coeff.mul(lo))
		terms = append(terms, term{coeff, hi.sub(lo)}) // v < hi: hi-lo values
	}
	return f, terms, true
}

// positive returns the coefficient with its sign made positive, or nil
// when its terms have mixed signs.
func positive(f form) form {
	neg, pos := false, false
	for _, c := range f {
		neg, pos = neg || c < 0, pos || c > 0
	}
	switch {
	case neg && pos:
		return nil
	case neg:
		return f.scale(-1)
	}
	return f
}

// loopWidth is the number of values of the loop index: bound-delta-init.
func (ix *indexer) loopWidth() form {
	lp := ix.loop
	return ix.formOfArg(lp.Bound, lp.Wide).sub(constForm(lp.Delta)).sub(ix.formOfArg(lp.Init, lp.Wide))
}

// assume adds conditions to the launch conditions of the task, when it
// can test them, and reports whether it can.
func (ix *indexer) assume(conds []condition) bool {
	if ix.loop == nil || !ix.loop.Versioned {
		return false
	}
	for _, c := range conds {
		text := c.String()
		if !slices.ContainsFunc(ix.conditions, func(d Condition) bool { return d.Text == text }) {
			ix.conditions = append(ix.conditions, Condition{ix.launchTest(c), text})
		}
	}
	return true
}
