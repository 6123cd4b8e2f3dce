package lower

import (
	"go/token"
	"path/filepath"

	"github.com/qdgo/qd/internal/fault"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lowers Go's run-time checks: every slice index and slice
// expression is checked against the slice's length or capacity, and every
// integer division against a zero divisor, as Go checks them, unless the
// check cannot fail. A failed check ends the thread with a fault that the
// runtime reports as Go's panic would read.

// site returns the number of the kernel's fault site of the given kind at
// pos, adding it the first time.
func (f *frame) site(pos token.Pos, kind fault.Kind, unsigned bool) int64 {
	l := f.tb.l
	if !pos.IsValid() {
		pos = f.pos()
	}
	p := l.fset.Position(pos)
	s := ir.Site{Kind: kind, Unsigned: unsigned, File: filepath.Base(p.Filename), Line: p.Line, Col: p.Column}
	if n, ok := l.sites[s]; ok {
		return int64(n)
	}
	if l.sites == nil {
		l.sites = map[ir.Site]int{}
	}
	l.sites[s] = len(l.k.Sites)
	l.k.Sites = append(l.k.Sites, s)
	return int64(len(l.k.Sites) - 1)
}

// check emits a check of x against y: x < y for an index, x <= y for a
// slice bound.
func (f *frame) check(pos token.Pos, kind fault.Kind, x ssa.Value, xa, y ir.Arg) {
	if f.tb.l.noBounds || x == nil && kind != fault.Index { // an absent low bound is 0
		return
	}
	op := ir.OpCheckSlice
	if kind == fault.Index {
		op = ir.OpCheckIndex
	}
	unsigned := false
	if x != nil {
		t, _ := basicType(x.Type())
		unsigned = t.IsUnsigned()
	}
	f.tb.emit(ir.Instr{Op: op, Args: []ir.Arg{xa, y}, Aux: f.site(pos, kind, unsigned), Pos: pos})
}

// checkDivisor emits the check of an integer division's divisor, unless it
// is a constant, which Go's compiler has checked.
func (f *frame) checkDivisor(v *ssa.BinOp, t ir.Type, y ir.Arg) {
	if y.Imm {
		return
	}
	f.tb.emit(ir.Instr{Op: ir.OpCheckDivide, Type: t, Args: []ir.Arg{y}, Aux: f.site(v.Pos(), fault.Divide, false), Pos: v.Pos()})
}

// sliceChecks emits Go's checks of s[lo:hi:max] in Go's order, with the
// bounds as i64 operands (absent ones nil); length and capacity are s's.
func (f *frame) sliceChecks(v *ssa.Slice, lo, hi, max ir.Arg, length, capacity ir.Arg) {
	pos := v.Pos()
	switch {
	case v.Max != nil:
		f.check(pos, fault.Slice3Acap, v.Max, max, capacity)
		f.check(pos, fault.Slice3B, v.High, hi, max)
		f.check(pos, fault.Slice3C, v.Low, lo, hi)
	case v.High != nil:
		f.check(pos, fault.SliceAcap, v.High, hi, capacity)
		f.check(pos, fault.SliceB, v.Low, lo, hi)
	case v.Low != nil:
		f.check(pos, fault.SliceB, v.Low, lo, length)
	}
}

// kernelOptions reads the options after //qd:kernel in a kernel's doc
// comment: nobounds leaves out bounds checks, as go build -gcflags=-B does;
// fma lets float multiplies and adds fuse (ir.Kernel.FMA).
func (l *lowerer) kernelOptions(fn *ssa.Function) {
	for _, opt := range directiveOptions(fn) {
		switch opt.text {
		case "nobounds":
			l.noBounds = true
		case "fma":
			l.k.FMA = true
		default:
			l.errorf(opt.pos, "unknown //qd:kernel option %q: the options are nobounds, which leaves out bounds checks, and fma, which fuses float multiplies and adds", opt.text)
		}
	}
}
