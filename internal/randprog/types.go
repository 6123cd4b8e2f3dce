package randprog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// typ is a Go type kernels support, as an index into types.
type typ int

const (
	tBool typ = iota
	tInt8
	tInt16
	tInt32
	tInt64
	tInt
	tUint8
	tUint16
	tUint32
	tUint64
	tUint
	tFloat32
	tFloat64
	numTypes
)

var typeNames = [numTypes]string{"bool", "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint", "float32", "float64"}

func (t typ) String() string { return typeNames[t] }

func (t typ) isFloat() bool { return t == tFloat32 || t == tFloat64 }

func (t typ) isInt() bool { return t != tBool && !t.isFloat() }

func (t typ) signed() bool { return t >= tInt8 && t <= tInt }

func (t typ) bits() int {
	switch t {
	case tInt8, tUint8:
		return 8
	case tInt16, tUint16:
		return 16
	case tInt32, tUint32, tFloat32:
		return 32
	}
	return 64
}

// numeric are the types of numbers.
var numeric = []typ{tInt8, tInt16, tInt32, tInt64, tInt, tUint8, tUint16, tUint32, tUint64, tUint, tFloat32, tFloat64}

// integers are the integer types.
var integers = numeric[:10]

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// literal writes a constant of type t: small values, and the edges of its
// range, as a typed constant expression.
func literal(r *rand.Rand, t typ) string {
	switch {
	case t == tBool:
		return strconv.FormatBool(r.IntN(2) == 0)
	case t.isFloat():
		v := pick(r, []float64{0, 1, -1, 0.5, -2.25, 3, 1e-3, 1e10, -7.75, 100})
		return fmt.Sprintf("%s(%s)", t, strconv.FormatFloat(v, 'g', -1, 64))
	case t.signed():
		lo, hi := -int64(1)<<(t.bits()-1), int64(1)<<(t.bits()-1)-1
		if t.bits() == 64 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		v := pick(r, []int64{0, 1, -1, 2, 3, 7, -5, 100, lo, hi, lo + 1, hi - 1})
		if v < lo || v > hi {
			v = 3
		}
		return fmt.Sprintf("%s(%d)", t, v)
	}
	hi := uint64(1)<<t.bits() - 1
	if t.bits() == 64 {
		hi = math.MaxUint64
	}
	v := pick(r, []uint64{0, 1, 2, 3, 7, 100, hi, hi - 1, hi / 2, hi/2 + 1})
	if v > hi {
		v = 3
	}
	return fmt.Sprintf("%s(%d)", t, v)
}

// floatBounds are the bounds a float is clamped to before conversion to
// the integer type t, inside its range whichever the float's width, where
// Go defines the conversion.
func floatBounds(t typ) (lo, hi string) {
	switch {
	case t.bits() == 64 && t.signed():
		return "-9e18", "9e18"
	case t.bits() == 64:
		return "0", "1.8e19"
	case t.signed():
		return strconv.FormatInt(-int64(1)<<(t.bits()-1), 10), strconv.FormatInt(int64(1)<<(t.bits()-1)-1, 10)
	}
	return "0", strconv.FormatUint(uint64(1)<<t.bits()-1, 10)
}

// clampName names the generated helper that converts a float64 to the
// integer type t, clamped into its range (NaN to 0).
func clampName(t typ) string {
	return "to" + strings.ToUpper(t.String()[:1]) + t.String()[1:]
}
