package check

import (
	"fmt"
	"sort"
	"strings"
)

// A form is an integer polynomial over symbols: the symbolic value of an
// index that the dependence check compares between iterations. It maps
// each monomial, the names of its symbols in sorted order joined by a NUL
// byte, which no name contains ("" for the constant term), to its
// coefficient.
//
// Symbols are named so that the same value has the same name in every
// task of a kernel:
//
//	@i         the index of the task's parallel loop
//	#r12       the counter of an inner loop, from 0 (register 12's loop)
//	?r12       a value that may differ between iterations, known no better
//	anything   a value that is the same in every iteration: "n" for a
//	           parameter, "len(x)", or an operation on such values, as
//	           "div.i64(len(x),2)"
type form map[string]int64

// The kinds of symbols, by their first character.
const (
	indexSymbol   = "@i"
	counterPrefix = '#'
	varyingPrefix = '?'
)

func constForm(c int64) form {
	if c == 0 {
		return form{}
	}
	return form{"": c}
}

func symbolForm(name string) form { return form{name: 1} }

func (f form) plus(g form, sign int64) form {
	h := form{}
	for m, c := range f {
		h[m] += c
	}
	for m, c := range g {
		h[m] += sign * c
		if h[m] == 0 {
			delete(h, m)
		}
	}
	return h
}

func (f form) add(g form) form { return f.plus(g, 1) }
func (f form) sub(g form) form { return f.plus(g, -1) }

func (f form) scale(k int64) form {
	h := form{}
	if k != 0 {
		for m, c := range f {
			h[m] = c * k
		}
	}
	return h
}

// mul multiplies two forms; it gives nil when the product would have too
// many terms to be worth comparing.
func (f form) mul(g form) form {
	if len(f)*len(g) > 16 {
		return nil
	}
	h := form{}
	for m1, c1 := range f {
		for m2, c2 := range g {
			m := joinMonomial(m1, m2)
			h[m] += c1 * c2
			if h[m] == 0 {
				delete(h, m)
			}
		}
	}
	return h
}

// sep separates the symbols of a monomial.
const sep = "\x00"

func joinMonomial(a, b string) string {
	var syms []string
	for _, m := range []string{a, b} {
		if m != "" {
			syms = append(syms, strings.Split(m, sep)...)
		}
	}
	sort.Strings(syms)
	return strings.Join(syms, sep)
}

// constant returns the form's value when it has no symbols.
func (f form) constant() (int64, bool) {
	for m := range f {
		if m != "" {
			return 0, false
		}
	}
	return f[""], true
}

func (f form) equal(g form) bool {
	if len(f) != len(g) {
		return false
	}
	for m, c := range f {
		if g[m] != c {
			return false
		}
	}
	return true
}

// symbols calls yield for each symbol of the form.
func (f form) symbols(yield func(string) bool) {
	for m := range f {
		if m == "" {
			continue
		}
		for _, s := range strings.Split(m, sep) {
			if !yield(s) {
				return
			}
		}
	}
}

// has reports whether some symbol of f satisfies pred.
func (f form) has(pred func(string) bool) bool {
	found := false
	f.symbols(func(s string) bool {
		found = pred(s)
		return !found
	})
	return found
}

func isIndex(s string) bool     { return s == indexSymbol }
func isCounter(s string) bool   { return s[0] == counterPrefix }
func isVarying(s string) bool   { return s[0] == varyingPrefix }
func isIteration(s string) bool { return isIndex(s) || isCounter(s) || isVarying(s) }

// invariant reports whether f has the same value in every iteration.
func (f form) invariant() bool { return !f.has(isIteration) }

// split writes f as coeff·v + rest, where v is a symbol that every
// monomial of coeff lacks; it fails when v occurs squared.
func (f form) split(v string) (coeff, rest form, ok bool) {
	coeff, rest = form{}, form{}
	for m, c := range f {
		syms := strings.Split(m, sep)
		i := -1
		for j, s := range syms {
			if s == v {
				if i >= 0 {
					return nil, nil, false
				}
				i = j
			}
		}
		if i < 0 {
			rest[m] = c
			continue
		}
		coeff[strings.Join(append(syms[:i:i], syms[i+1:]...), sep)] = c
	}
	return coeff, rest, true
}

// ratio returns k when f = k·g for an integer k.
func (f form) ratio(g form) (int64, bool) {
	if len(g) == 0 || len(f) != len(g) {
		return 0, false
	}
	var k int64
	for m, c := range g {
		d, ok := f[m]
		if !ok || d%c != 0 || k != 0 && d/c != k {
			return 0, false
		}
		k = d / c
	}
	return k, true
}

// String prints the form canonically, for use inside symbol names.
func (f form) String() string {
	if len(f) == 0 {
		return "0"
	}
	ms := make([]string, 0, len(f))
	for m := range f {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	var b strings.Builder
	for i, m := range ms {
		c := f[m]
		if i > 0 {
			b.WriteString("+")
		}
		switch {
		case m == "":
			fmt.Fprint(&b, c)
		case c == 1:
			b.WriteString(strings.ReplaceAll(m, sep, "*"))
		default:
			fmt.Fprintf(&b, "%d*%s", c, strings.ReplaceAll(m, sep, "*"))
		}
	}
	return b.String()
}
