package ir

import (
	"math"
	"strconv"
	"strings"
)

// word is a word or a punctuation mark of a line, and its column.
type word struct {
	text string
	col  int
}

// srcLine is one line of text cut into words.
type srcLine struct {
	num     int
	words   []word
	comment *word // what follows "# ", which only a block label may have
	end     int   // the column after the line's last character
}

const punctuation = "()[],=:"

func lex(num int, text string) srcLine {
	l := srcLine{num: num, end: len(text) + 1}
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '"':
			q, err := strconv.QuotedPrefix(text[i:])
			if err != nil {
				q = text[i:] // the parser reports it
			}
			l.words = append(l.words, word{q, i + 1})
			i += len(q)
		case c == '#':
			l.comment = &word{strings.TrimPrefix(text[i+1:], " "), i + 1}
			return l
		case strings.IndexByte(punctuation, c) >= 0:
			l.words = append(l.words, word{text[i : i+1], i + 1})
			i++
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \t\r#"+punctuation, rune(text[j])) {
				j++
			}
			l.words = append(l.words, word{text[i:j], i + 1})
			i = j
		}
	}
	return l
}

// cursor reads the tokens of one line in order.
type cursor struct {
	ln *srcLine
	i  int
}

func (c *cursor) at(tok word) place { return place{c.ln.num, tok.col} }

func (c *cursor) failAt(tok word, format string, args ...any) {
	fail(c.at(tok), format, args...)
}

// peek returns the next word's text, or "" at the end of the line.
func (c *cursor) peek() string {
	if c.i < len(c.ln.words) {
		return c.ln.words[c.i].text
	}
	return ""
}

// next returns the next word; what describes what the line needs there.
func (c *cursor) next(what string) word {
	if c.i >= len(c.ln.words) {
		fail(place{c.ln.num, c.ln.end}, "expected %s, found end of line", what)
	}
	c.i++
	return c.ln.words[c.i-1]
}

func (c *cursor) expect(text string) {
	if tok := c.next(strconv.Quote(text)); tok.text != text {
		c.failAt(tok, "expected %q, found %q", text, tok.text)
	}
}

// end checks that no word is left on the line.
func (c *cursor) end() {
	if c.i < len(c.ln.words) {
		tok := c.ln.words[c.i]
		c.failAt(tok, "expected end of line, found %q", tok.text)
	}
}

// done checks that nothing is left on the line, comments included.
func (c *cursor) done() {
	c.end()
	if c.ln.comment != nil {
		c.failAt(*c.ln.comment, "a comment may follow only a block label")
	}
}

// reg reads a register number.
func (c *cursor) reg(tok word) Reg {
	n, err := strconv.ParseInt(tok.text[1:], 10, 32)
	if !isNumbered(tok.text, 'r') || err != nil || n >= 1<<24 {
		c.failAt(tok, "expected a register, as r1, found %q", tok.text)
	}
	return Reg(n)
}

// parseBits reads a value of type t as FormatBits prints it and returns its
// normalized bits. Every NaN reads as the quiet NaN with no payload, since
// the printed form shows none.
func parseBits(s string, t Type) (uint64, bool) {
	switch {
	case t == Bool:
		switch s {
		case "true":
			return 1, true
		case "false":
			return 0, true
		}
		return 0, false
	case t.IsSigned():
		v, err := strconv.ParseInt(s, 10, t.Bits())
		return t.Normalize(uint64(v)), err == nil
	case t.IsUnsigned() || t == Ptr:
		v, err := strconv.ParseUint(s, 10, t.Bits())
		return v, err == nil
	case t.IsFloat():
		f, err := strconv.ParseFloat(s, t.Bits())
		switch {
		case err != nil:
			return 0, false
		case math.IsNaN(f) && t == Float32:
			return 0x7fc00000, true
		case math.IsNaN(f):
			return 0x7ff8000000000000, true
		}
		return fromFloat(t, f), true
	}
	return 0, false
}
