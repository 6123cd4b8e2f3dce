package ir

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Print is a format that print instructions (OpPrint) write with their
// operands, one of Kernel.Prints. Its Format is a format of C's printf,
// restricted to what device printf and the interpreter print alike, with
// two verbs of the IR's own; Types gives the type of each operand, one per
// conversion. It is printed in the kernel's header as
// `format 0 i32 f64 = "x=%d %e\n"`.
//
// The conversions, each "%[flags][width][.precision]verb" with the flags
// C's printf and Go's fmt write alike (Conv.fits):
//
//	%d %x %X %o %c  an integer; %d is signed or unsigned as its type,
//	                %x %X %o print the bits of its C promotion (32 bits, or
//	                64), %c the low byte
//	%e %E %f        a float (a float32 is promoted to double, as C does)
//	%t              a bool, as "true" or "false"; flag "-" and width only
//	%%              a percent sign
//
// The emitters pass a %t operand to printf as the string "true" or
// "false" (Conv.CVerb). Device printf writes a float that is not finite
// as C does ("nan", "inf"), where Go writes "NaN" and "+Inf"; the
// interpreter writes what Go does.
type Print struct {
	Format string
	Types  []Type
}

// Conv is one conversion of a Print's format.
type Conv struct {
	Start, End int    // the conversion's bytes in the format
	Flags      string // of "-+ #0"
	Width      int    // -1 when absent
	Prec       int    // -1 when absent
	Verb       byte
}

// Spec is the conversion as written, without its verb: "%-08.3".
func (c Conv) Spec() string {
	s := "%" + c.Flags
	if c.Width >= 0 {
		s += strconv.Itoa(c.Width)
	}
	if c.Prec >= 0 {
		s += "." + strconv.Itoa(c.Prec)
	}
	return s
}

// Convs parses the format into its conversions, not counting "%%".
func (p *Print) Convs() ([]Conv, error) {
	var convs []Conv
	f := p.Format
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		c := Conv{Start: i, Width: -1, Prec: -1}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0 {
			j++
		}
		c.Flags = f[i+1 : j]
		c.Width, j = digits(f, j)
		if j < len(f) && f[j] == '.' {
			c.Prec, j = digits(f, j+1)
			c.Prec = max(c.Prec, 0)
		}
		if j >= len(f) {
			return nil, fmt.Errorf("format %q ends inside a conversion", f)
		}
		c.Verb, c.End = f[j], j+1
		i = j
		if c.Verb == '%' {
			if c.End-c.Start != 2 {
				return nil, fmt.Errorf("format %q: %%%% with flags", f)
			}
			continue
		}
		convs = append(convs, c)
	}
	return convs, nil
}

// digits reads a decimal number at f[i:], or gives -1.
func digits(f string, i int) (int, int) {
	j := i
	for j < len(f) && f[j] >= '0' && f[j] <= '9' {
		j++
	}
	if j == i || j-i > 4 {
		return -1, j
	}
	n, _ := strconv.Atoi(f[i:j])
	return n, j
}

// check verifies that the format's conversions fit the operand types.
func (p *Print) check() error {
	convs, err := p.Convs()
	if err != nil {
		return err
	}
	if len(convs) != len(p.Types) {
		return fmt.Errorf("format %q has %d conversions for %d operands", p.Format, len(convs), len(p.Types))
	}
	for i, c := range convs {
		if err := c.fits(p.Types[i]); err != nil {
			return fmt.Errorf("format %q, conversion %d: %w", p.Format, i, err)
		}
	}
	return nil
}

// fits checks a conversion of an operand of type t: its verb, and its
// flags, which are those C's printf and Go's fmt write alike (a + or space
// flag writes a sign in Go where C writes none, # writes 0 as 0x0 in Go).
func (c Conv) fits(t Type) error {
	var ok bool
	flags := "-0"
	switch c.Verb {
	case 'd':
		ok = Integers.Has(t)
		if t.IsSigned() {
			flags = "-+ 0"
		}
	case 'x', 'X':
		ok = Integers.Has(t)
	case 'o':
		ok, flags = Integers.Has(t), "-0#"
	case 'c':
		ok, flags = Integers.Has(t), "-"
	case 'e', 'E', 'f':
		ok, flags = Floats.Has(t), "-+ 0"
	case 't':
		ok, flags = t == Bool && c.Prec < 0, "-"
	default:
		return fmt.Errorf("unknown verb %q", c.Verb)
	}
	if !ok {
		return fmt.Errorf("%s%c of %s", c.Spec(), c.Verb, t)
	}
	for _, fl := range []byte(c.Flags) {
		if strings.IndexByte(flags, fl) < 0 {
			return fmt.Errorf("flag %q with %%%c", fl, c.Verb)
		}
	}
	return nil
}

// CVerb is the conversion as C's printf needs it for an operand of type
// t: with "ll" for 64-bit integers, "u" for unsigned decimals, and "s"
// for %t, whose operand the emitters pass as a string.
func (c Conv) CVerb(t Type) string {
	spec := c.Spec()
	switch c.Verb {
	case 't':
		return spec + "s"
	case 'd', 'x', 'X', 'o':
		verb := string(c.Verb)
		if c.Verb == 'd' && t.IsUnsigned() {
			verb = "u"
		}
		if t.Size() == 8 {
			verb = "ll" + verb
		}
		return spec + verb
	}
	return spec + string(c.Verb)
}

// CArgTypes gives the type each operand is passed to C's printf as, after
// C's promotions: a 64-bit integer as itself, %c's operand and smaller
// integers as a 32-bit one of the same signedness (registers hold them
// extended already), a float as f64, and a bool as the address (ptr) of
// the string "true" or "false".
func (p *Print) CArgTypes() []Type {
	convs, _ := p.Convs()
	types := make([]Type, len(p.Types))
	for i, t := range p.Types {
		switch {
		case t == Bool:
			types[i] = Ptr
		case t.IsFloat():
			types[i] = Float64
		case t.Size() == 8 && (i >= len(convs) || convs[i].Verb != 'c'):
			types[i] = t
		case t.IsSigned():
			types[i] = Int32
		default:
			types[i] = Uint32
		}
	}
	return types
}

// CFormat is the format as C's printf reads it, for operands of the
// Print's types.
func (p *Print) CFormat() string {
	convs, err := p.Convs()
	if err != nil {
		return p.Format
	}
	var b strings.Builder
	last := 0
	for i, c := range convs {
		b.WriteString(p.Format[last:c.Start])
		b.WriteString(c.CVerb(p.Types[i]))
		last = c.End
	}
	b.WriteString(p.Format[last:])
	return b.String()
}

// Write writes the format with the operand bits args as device printf
// does, for the interpreter.
func (p *Print) Write(w io.Writer, args []uint64) error {
	convs, err := p.Convs()
	if err != nil {
		return err
	}
	var b strings.Builder
	last := 0
	for i, c := range convs {
		b.WriteString(strings.ReplaceAll(p.Format[last:c.Start], "%%", "%"))
		b.WriteString(c.render(p.Types[i], args[i]))
		last = c.End
	}
	b.WriteString(strings.ReplaceAll(p.Format[last:], "%%", "%"))
	_, err = io.WriteString(w, b.String())
	return err
}

// render formats one operand. Where C and Go's fmt agree, which the
// conversions are chosen for, Go's fmt gives C's text.
func (c Conv) render(t Type, bits uint64) string {
	spec := c.Spec()
	switch c.Verb {
	case 't':
		return fmt.Sprintf(spec+"t", bits != 0)
	case 'e', 'E', 'f':
		v := math.Float64frombits(bits)
		if t == Float32 {
			v = float64(math.Float32frombits(uint32(bits)))
		}
		return fmt.Sprintf(spec+string(c.Verb), v)
	case 'c':
		return fmt.Sprintf(Conv{Flags: c.Flags, Width: c.Width, Prec: -1}.Spec()+"s", string([]byte{byte(bits)}))
	case 'd':
		if t.IsSigned() {
			return fmt.Sprintf(spec+"d", int64(t.Normalize(bits)))
		}
		return fmt.Sprintf(spec+"d", t.Normalize(bits))
	}
	// %x %X %o print the bits of C's promotion: a signed value of 32 bits
	// or fewer is sign-extended to 32.
	v := t.Normalize(bits)
	if t.Size() < 8 {
		v &= 1<<32 - 1
	}
	return fmt.Sprintf(spec+string(c.Verb), v)
}
