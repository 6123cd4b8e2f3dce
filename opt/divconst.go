package opt

import (
	"math/big"
	"math/bits"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// DivideByConstants replaces integer division and remainder by constants
// with multiplications and shifts, as optimizing compilers do (Granlund and
// Montgomery, "Division by invariant integers using multiplication", 1994;
// the same constants as Go's compiler). GPUs have no divide instruction, so
// a division by a variable is a long software routine.
//
// A 64-bit dividend known to fit in 32 unsigned bits, as a sum of a few
// bytes, is divided in 32 bits, where the multiplication is one instruction
// instead of several.
func DivideByConstants(t *ir.Task) {
	nonneg := nonNegativeDividends(t)
	fits := dividendsIn32Bits(t)
	for bi, b := range t.Blocks {
		var out []ir.Instr
		changed := false
		for i, in := range b.Instrs {
			if nonneg[site{bi, i}] {
				out = append(out, nonNegativeDivision(in)...)
				changed = true
				continue
			}
			if seq, ok := narrowDivision(t, in, fits[site{bi, i}]); ok {
				out = append(out, seq...)
				changed = true
				continue
			}
			if seq, ok := divisionSequence(t, in); ok {
				out = append(out, seq...)
				changed = true
				continue
			}
			out = append(out, in)
		}
		if changed {
			b.Instrs = out
		}
	}
}

// seq collects an instruction sequence with fresh registers.
type seq struct {
	t   *ir.Task
	out []ir.Instr
}

func (s *seq) op(op ir.Op, typ ir.Type, args ...ir.Arg) ir.Arg {
	in := ir.Instr{Op: op, Type: typ, Args: args}
	in.Dst = s.t.NewReg(in.ResultType())
	s.out = append(s.out, in)
	return ir.R(in.Dst)
}

func (s *seq) convert(to, from ir.Type, x ir.Arg) ir.Arg {
	in := ir.Instr{Op: ir.OpConvert, Type: to, From: from, Args: []ir.Arg{x}, Dst: s.t.NewReg(to)}
	s.out = append(s.out, in)
	return ir.R(in.Dst)
}

func (s *seq) shift(op ir.Op, typ ir.Type, x ir.Arg, n int) ir.Arg {
	in := ir.Instr{Op: op, Type: typ, From: ir.Uint32, Args: []ir.Arg{x, ir.Imm(ir.Uint32, uint64(n))}}
	in.Dst = s.t.NewReg(typ)
	s.out = append(s.out, in)
	return ir.R(in.Dst)
}

// narrowDivision divides a 64-bit integer in [0, 2^32) by a constant in
// (0, 2^32) in 32 unsigned bits, where signed and unsigned division agree.
func narrowDivision(t *ir.Task, in ir.Instr, fits bool) ([]ir.Instr, bool) {
	typ, u := in.Type, ir.Uint32
	if in.Op != ir.OpDiv && in.Op != ir.OpRem || !typ.IsInteger() || typ.Bits() != 64 || !in.Args[1].Imm || in.Args[0].Imm {
		return nil, false
	}
	c := in.Args[1].Bits
	if c == 0 || c >= 1<<32 {
		return nil, false
	}
	if !fits {
		return nil, false
	}
	s := &seq{t: t}
	x := s.convert(u, typ, in.Args[0])
	q, ok := s.unsignedQuotient(u, x, c)
	if !ok {
		return nil, false
	}
	if in.Op == ir.OpRem {
		q = s.op(ir.OpSub, u, x, s.op(ir.OpMul, u, q, ir.Imm(u, c)))
	}
	s.out = append(s.out, ir.Instr{Op: ir.OpConvert, Type: typ, From: u, Dst: in.Dst, Args: []ir.Arg{q}, Pos: in.Pos})
	return s.out, true
}

// dividendsIn32Bits finds the 64-bit divisions and remainders by
// constants whose dividend the range analysis bounds in [0, 2^32) where
// they are: e/w in for e := t; e < w*w; e += n, with t a thread's index,
// and a sum of nine bytes that a fully unrolled loop accumulates in one
// register, which is at most 2295. They are all found before any changes the task.
func dividendsIn32Bits(t *ir.Task) map[site]bool {
	var an *analysis.Analysis
	fits := map[site]bool{}
	for bi, b := range t.Blocks {
		for i, in := range b.Instrs {
			if in.Op != ir.OpDiv && in.Op != ir.OpRem || !in.Type.IsInteger() || in.Type.Bits() != 64 || !in.Args[1].Imm || in.Args[0].Imm {
				continue
			}
			if an == nil {
				an = analysis.New(t)
			}
			r := an.RangeOf(in.Args[0], analysis.Site{Block: bi, At: i})
			fits[site{bi, i}] = r.Min >= 0 && r.Max < 1<<32
		}
	}
	return fits
}

// divisionSequence returns the instructions that compute in, a division or
// remainder of a 32- or 64-bit integer by a constant, without dividing.
func divisionSequence(t *ir.Task, in ir.Instr) ([]ir.Instr, bool) {
	typ := in.Type
	if in.Op != ir.OpDiv && in.Op != ir.OpRem || !typ.IsInteger() || !in.Args[1].Imm || typ.Bits() < 32 {
		return nil, false
	}
	s := &seq{t: t}
	x := in.Args[0]
	c := in.Args[1].Bits
	var q ir.Arg
	if typ.IsUnsigned() {
		var ok bool
		if q, ok = s.unsignedQuotient(typ, x, c); !ok {
			return nil, false
		}
	} else {
		var ok bool
		if q, ok = s.signedQuotient(typ, x, int64(c)); !ok {
			return nil, false
		}
	}
	result := q
	if in.Op == ir.OpRem {
		// x - q*c; the multiplication wraps exactly as the division would.
		result = s.op(ir.OpSub, typ, x, s.op(ir.OpMul, typ, q, ir.Imm(typ, c)))
	}
	s.out = append(s.out, ir.Instr{Op: ir.OpMove, Type: typ, Dst: in.Dst, Args: []ir.Arg{result}, Pos: in.Pos})
	return s.out, true
}

// unsignedQuotient computes x / c for an unsigned n-bit x and constant c.
func (s *seq) unsignedQuotient(typ ir.Type, x ir.Arg, c uint64) (ir.Arg, bool) {
	n := typ.Bits()
	switch {
	case c == 0:
		return ir.Arg{}, false
	case c == 1:
		return x, true
	case c&(c-1) == 0:
		return s.shift(ir.OpShr, typ, x, bits.TrailingZeros64(c)), true
	}
	// With sh = ceil(log2 c) and M = ceil(2^(n+sh) / c) = 2^n + m,
	// x/c = (x*M) >> (n+sh) = (x + mulhi(x, m)) >> sh, where the n+1-bit sum
	// is taken as ((x - hi) >> 1 + hi) >> (sh - 1).
	sh := bits.Len64(c)
	m := ceilPow2Div(n+sh, c)
	m.Sub(m, new(big.Int).Lsh(big.NewInt(1), uint(n)))
	hi := s.op(ir.OpMulHi, typ, x, ir.Imm(typ, m.Uint64()))
	sum := s.op(ir.OpAdd, typ, s.shift(ir.OpShr, typ, s.op(ir.OpSub, typ, x, hi), 1), hi)
	return s.shift(ir.OpShr, typ, sum, sh-1), true
}

// signedQuotient computes x / c, truncated, for a signed n-bit x and
// constant c.
func (s *seq) signedQuotient(typ ir.Type, x ir.Arg, c int64) (ir.Arg, bool) {
	n := typ.Bits()
	minValue := int64(-1) << (n - 1)
	switch {
	case c == 0 || c == minValue:
		return ir.Arg{}, false
	case c == 1:
		return x, true
	case c == -1:
		return s.op(ir.OpNeg, typ, x), true // wraps for the most negative x, as in Go
	}
	a := uint64(c)
	if c < 0 {
		a = uint64(-c)
	}
	var q ir.Arg
	if a&(a-1) == 0 {
		// Round toward zero by adding a-1 to negative x before shifting.
		k := bits.TrailingZeros64(a)
		sign := s.shift(ir.OpShr, typ, x, n-1) // 0 or -1
		bias := s.op(ir.OpAnd, typ, sign, ir.Imm(typ, a-1))
		q = s.shift(ir.OpShr, typ, s.op(ir.OpAdd, typ, x, bias), k)
	} else {
		// With sh = floor(log2 a) and M = ceil(2^(n+sh) / a), which lies in
		// [2^(n-1), 2^n) and so reads as M - 2^n when signed, t = mulhi(x,
		// M-2^n) + x is floor(x*M / 2^n), which has the sign of x, and
		// x/a = (t >> sh) + (1 if t < 0). The sign bit is added with an
		// unsigned shift, which the GPU fuses with the addition.
		sh := bits.Len64(a) - 1
		m := ceilPow2Div(n+sh, a).Uint64()
		t := s.op(ir.OpAdd, typ, s.op(ir.OpMulHi, typ, x, ir.Imm(typ, m)), x)
		u := typ.Unsigned()
		signBit := s.shift(ir.OpShr, u, s.convert(u, typ, t), n-1)
		q = s.op(ir.OpAdd, typ, s.shift(ir.OpShr, typ, t, sh), s.convert(typ, u, signBit))
	}
	if c < 0 {
		q = s.op(ir.OpNeg, typ, q)
	}
	return q, true
}

// ceilPow2Div returns ceil(2^e / c).
func ceilPow2Div(e int, c uint64) *big.Int {
	C := new(big.Int).SetUint64(c)
	r := new(big.Int).Lsh(big.NewInt(1), uint(e))
	r.Add(r, C)
	r.Sub(r, big.NewInt(1))
	return r.Div(r, C)
}
