package opt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/ir"
)

// quotientChecker runs the division sequences on the interpreter and
// compares them with the reference semantics of ir.Fold.
type quotientChecker struct {
	t   *testing.T
	typ ir.Type
}

func (qc quotientChecker) check(c uint64, xs []uint64) {
	for _, op := range []ir.Op{ir.OpDiv, ir.OpRem} {
		task := &ir.Task{Kind: ir.Serial, Name: "t"}
		s := &seq{t: task}
		x := task.NewReg(qc.typ)
		var q ir.Arg
		var ok bool
		if qc.typ.IsUnsigned() {
			q, ok = s.unsignedQuotient(qc.typ, ir.R(x), c)
		} else {
			q, ok = s.signedQuotient(qc.typ, ir.R(x), int64(c))
		}
		if !ok {
			continue
		}
		if op == ir.OpRem {
			q = s.op(ir.OpSub, qc.typ, ir.R(x), s.op(ir.OpMul, qc.typ, q, ir.Imm(qc.typ, c)))
		}
		for _, xv := range xs {
			xv = qc.typ.Normalize(xv)
			regs := make([]uint64, len(task.Regs))
			regs[x] = xv
			for _, in := range s.out {
				args := make([]uint64, len(in.Args))
				for i, a := range in.Args {
					if a.Imm {
						args[i] = a.Bits
					} else {
						args[i] = regs[a.Reg]
					}
				}
				v, err := ir.Fold(&in, args)
				if err != nil {
					qc.t.Fatal(err)
				}
				regs[in.Dst] = v
			}
			got := q.Bits
			if !q.Imm {
				got = regs[q.Reg]
			}
			want, _ := ir.Fold(&ir.Instr{Op: op, Type: qc.typ}, []uint64{xv, c})
			if got != want {
				qc.t.Fatalf("%s.%s x=%s c=%s: got %s, want %s", op, qc.typ,
					ir.FormatBits(qc.typ, xv), ir.FormatBits(qc.typ, c), ir.FormatBits(qc.typ, got), ir.FormatBits(qc.typ, want))
			}
		}
	}
}

func TestDivisionByConstantExhaustive8And16(t *testing.T) {
	for _, typ := range []ir.Type{ir.Int8, ir.Uint8} {
		var xs []uint64
		for x := range 256 {
			xs = append(xs, uint64(x))
		}
		for c := range 256 {
			quotientChecker{t, typ}.check(typ.Normalize(uint64(c)), xs)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []ir.Type{ir.Int16, ir.Uint16} {
		var xs []uint64
		for x := 0; x < 1<<16; x += 1 + r.IntN(61) {
			xs = append(xs, uint64(x))
		}
		xs = append(xs, 0x7fff, 0x8000, 0xffff)
		for c := range 1 << 16 {
			if c > 600 && c < 65000 && c%97 != 0 {
				continue
			}
			quotientChecker{t, typ}.check(typ.Normalize(uint64(c)), xs)
		}
	}
}

func TestDivisionByConstant32And64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range []ir.Type{ir.Int32, ir.Uint32, ir.Int64, ir.Uint64} {
		edges := []uint64{0, 1, 2, 3, 7, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, math.MaxInt64, 1 << 63, math.MaxUint64}
		xs := append([]uint64{}, edges...)
		for range 2000 {
			xs = append(xs, r.Uint64()>>r.IntN(64))
			xs = append(xs, -(r.Uint64() >> r.IntN(64)))
		}
		cs := append([]uint64{}, edges...)
		cs = append(cs, 2147483647, 1664525, 1000000007, 10, 100, 6, 641, 6700417, 274177)
		for range 300 {
			cs = append(cs, r.Uint64()>>r.IntN(64))
			cs = append(cs, -(r.Uint64() >> r.IntN(64)))
		}
		for _, c := range cs {
			quotientChecker{t, typ}.check(typ.Normalize(c), xs)
		}
	}
}
