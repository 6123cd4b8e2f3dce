package opt

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/qdgo/qd/ir"
)

// guard builds the test before a loop whose checks HoistChecks takes out:
// the values it compares, computed in one block, then one branch per
// condition, each going to the copy of the loop that keeps its checks when
// the condition fails. The arithmetic is on 64-bit unsigned integers, as
// a check compares, and each condition is written so that nothing in it
// can wrap around unnoticed.
type guard struct {
	t      *ir.Task
	lv     *loopValues
	start  *ir.Block
	conds  []ir.Reg
	values map[string]ir.Arg // what compute emitted, by value and counter
}

// emit appends op(args) to the guard's block and returns its result.
func (g *guard) emit(op ir.Op, typ ir.Type, args ...ir.Arg) ir.Arg {
	in := ir.Instr{Op: op, Type: typ, Args: args}
	in.Dst = g.t.NewReg(in.ResultType())
	g.start.Instrs = append(g.start.Instrs, in)
	return ir.R(in.Dst)
}

// require adds the condition op(x, y) on unsigned 64-bit integers, once:
// the bounds of a nest's checks share most of their conditions.
func (g *guard) require(op ir.Op, x, y ir.Arg) {
	key := fmt.Sprintf("require %v %v %v", op, x, y)
	if _, ok := g.values[key]; ok {
		return
	}
	c := g.emit(op, ir.Uint64, x, y)
	g.values[key] = c
	g.conds = append(g.conds, c.Reg)
}

func word(x uint64) ir.Arg { return ir.Imm(ir.Uint64, x) }

// compute emits what v computes, with counter for the loop's counter;
// variant names counter, so that each value is computed once for each.
func (g *guard) compute(v *expr, counter ir.Arg, variant string) ir.Arg {
	switch {
	case v.counter:
		return counter
	case v.op == ir.OpInvalid:
		return v.leaf
	}
	key := v.key
	if v.variant {
		key += "@" + variant
	}
	if a, ok := g.values[key]; ok {
		return a
	}
	in := ir.Instr{Op: v.op, Type: v.typ, From: v.from, Aux: v.aux, Args: make([]ir.Arg, len(v.args))}
	for i, a := range v.args {
		in.Args[i] = g.compute(a, counter, variant)
	}
	in.Dst = g.t.NewReg(in.ResultType())
	g.start.Instrs = append(g.start.Instrs, in)
	g.values[key] = ir.R(in.Dst)
	return ir.R(in.Dst)
}

// unsigned reads a 64-bit signed integer as unsigned.
func (g *guard) unsigned(a ir.Arg) ir.Arg {
	if a.Imm {
		return word(a.Bits)
	}
	key := "unsigned r" + strconv.Itoa(int(a.Reg))
	if u, ok := g.values[key]; ok {
		return u
	}
	in := ir.Instr{Op: ir.OpConvert, Type: ir.Uint64, From: ir.Int64, Dst: g.t.NewReg(ir.Uint64), Args: []ir.Arg{a}}
	g.start.Instrs = append(g.start.Instrs, in)
	g.values[key] = ir.R(in.Dst)
	return ir.R(in.Dst)
}

// decide adds the conditions under which check c passes in every
// iteration.
func (g *guard) decide(c hoistedCheck) {
	first := ir.R(g.lv.counter) // the counter before the loop: the first iteration's
	if c.divisor {
		d := g.compute(c.index, first, "first")
		g.conds = append(g.conds, g.emit(ir.OpNe, c.typ, d, ir.Imm(c.typ, 0)).Reg)
		return
	}
	length := g.unsigned(g.compute(c.length, first, "first"))
	if c.bounds != nil {
		// 0 ≤ lo and hi < length, where the conditions of the bounds hold.
		for _, n := range c.needs {
			if r := g.compute(n, first, "first").Reg; !slices.Contains(g.conds, r) {
				g.conds = append(g.conds, r)
			}
		}
		g.require(ir.OpLt, g.unsigned(g.compute(c.bounds.lo, first, "first")), word(1<<63))
		g.require(ir.OpLt, g.unsigned(g.compute(c.bounds.hi, first, "first")), length)
		return
	}
	if c.ranged {
		g.require(ir.OpGt, length, word(c.most))
		return
	}
	index := g.unsigned(g.compute(c.index, first, "first"))
	g.require(ir.OpLt, index, length) // then index < 2^63, and length-1-index does not wrap
	if !c.form.varies() {
		return
	}
	// The index moves by a in each step of the counter, over last steps
	// at most, and must stay in [0, length).
	last := g.lastStep(c.limit)
	a, constant := c.form.coef.IsConst()
	if constant && a < 0 {
		g.within(last, uint64(-a), index)
		return
	}
	above := g.emit(ir.OpSub, ir.Uint64, g.emit(ir.OpSub, ir.Uint64, length, word(1)), index)
	if constant {
		g.within(last, uint64(a), above)
	} else {
		// a is known only at run time: as the index's growth from the
		// first iteration to the next. A negative one, read as unsigned,
		// makes a·last at least 2^63, above any room, or overflow.
		next := g.emit(ir.OpAdd, ir.Int64, first, ir.Imm(ir.Int64, 1))
		step := g.emit(ir.OpSub, ir.Uint64, g.unsigned(g.compute(c.index, next, "next")), index)
		g.require(ir.OpEq, g.emit(ir.OpMulHi, ir.Uint64, step, last), word(0))
		g.require(ir.OpLe, g.emit(ir.OpMul, ir.Uint64, step, last), above)
	}
}

// within requires a·last ≤ room, a > 0 constant, without overflow.
func (g *guard) within(last ir.Arg, a uint64, room ir.Arg) {
	span := last
	if a > 1 {
		g.require(ir.OpLe, last, word((1<<63-1)/a))
		span = g.emit(ir.OpMul, ir.Uint64, last, word(a))
	}
	g.require(ir.OpLe, span, room)
}

// lastStep returns how far the counter goes from its first value to its
// last below the limit l: limit-1-first, less what falls short of a whole
// step. The limit must lie
// in [-2^62, 2^62], so that the counter, below it and advancing by less
// than 2^42, never wraps around.
func (g *guard) lastStep(l *limit) ir.Arg {
	key := "last " + l.bound.key + "+" + strconv.FormatUint(l.offset, 10)
	if m, ok := g.values[key]; ok {
		return m
	}
	first := ir.R(g.lv.counter)
	bound := g.unsigned(g.compute(l.bound, first, "first"))
	if l.offset != 0 {
		bound = g.emit(ir.OpAdd, ir.Uint64, bound, word(l.offset))
	}
	g.require(ir.OpLe, g.emit(ir.OpAdd, ir.Uint64, bound, word(1<<62)), word(1<<63))
	m := g.emit(ir.OpSub, ir.Uint64, g.emit(ir.OpSub, ir.Uint64, bound, word(1)), g.unsigned(first))
	if step := g.lv.step; step.Imm && step.Bits > 1 {
		// The counter moves by whole steps from its first value: for
		// i := 0; i < n; i += 8 reads s[i+7] up to s[n-1] where 8
		// divides n, not s[n+6].
		m = g.emit(ir.OpSub, ir.Uint64, m, g.emit(ir.OpRem, ir.Uint64, m, word(step.Bits)))
	}
	g.values[key] = m
	return m
}

// chain ends the guard's block, which jumped to fast, with its conditions, one branch each:
// all true go to fast, any false to checked.
func (g *guard) chain(fast, checked int) {
	b := g.start
	for i, c := range g.conds {
		next := fast
		if i < len(g.conds)-1 {
			next = g.t.NewBlock("checks").Index
		}
		b.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(c), Succs: [2]int{next, checked}}
		b = g.t.Blocks[next]
	}
}

// copyLoop copies the blocks of lp, the copies branching to each other
// where the originals do, and returns the copy of each block. The values
// of one iteration get registers of their own in the copy, so that lp's
// stay assigned once, as the later passes want them.
func copyLoop(t *ir.Task, lp *ir.Loop, suffix string) map[int]int {
	blocks := lp.Blocks()
	rename := map[ir.Reg]ir.Reg{}
	local := slices.Sorted(maps.Keys(localRegs(t, lp)))
	for _, r := range local {
		rename[r] = t.NewReg(t.Regs[r])
	}
	copies := map[int]int{}
	for _, bi := range blocks {
		copies[bi] = copyBlock(t, t.Blocks[bi], t.Blocks[bi].Comment+suffix, rename).Index
	}
	for _, c := range copies {
		succs := t.Blocks[c].Term.Successors()
		for j, s := range succs {
			if to, ok := copies[s]; ok {
				succs[j] = to
			}
		}
	}
	return copies
}

// copyBlock appends a copy of b's instructions and terminator to t, with
// the registers rename maps replaced.
func copyBlock(t *ir.Task, b *ir.Block, comment string, rename map[ir.Reg]ir.Reg) *ir.Block {
	nb := t.NewBlock(comment)
	nb.Checked = b.Checked
	nb.Instrs = make([]ir.Instr, len(b.Instrs))
	for i, in := range b.Instrs {
		in.Args = append([]ir.Arg(nil), in.Args...)
		in.Results = append([]ir.Reg(nil), in.Results...)
		renameRegs(&in, rename)
		nb.Instrs[i] = in
	}
	nb.Term = b.Term
	if c := nb.Term.Cond; nb.Term.Kind == ir.Branch && !c.Imm {
		if r, ok := rename[c.Reg]; ok {
			nb.Term.Cond = ir.R(r)
		}
	}
	return nb
}
