package opt

import (
	"github.com/qdgo/qd/ir"
)

// DivideByInvariants turns a 32-bit unsigned division in a loop by a
// divisor the loop does not change, as the 32-bit path of p/w and p%w,
// into a multiplication: the GPU divides in a software routine whose first
// half computes a reciprocal of the divisor, and that half is the same in
// every iteration. Before the loop, m = (2^32-1)/d; in it,
//
//	q0 = mulhi(n, m)     q-1 ≤ q0 ≤ q, since 2^32/d - 1 ≤ m ≤ 2^32/d and n < 2^32
//	r0 = n - q0*d        in [0, 2d)
//	r  = min(r0, r0-d)   r0-d wraps above r0 unless r0 ≥ d
//	q  = q0 + min(r0-r, 1)
//
// A remainder taken as n - q*d right after the division is r itself. The
// reciprocal divides by max(d, 1): before the loop d may be zero, where
// the loop would fault at its check of d before dividing.
func DivideByInvariants(t *ir.Task) {
	done := map[int]bool{} // loops whose divisions are done: the headers
	recips := []reciprocal{}
	for {
		lp, d := nextInvariantDivision(t, done)
		if lp == nil {
			return
		}
		m := reciprocalFor(t, lp, d, &recips)
		replaceDivisions(t, lp, d, m)
	}
}

// reciprocal is (2^32-1)/d for a divisor register d, computed at the end
// of a block.
type reciprocal struct {
	d, m  ir.Reg
	block int
}

// nextInvariantDivision finds the outermost loop holding a division by a
// register it does not assign, and the value of that register: the
// register itself, or where a copy of a copy leads, so that the copies of
// a loop's body that gridunroll makes share one reciprocal.
func nextInvariantDivision(t *ir.Task, done map[int]bool) (*ir.Loop, ir.Reg) {
	loops := t.Loops()
	for _, lp := range loops {
		if done[lp.Header] {
			continue
		}
		inLoop := definedIn(t, lp)
		source := moveSources(t, inLoop)
		for _, bi := range lp.Blocks() {
			for _, x := range t.Blocks[bi].Instrs {
				if d, ok := invariantDivisor(&x, inLoop, source); ok && outermost(lp, loops, d, t) {
					return lp, d
				}
			}
		}
		done[lp.Header] = true
	}
	return nil, ir.NoReg
}

func invariantDivisor(x *ir.Instr, inLoop []bool, source []ir.Reg) (ir.Reg, bool) {
	if x.Op != ir.OpDiv || x.Type != ir.Uint32 || x.Args[1].Imm || inLoop[x.Args[1].Reg] {
		return ir.NoReg, false
	}
	return source[x.Args[1].Reg], true
}

// moveSources maps each register to the register it copies, through
// moves of registers assigned once, not in the loop: the same value.
func moveSources(t *ir.Task, inLoop []bool) []ir.Reg {
	defs := defSites(t)
	single := singleDefs(t, defs, t.Dominators())
	source := make([]ir.Reg, len(t.Regs))
	for r := range source {
		source[r] = ir.Reg(r)
	}
	var follow func(r ir.Reg) ir.Reg
	follow = func(r ir.Reg) ir.Reg {
		if !single[r] || inLoop[r] {
			return r
		}
		x := t.Blocks[defs[r][0].block].Instrs[defs[r][0].at]
		if x.Op != ir.OpMove || x.Args[0].Imm || !single[x.Args[0].Reg] || inLoop[x.Args[0].Reg] {
			return r
		}
		return follow(x.Args[0].Reg)
	}
	for r := range source {
		source[r] = follow(ir.Reg(r))
	}
	return source
}

// outermost reports whether no loop around lp leaves d unchanged too.
func outermost(lp *ir.Loop, loops []*ir.Loop, d ir.Reg, t *ir.Task) bool {
	for _, other := range loops {
		if other != lp && other.Has(lp.Header) && len(other.Blocks()) > len(lp.Blocks()) && !definedIn(t, other)[d] {
			return false
		}
	}
	return true
}

// reciprocalFor returns a register holding (2^32-1)/max(d, 1) before lp:
// one computed already where it reaches lp, or a new one in lp's preheader.
func reciprocalFor(t *ir.Task, lp *ir.Loop, d ir.Reg, recips *[]reciprocal) ir.Reg {
	pre := preheader(t, lp)
	dom := t.Dominators()
	// One computed before may serve where d cannot change in between:
	// where d is assigned once.
	if len(defSites(t)[d]) == 1 {
		for _, r := range *recips {
			if r.d == d && dom[pre.Index].Has(r.block) {
				return r.m
			}
		}
	}
	u := ir.Uint32
	one, m := t.NewReg(u), t.NewReg(u)
	pre.Instrs = append(pre.Instrs,
		ir.Instr{Op: ir.OpMax, Type: u, Dst: one, Args: []ir.Arg{ir.R(d), ir.Imm(u, 1)}},
		ir.Instr{Op: ir.OpDiv, Type: u, Dst: m, Args: []ir.Arg{ir.Imm(u, 1<<32-1), ir.R(one)}})
	*recips = append(*recips, reciprocal{d: d, m: m, block: pre.Index})
	return m
}

// replaceDivisions rewrites lp's divisions by d with m.
func replaceDivisions(t *ir.Task, lp *ir.Loop, d, m ir.Reg) {
	u := ir.Uint32
	reads := readCounts(t)
	inLoop := definedIn(t, lp)
	source := moveSources(t, inLoop)
	for _, bi := range lp.Blocks() {
		b := t.Blocks[bi]
		var out []ir.Instr
		for i := 0; i < len(b.Instrs); i++ {
			x := b.Instrs[i]
			if v, ok := invariantDivisor(&x, inLoop, source); !ok || v != d {
				out = append(out, x)
				continue
			}
			s := &seq{t: t}
			r := s.divideByReciprocal(x.Dst, x.Args[0], x.Args[1], ir.R(m))
			s.out[len(s.out)-1].Pos = x.Pos
			// The remainder divrem takes next, n - q*d, is r.
			if rem, ok := remainderAfter(b.Instrs, i, reads); ok {
				s.out = append(s.out, ir.Instr{Op: ir.OpMove, Type: u, Dst: rem, Args: []ir.Arg{r}, Pos: x.Pos})
				i += 2
			}
			out = append(out, s.out...)
		}
		b.Instrs = out
	}
}

// divideByReciprocal appends q = n/d, to register q, and returns n%d, for
// 32-bit unsigned n and d ≥ 1 with m = (2^32-1)/d.
func (s *seq) divideByReciprocal(q ir.Reg, n, d, m ir.Arg) ir.Arg {
	u := ir.Uint32
	q0 := s.op(ir.OpMulHi, u, n, m)
	r0 := s.op(ir.OpSub, u, n, s.op(ir.OpMul, u, q0, d))
	r := s.op(ir.OpMin, u, r0, s.op(ir.OpSub, u, r0, d))
	s.out = append(s.out, ir.Instr{Op: ir.OpAdd, Type: u, Dst: q,
		Args: []ir.Arg{q0, s.op(ir.OpMin, u, s.op(ir.OpSub, u, r0, r), ir.Imm(u, 1))}})
	return r
}

// remainderAfter matches prod = mul q, d; rem = sub n, prod after the
// division q = div n, d at i, prod read by nothing else, and returns rem.
func remainderAfter(instrs []ir.Instr, i int, reads []int) (ir.Reg, bool) {
	if i+2 >= len(instrs) {
		return ir.NoReg, false
	}
	div, mul, sub := instrs[i], instrs[i+1], instrs[i+2]
	if mul.Op != ir.OpMul || mul.Type != div.Type || sub.Op != ir.OpSub || sub.Type != div.Type ||
		mul.Args[0] != ir.R(div.Dst) || mul.Args[1] != div.Args[1] || sub.Args[0] != div.Args[0] ||
		sub.Args[1] != ir.R(mul.Dst) || reads[mul.Dst] != 1 || argIs(div.Args[0], div.Dst) {
		return ir.NoReg, false
	}
	return sub.Dst, true
}

// readCounts counts the reads of each register, terminators included.
func readCounts(t *ir.Task) []int {
	n := make([]int, len(t.Regs))
	for _, b := range t.Blocks {
		for _, x := range b.Instrs {
			for _, a := range x.Args {
				if !a.Imm {
					n[a.Reg]++
				}
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm {
			n[c.Reg]++
		}
	}
	return n
}
