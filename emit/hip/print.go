package hip

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
)

// print writes a print as a call of HIP's printf, with the format C's
// printf reads (ir.Print.CFormat) and each argument converted to the type
// C passes it as (ir.Print.CArgTypes): a bool (%t) as the string "true" or
// "false".
func (f *function) print(in *ir.Instr) {
	p := &f.k.Prints[in.Aux]
	args := []string{cString(p.CFormat())}
	for i, c := range p.CArgTypes() {
		x := f.arg(in.Args[i], p.Types[i])
		switch c {
		case ir.Ptr:
			x = fmt.Sprintf(`(%s ? "true" : "false")`, x)
		case ir.Float64:
			x = "(double)" + x
		case ir.Int64:
			x = "(long long)" + x
		case ir.Uint64:
			x = "(unsigned long long)" + x
		case ir.Int32:
			x = "(int)" + x
		default:
			x = "(unsigned)" + x
		}
		args = append(args, x)
	}
	f.line("printf(%s);", strings.Join(args, ", "))
}

// cString writes s as a C string literal: printable ASCII as itself, a
// newline and a tab as \n and \t, every other byte as a three-digit octal
// escape, which no following character can extend.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := range len(s) {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '?':
			b.WriteString(`\?`) // never part of a trigraph
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c >= ' ' && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%03o", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
