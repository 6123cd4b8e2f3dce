package hip

import (
	"fmt"
	"strconv"
)

// Line information: the code of each Go line is one line of C++, after a
// #line directive naming the Go file and line wherever the compiler's
// count would say otherwise. hipcc and NVRTC then map machine code to Go
// lines for debuggers, sanitizers and profilers. Code written between
// positioned statements (labels, a fault path) is counted as the lines
// after the last directive: it names no Go line of its own.

// line writes a statement. Consecutive statements of one Go line share a
// line of C++, so that every one of them is counted as that Go line.
func (f *function) line(format string, args ...any) {
	f.labelLast = false
	stmt := fmt.Sprintf(format, args...)
	if f.open && f.atKnown && f.openAt == f.at {
		f.body.WriteString(" " + stmt)
		return
	}
	f.endLine()
	if f.atKnown && (!f.presumedKnown || f.presumed != f.at) {
		fmt.Fprintf(&f.body, "#line %d %s\n", f.at.Line, strconv.Quote(f.at.File))
		f.presumed, f.presumedKnown = f.at, true
	}
	f.body.WriteString("\t" + stmt)
	f.open, f.openAt = true, f.at
}

// raw writes text that is not a statement of the code, such as a label,
// ending the open line first.
func (f *function) raw(format string, args ...any) {
	f.endLine()
	fmt.Fprintf(&f.body, format, args...)
	f.presumedKnown = false
}

// endLine ends the open line of statements, if any.
func (f *function) endLine() {
	if !f.open {
		return
	}
	f.body.WriteString("\n")
	f.open = false
	f.presumed.Line++
}
