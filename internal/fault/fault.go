// Package fault names the run-time errors a kernel can fail with, as Go's
// runtime names and prints them: an index or a slice bound out of range,
// an integer divided by zero, a quotient of math/bits that overflows. The IR's interpreter and the runtime both
// describe faults with it, so a fault reads the same wherever it is found.
package fault

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the kind of a fault. The bounds kinds are those of Go's
// runtime.boundsError, in its order.
type Kind uint8

const (
	// Index: s[x] with x outside [0, len(s)), y = len(s).
	Index Kind = iota + 1
	// SliceAlen, SliceAcap: s[:x] with x > y = len or cap.
	SliceAlen
	SliceAcap
	// SliceB: s[x:y] with x > y.
	SliceB
	// Slice3Alen, Slice3Acap: s[::x] with x > y = len or cap.
	Slice3Alen
	Slice3Acap
	// Slice3B: s[:x:y] with x > y.
	Slice3B
	// Slice3C: s[x:y:] with x > y.
	Slice3C
	// Divide: an integer division or remainder by zero.
	Divide
	// Overflow: a quotient that does not fit, as math/bits.Div64 reports.
	Overflow
	numKinds
)

var names = [numKinds]string{
	Index: "index", SliceAlen: "slicealen", SliceAcap: "sliceacap", SliceB: "sliceb",
	Slice3Alen: "slice3alen", Slice3Acap: "slice3acap", Slice3B: "slice3b", Slice3C: "slice3c",
	Divide: "divide", Overflow: "overflow",
}

// String is the kind's name in the IR's printed form.
func (k Kind) String() string {
	if k > 0 && k < numKinds {
		return names[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ByName finds a kind by its String.
func ByName(name string) (Kind, bool) {
	for k, n := range names {
		if n == name && k > 0 {
			return Kind(k), true
		}
	}
	return 0, false
}

// Bounds reports whether k is a bounds kind, whose check is x < y for an
// index and x <= y for a slice bound.
func (k Kind) Bounds() bool { return k >= Index && k <= Slice3C }

// formats are Go's (runtime/error.go), with %x and %y for the values; a
// negative x prints without y.
var formats = [numKinds][2]string{
	Index:      {"index out of range [%x] with length %y", "index out of range [%x]"},
	SliceAlen:  {"slice bounds out of range [:%x] with length %y", "slice bounds out of range [:%x]"},
	SliceAcap:  {"slice bounds out of range [:%x] with capacity %y", "slice bounds out of range [:%x]"},
	SliceB:     {"slice bounds out of range [%x:%y]", "slice bounds out of range [%x:]"},
	Slice3Alen: {"slice bounds out of range [::%x] with length %y", "slice bounds out of range [::%x]"},
	Slice3Acap: {"slice bounds out of range [::%x] with capacity %y", "slice bounds out of range [::%x]"},
	Slice3B:    {"slice bounds out of range [:%x:%y]", "slice bounds out of range [:%x:]"},
	Slice3C:    {"slice bounds out of range [%x:%y:]", "slice bounds out of range [%x:]"},
	Divide:     {"integer divide by zero", "integer divide by zero"},
	Overflow:   {"integer overflow", "integer overflow"},
}

// Message is what Go's runtime says of a fault of kind k with values x and
// y, without its "runtime error: " prefix. x is read as signed when signed
// is set, as the index's type says.
func Message(k Kind, x uint64, signed bool, y int64) string {
	if k == 0 || k >= numKinds {
		return "unknown fault " + k.String()
	}
	xs := strconv.FormatUint(x, 10)
	format := formats[k][0]
	if signed {
		xs = strconv.FormatInt(int64(x), 10)
		if int64(x) < 0 {
			format = formats[k][1]
		}
	}
	return strings.NewReplacer("%x", xs, "%y", strconv.FormatInt(y, 10)).Replace(format)
}

// Parse reads a message of Go's runtime back: the kind and values of a
// panic's runtime.Error text, "runtime error: " prefix included. It
// reports false for other messages.
func Parse(msg string) (k Kind, x uint64, signed bool, y int64, ok bool) {
	msg, found := strings.CutPrefix(msg, "runtime error: ")
	if !found {
		return 0, 0, false, 0, false
	}
	for kind := Index; kind < numKinds; kind++ {
		for _, format := range formats[kind] {
			xs, ys, ok := match(format, msg)
			if !ok {
				continue
			}
			// A value that prints the same signed and unsigned is read as
			// signed; one above the int64 range must have been unsigned.
			signed = true
			if v, err := strconv.ParseInt(xs, 10, 64); err == nil {
				x = uint64(v)
			} else if x, err = strconv.ParseUint(xs, 10, 64); err == nil {
				signed = false
			} else if xs != "" {
				continue
			}
			y, _ = strconv.ParseInt(ys, 10, 64)
			return kind, x, signed, y, true
		}
	}
	return 0, 0, false, 0, false
}

// match matches msg against a format with %x and %y holes, which hold
// decimal numbers.
func match(format, msg string) (x, y string, ok bool) {
	for format != "" {
		i := strings.Index(format, "%")
		if i < 0 {
			return x, y, format == msg
		}
		if !strings.HasPrefix(msg, format[:i]) {
			return "", "", false
		}
		msg = msg[i:]
		j := 0
		for j < len(msg) && (msg[j] == '-' || '0' <= msg[j] && msg[j] <= '9') {
			j++
		}
		if j == 0 {
			return "", "", false
		}
		if format[i+1] == 'x' {
			x = msg[:j]
		} else {
			y = msg[:j]
		}
		msg, format = msg[j:], format[i+2:]
	}
	return x, y, msg == ""
}
