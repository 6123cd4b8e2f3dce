package analysis

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/qdgo/qd/ir"
)

// Print writes a stable text form of the analysis: each loop with its
// nest, whether the grid's threads share it, its induction variables,
// trip count and derived variables, then the range of every integer
// register an instruction reads, at that instruction. Kernel names the
// parameters; it may be nil.
//
//	loop L0 header b2 latches [b6] exits [b2→b7] preheader b1 depth 1
//	  shared by the grid's threads
//	  iv r7 i64 start tid step nthreads exit r7 < len(out) [every] nowrap trip (len(out) - tid)/nthreads
//	  derived r9 = L0.r7 + 1 at b3.0
//	b3.1 r9 in [1, 2^48] >= L0.r7 + 1 <= len(out)
func (a *Analysis) Print(w io.Writer, k *ir.Kernel) {
	n := Names{Kernel: k}
	fmt.Fprintf(w, "task %s\n", a.Task.Name)
	for _, lp := range a.Loops {
		fmt.Fprintf(w, "loop L%d header b%d latches %s exits", lp.Index, lp.Header, blockList(lp.Latches))
		for _, e := range lp.Exits {
			fmt.Fprintf(w, " b%d→b%d", e.From, e.To)
		}
		if lp.Preheader >= 0 {
			fmt.Fprintf(w, " preheader b%d", lp.Preheader)
		}
		fmt.Fprintf(w, " depth %d", lp.Depth)
		if lp.Parent != nil {
			fmt.Fprintf(w, " in L%d", lp.Parent.Index)
		}
		fmt.Fprintln(w)
		if a.GridShared(lp) {
			fmt.Fprintln(w, "  shared by the grid's threads")
		}
		for _, iv := range lp.IndVars {
			fmt.Fprintf(w, "  iv %s\n", iv.Format(n))
		}
		for _, d := range lp.Derived {
			fmt.Fprintf(w, "  derived r%d = %s at b%d.%d\n", d.Reg, n.Form(d.Form), d.Site.Block, d.Site.At)
		}
	}
	for bi, b := range a.Task.Blocks {
		for i := range b.Instrs {
			a.printReads(w, n, Site{bi, i}, b.Instrs[i].Args)
		}
	}
}

// String prints the analysis without parameter names.
func (a *Analysis) String() string {
	var b strings.Builder
	a.Print(&b, nil)
	return b.String()
}

// printReads prints the ranges of the integer registers read at s that
// say more than their type does.
func (a *Analysis) printReads(w io.Writer, n Names, s Site, args []ir.Arg) {
	seen := map[ir.Reg]bool{}
	for _, arg := range args {
		if arg.Imm || seen[arg.Reg] || !a.Task.Regs[arg.Reg].IsInteger() {
			continue
		}
		seen[arg.Reg] = true
		r := a.RangeOf(arg, s)
		text := r.Format(n)
		if text == "" {
			continue
		}
		form, ok := a.AffineOf(arg, s)
		if ok {
			fmt.Fprintf(w, "b%d.%d r%d = %s %s\n", s.Block, s.At, arg.Reg, n.Form(form), text)
		} else {
			fmt.Fprintf(w, "b%d.%d r%d %s\n", s.Block, s.At, arg.Reg, text)
		}
	}
}

// Format prints iv.
func (iv *IndVar) Format(n Names) string {
	var b strings.Builder
	fmt.Fprintf(&b, "r%d %s", iv.Reg, iv.Type)
	if iv.StartKnown {
		fmt.Fprintf(&b, " start %s", n.Form(iv.Start))
	} else if iv.LeastKnown {
		fmt.Fprintf(&b, " start >= %s", n.Form(iv.Least))
	}
	fmt.Fprintf(&b, " step %s", n.Form(iv.Step))
	if iv.Sum != iv.Update {
		fmt.Fprintf(&b, " via b%d.%d", iv.Sum.Block, iv.Sum.At)
	}
	fmt.Fprintf(&b, " update b%d.%d", iv.Update.Block, iv.Update.At)
	if e := iv.Exit; e != nil {
		x := n.Atom(iv.Atom())
		if len(e.Offset.Terms) > 0 || e.Offset.Const != 0 {
			x = "(" + n.Form(Of(iv.Atom()).Add(e.Offset)) + ")"
		}
		fmt.Fprintf(&b, " exit b%d %s %s.%s %s", e.Block, x, e.Op, e.Type, n.Form(e.Bound))
		if e.Every {
			b.WriteString(" every")
		}
	}
	if iv.NoWrap {
		b.WriteString(" nowrap")
	}
	if iv.Trip != nil {
		fmt.Fprintf(&b, " trip (%s)", n.Form(iv.Trip.Num))
		if c, ok := iv.Trip.Div.IsConst(); !ok || c != 1 {
			fmt.Fprintf(&b, "/(%s)", n.Form(iv.Trip.Div))
		}
	}
	if bound, past, ok := iv.Reach(); ok {
		side := "<="
		if iv.Down() {
			side = ">="
		}
		fmt.Fprintf(&b, " reach %s %s", side, n.Form(bound.Add(Constant(past))))
	}
	return b.String()
}

// Format prints r as "in [lo, hi] >= lower <= upper", leaving out what is
// unknown; "" when nothing is known.
func (r Range) Format(n Names) string {
	var b strings.Builder
	if r.Min != math.MinInt64 || r.Max != math.MaxInt64 {
		fmt.Fprintf(&b, "in [%s, %s]", number(r.Min), number(r.Max))
	}
	for _, f := range r.Lower {
		fmt.Fprintf(&b, " >= %s", n.Form(f))
	}
	for _, f := range r.Upper {
		fmt.Fprintf(&b, " <= %s", n.Form(f))
	}
	return strings.TrimSpace(b.String())
}

// number prints the bounds people read as powers of two that way.
func number(x int64) string {
	switch {
	case x == math.MinInt64:
		return "min"
	case x == math.MaxInt64:
		return "max"
	case x == math.MaxInt64-1:
		return "max-1"
	case x == math.MinInt64+1:
		return "min+1"
	case x > 1<<16 && x&(x-1) == 0:
		return fmt.Sprintf("2^%d", 63-leadingZeros(x))
	case x > 1<<16 && (x+1)&x == 0:
		return fmt.Sprintf("2^%d-1", 64-leadingZeros(x))
	}
	return fmt.Sprint(x)
}

func leadingZeros(x int64) int {
	n := 0
	for u := uint64(x); u&(1<<63) == 0 && n < 64; u <<= 1 {
		n++
	}
	return n
}

func blockList(bs []int) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("b%d", b)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
