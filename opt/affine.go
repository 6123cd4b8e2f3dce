package opt

import (
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/qdgo/qd/ir"
)

// linear is a sum of terms coefficient·atom over the integers modulo 2^64,
// in which 64-bit integer arithmetic wraps. An atom names a product of
// loop-invariant values by their keys; the atom "" is 1.
type linear map[string]uint64

// affine is coef·counter + base: a value that grows with a loop's counter
// by the same amount, coef, in every iteration.
type affine struct{ coef, base linear }

// maxTerms bounds the terms of a linear form, which products multiply.
const maxTerms = 16

// affineOf writes v as an affine form of the loop's counter, if it is one:
// built from the counter and invariants by 64-bit additions,
// subtractions, negations, multiplications and left shifts by constants,
// where no product multiplies the counter by itself.
func affineOf(v *expr) (affine, bool) {
	switch {
	case v.unknown:
		return affine{}, false
	case v.counter:
		return affine{coef: linear{"": 1}, base: linear{}}, true
	case v.constant:
		return affine{coef: linear{}, base: linear{"": v.leaf.Bits}}, true
	case !v.variant && (v.op == ir.OpInvalid || !isWord(v.typ) || !linearOp(v)):
		return affine{coef: linear{}, base: linear{v.key: 1}}, !v.opaque
	case !isWord(v.typ):
		return affine{}, false
	}
	args := make([]affine, len(v.args))
	for i, a := range v.args {
		var ok bool
		if args[i], ok = affineOf(a); !ok {
			return affine{}, false
		}
	}
	switch v.op {
	case ir.OpMove:
		return args[0], true
	case ir.OpConvert:
		return args[0], isWord(v.from)
	case ir.OpNeg:
		return affine{scale(args[0].coef, ^uint64(0)), scale(args[0].base, ^uint64(0))}, true
	case ir.OpAdd:
		return affine{add(args[0].coef, args[1].coef, 1), add(args[0].base, args[1].base, 1)}, true
	case ir.OpSub:
		return affine{add(args[0].coef, args[1].coef, ^uint64(0)), add(args[0].base, args[1].base, ^uint64(0))}, true
	case ir.OpShl:
		count, ok := args[1].base[""]
		if !v.args[1].constant || !ok {
			return affine{}, false
		}
		factor := uint64(0)
		if count < 64 {
			factor = 1 << count
		}
		return affine{scale(args[0].coef, factor), scale(args[0].base, factor)}, true
	case ir.OpMul:
		x, y := args[0], args[1]
		if len(x.coef) > 0 {
			x, y = y, x
		}
		if len(x.coef) > 0 {
			return affine{}, false // the counter squared
		}
		coef, ok1 := product(x.base, y.coef)
		base, ok2 := product(x.base, y.base)
		return affine{coef, base}, ok1 && ok2
	}
	return affine{}, false
}

func isWord(t ir.Type) bool { return t == ir.Int64 || t == ir.Uint64 }

// linearOp reports whether affineOf looks into v rather than taking it
// as an atom when it does not depend on the counter.
func linearOp(v *expr) bool {
	switch v.op {
	case ir.OpMove, ir.OpNeg, ir.OpAdd, ir.OpSub, ir.OpMul:
		return true
	case ir.OpConvert:
		return isWord(v.from)
	case ir.OpShl:
		return v.args[1].constant
	}
	return false
}

func scale(l linear, c uint64) linear {
	out := linear{}
	for k, x := range l {
		if x*c != 0 {
			out[k] = x * c
		}
	}
	return out
}

func add(a, b linear, sign uint64) linear {
	out := linear{}
	for k, x := range a {
		out[k] = x
	}
	for k, x := range b {
		if s := out[k] + sign*x; s != 0 {
			out[k] = s
		} else {
			delete(out, k)
		}
	}
	return out
}

func product(a, b linear) (linear, bool) {
	out := linear{}
	for ka, xa := range a {
		for kb, xb := range b {
			k := atomProduct(ka, kb)
			if s := out[k] + xa*xb; s != 0 {
				out[k] = s
			} else {
				delete(out, k)
			}
		}
	}
	return out, len(out) <= maxTerms
}

// atomProduct names the product of two atoms, whatever their order.
func atomProduct(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	factors := append(strings.Split(a, " * "), strings.Split(b, " * ")...)
	sort.Strings(factors)
	return strings.Join(factors, " * ")
}

// key names l's atoms and their coefficients, leaving out the constant term.
func (l linear) key() string {
	var terms []string
	for k, x := range l {
		if k != "" {
			terms = append(terms, k+"="+strconv.FormatUint(x, 10))
		}
	}
	sort.Strings(terms)
	return strings.Join(terms, " + ")
}

// constant returns l's value when l has no atom but 1.
func (l linear) constant() (uint64, bool) {
	for k := range l {
		if k != "" {
			return 0, false
		}
	}
	return l[""], true
}

// rangeOf returns the largest value v can hold when v is known to lie in
// [0, that value], read as a 64-bit signed integer: an unsigned integer
// narrower than 64 bits, a mask, a remainder by a constant, a shift right,
// and what adds, ors and mins of such values make.
func rangeOf(v *expr) (uint64, bool) {
	if v.constant {
		return v.leaf.Bits, int64(v.leaf.Bits) >= 0
	}
	if v.op == ir.OpInvalid || !v.typ.IsInteger() {
		return 0, false
	}
	m, ok := derivedRange(v)
	if v.typ.IsUnsigned() && v.typ.Size() < 8 {
		byType := uint64(1)<<v.typ.Bits() - 1
		if !ok || m > byType {
			m, ok = byType, true
		}
	}
	return m, ok && m < 1<<63
}

// derivedRange is rangeOf from v's operation alone.
func derivedRange(v *expr) (uint64, bool) {
	m0, ok0 := uint64(0), false
	m1, ok1 := uint64(0), false
	if len(v.args) > 0 {
		m0, ok0 = rangeOf(v.args[0])
	}
	if len(v.args) > 1 {
		m1, ok1 = rangeOf(v.args[1])
	}
	c, isConst := uint64(0), len(v.args) > 1 && v.args[1].constant
	if isConst {
		c = v.args[1].leaf.Bits
	}
	switch v.op {
	case ir.OpMove:
		return m0, ok0
	case ir.OpConvert:
		// Widening keeps a value that is not negative, and an unsigned
		// one below its type's bound; narrowing keeps what fits in the
		// new type, which rangeOf bounds by the type.
		switch {
		case !v.from.IsInteger() || v.from.Size() > v.typ.Size():
			return 0, false
		case ok0:
			return m0, true
		}
		return uint64(1)<<v.from.Bits() - 1, v.from.IsUnsigned() && v.from.Size() < 8
	case ir.OpAnd:
		switch {
		case ok0 && ok1:
			return min(m0, m1), true
		case ok0:
			return m0, true
		}
		return m1, ok1
	case ir.OpMin:
		return min(m0, m1), ok0 && ok1
	case ir.OpMax:
		return max(m0, m1), ok0 && ok1
	case ir.OpAdd:
		return m0 + m1, ok0 && ok1 && m0 < 1<<62 && m1 < 1<<62
	case ir.OpOr, ir.OpXor:
		return 1<<bits.Len64(max(m0, m1)) - 1, ok0 && ok1
	case ir.OpRem:
		switch {
		case !isConst || c == 0:
			return 0, false
		case v.typ.IsUnsigned():
			return c - 1, true
		case ok0: // a signed remainder takes the dividend's sign
			if int64(c) < 0 {
				c = -c
			}
			return min(m0, c-1), true
		}
	case ir.OpShr:
		switch {
		case !isConst:
			return 0, false
		case ok0:
			return m0 >> min(c, 63), true
		case v.typ.IsUnsigned() && c > 0:
			return ^uint64(0) >> (64 - v.typ.Bits()) >> min(c, 63), true
		}
	}
	return 0, false
}
