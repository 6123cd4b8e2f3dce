package opt

import (
	"maps"
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// prepare builds the test, in a block not yet in the task, and asks the
// analysis what apply needs.
func (p *index32Plan) prepare() {
	t := p.an.Task
	p.liveOut = p.findLiveOut()
	p.fallback = p.checkedCopy()
	p.guard = &ir.Block{Comment: "index bounds"}
	bb := newBoundsBuilder(p.an, p.guard, p.entry)
	for _, bi := range p.lp.Blocks {
		for i := range t.Blocks[bi].Instrs {
			s := analysis.Site{Block: bi, At: i}
			if !p.instr[s] || p.counterSites[s] {
				continue
			}
			if in := p.an.Instr(s); !narrowableCompare(in) {
				p.resultFits(bb, s)
			}
			p.operandsFit(bb, s, false)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(p.regs)) {
		if p.readOnEntry(r) {
			if !p.isCounter(r) {
				f, _ := p.an.AffineOf(ir.R(r), p.an.End(p.entry))
				bb.fits(f, p.an.End(p.entry))
			}
			p.liveIn = append(p.liveIn, r)
		}
	}
	p.counterTests(bb)
	if !p.multiplies() && len(bb.conds) > maxIndex32Tests {
		// Too long a test for a loop narrowed for its adds alone, which
		// is given up here, before the implied comparisons are dropped:
		// that takes time that grows faster than the count.
		p.tests = len(bb.conds)
		return
	}
	p.ok = bb.condition()
	p.tests = len(bb.conds)
}

// apply versions the loop: a block on its entry edge computes the test
// and truncates the narrowed registers the loop reads on entry, then
// enters a copy of the loop with the narrowed arithmetic in 32 bits when
// the test holds, and the loop as it was (or its checked copy) when it
// does not.
//
//	index bounds:  ok = ...; k32 = convert.i32.i64 k; branch ok, copy, loop
func (p *index32Plan) apply() {
	t := p.an.Task
	guard := p.guard
	guard.Index = len(t.Blocks)
	t.Blocks = append(t.Blocks, guard)
	c := &index32Copy{p: p, t: t, wide: map[ir.Reg]ir.Reg{}, narrow: map[ir.Reg]ir.Reg{}, out: p.liveOut}
	for _, r := range slices.Sorted(maps.Keys(p.regs)) {
		c.narrow[r] = t.NewReg(narrowType(t.Regs[r]))
	}
	for _, r := range p.liveIn {
		guard.Instrs = append(guard.Instrs, truncate(c.narrow[r], r, t.Regs[r]))
	}
	header := c.copyLoop()
	guard.Term = ir.Term{Kind: ir.Branch, Cond: p.ok, Succs: [2]int{header, p.fallback}}
	if p.ok.Imm {
		guard.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{header}}
	}
	redirect(t.Blocks[p.entry], p.lp.Header, guard.Index)
}

// checkedCopy is the loop to run when the test fails: the copy of the
// loop that HoistChecks keeps every check in, when the loop's entry
// chooses between the two, since that copy computes Go's results for
// every input and the loop itself is then reached no more; else the
// loop itself.
func (p *index32Plan) checkedCopy() int {
	t := p.an.Task
	// Either loop may start with a preheader, where strength reduction
	// sets up its pointers. In a block-level task too: the 64-bit loop
	// without checks, kept beside the 32-bit one, was what set
	// example/transpose's registers (45 live where the 32-bit loop needs
	// 36), and the checked copy computes the same for the inputs too
	// large for 32 bits, which are rare.
	choice := p.entry
	if pr := p.an.Preds[choice]; t.Blocks[choice].Term.Kind == ir.Jump && len(pr) == 1 {
		choice = pr[0]
	}
	fb := t.Blocks[p.lp.Header].Fallback
	if s, ok := p.handsOver(fb); ok {
		return s
	}
	term := t.Blocks[choice].Term
	if term.Kind != ir.Branch {
		return p.lp.Header
	}
	for _, s := range term.Succs {
		h := s
		if b := t.Blocks[s]; b.Term.Kind == ir.Jump && b.Comment == "preheader" {
			h = b.Term.Succs[0]
		}
		if fb != 0 && h == fb && s != p.entry {
			return s
		}
	}
	return p.lp.Header
}

// handsOver reports whether the loop, where its header's test fails,
// goes on to its checked copy fb, which then runs the iterations left
// (the copy after HoistChecks' window), and returns that exit. Entering
// it instead of the loop runs every iteration there, as the loop would
// have had it stopped at once: the header computes nothing but its test.
func (p *index32Plan) handsOver(fb int) (int, bool) {
	t := p.an.Task
	head := t.Blocks[p.lp.Header]
	if fb == 0 || head.Term.Kind != ir.Branch || head.Term.Cond.Imm || len(head.Instrs) != 1 || head.Instrs[0].Dst != head.Term.Cond.Reg {
		return 0, false
	}
	for _, s := range head.Term.Succs {
		if p.lp.Has(s) {
			continue
		}
		if b := t.Blocks[s]; s == fb || b.Term.Kind == ir.Jump && b.Comment == "preheader" && b.Term.Succs[0] == fb {
			return s, true
		}
	}
	return 0, false
}

// redirect makes b's edges to from go to to.
func redirect(b *ir.Block, from, to int) {
	succs := b.Term.Successors()
	for j, s := range succs {
		if s == from {
			succs[j] = to
		}
	}
}

// narrowType is the 32-bit type of a 64-bit integer type's signedness.
func narrowType(t ir.Type) ir.Type {
	if t == ir.Uint64 {
		return ir.Uint32
	}
	return ir.Int32
}

// truncate is "dst = convert.X32.X64 src".
func truncate(dst, src ir.Reg, typ ir.Type) ir.Instr {
	return ir.Instr{Op: ir.OpConvert, Type: narrowType(typ), From: typ, Dst: dst, Args: []ir.Arg{ir.R(src)}}
}

// index32Copy builds the 32-bit copy of a loop.
type index32Copy struct {
	p      *index32Plan
	t      *ir.Task
	wide   map[ir.Reg]ir.Reg // the loop's own registers, renamed in the copy
	narrow map[ir.Reg]ir.Reg // the 32-bit register of each narrowed one
	blocks map[int]int
	out    []ir.Reg // the narrowed registers read after the loop
	// unsigned holds, in the block being copied, the 32-bit unsigned view
	// of a register that a narrowed division read, while that register
	// keeps its value: a division and a remainder of the same operands
	// then read the same registers, and FuseDivRem divides once.
	unsigned map[ir.Reg]ir.Reg
}

// copyLoop appends the copy's blocks and returns its header.
func (c *index32Copy) copyLoop() int {
	lp := c.p.lp
	local := localRegs(c.t, lp.Loop)
	for _, r := range slices.Sorted(maps.Keys(local)) {
		c.wide[r] = c.t.NewReg(c.t.Regs[r])
	}
	c.blocks = map[int]int{}
	var copies []*ir.Block
	for _, bi := range lp.Blocks {
		nb := c.t.NewBlock(c.t.Blocks[bi].Comment + " (int32)")
		nb.Checked = c.t.Blocks[bi].Checked
		c.blocks[bi] = nb.Index
		copies = append(copies, nb)
	}
	for k, bi := range lp.Blocks {
		c.copyBlock(bi, copies[k])
	}
	return c.blocks[lp.Header]
}

// copyBlock fills nb with block bi's instructions, narrowed where the
// plan says, and a sign extension of a narrowed register before an
// instruction that reads it in 64 bits.
func (c *index32Copy) copyBlock(bi int, nb *ir.Block) {
	t := c.t
	b := t.Blocks[bi]
	extended := map[ir.Reg]bool{} // narrowed registers whose 64-bit value is current
	c.unsigned = map[ir.Reg]ir.Reg{}
	for i, in := range b.Instrs {
		in.Args = slices.Clone(in.Args)
		in.Results = slices.Clone(in.Results)
		for _, d := range b.Instrs[i].Defs() {
			delete(c.unsigned, d)
		}
		s := analysis.Site{Block: bi, At: i}
		if c.p.instr[s] {
			nb.Instrs = append(nb.Instrs, c.narrowed(in)...)
			if in.Dst != ir.NoReg {
				delete(extended, in.Dst)
			}
			continue
		}
		for _, a := range in.Args {
			if !a.Imm && c.p.regs[a.Reg] && !extended[a.Reg] {
				nb.Instrs = append(nb.Instrs, c.extend(a.Reg)...)
				extended[a.Reg] = true
			}
		}
		renameRegs(&in, c.wide)
		nb.Instrs = append(nb.Instrs, in)
	}
	nb.Term = b.Term
	if cond := nb.Term.Cond; nb.Term.Kind == ir.Branch && !cond.Imm {
		if r, ok := c.wide[cond.Reg]; ok {
			nb.Term.Cond = ir.R(r)
		}
	}
	succs := nb.Term.Successors()
	for j, s := range succs {
		if to, ok := c.blocks[s]; ok {
			succs[j] = to
		} else if len(c.out) > 0 {
			succs[j] = c.exitBlock(c.out, s)
		}
	}
}

// narrowed is the 32-bit form of in: its register operands read as
// their 32-bit registers, truncated first where the loop does not narrow
// them.
func (c *index32Copy) narrowed(in ir.Instr) []ir.Instr {
	if in.Op == ir.OpDiv || in.Op == ir.OpRem {
		return c.narrowedDivision(in)
	}
	var out []ir.Instr
	compare := narrowableCompare(&in)
	for j, a := range in.Args {
		switch {
		case in.Op == ir.OpShl && j == 1:
		case a.Imm:
			in.Args[j] = ir.Imm(narrowType(c.operandType(in)), a.Bits)
		case c.p.regs[a.Reg]:
			in.Args[j] = ir.R(c.narrow[a.Reg])
		default:
			typ := c.operandType(in)
			r := c.t.NewReg(narrowType(typ))
			src := a.Reg
			if w, ok := c.wide[src]; ok {
				src = w
			}
			out = append(out, truncate(r, src, typ))
			in.Args[j] = ir.R(r)
		}
	}
	if in.Op == ir.OpConvert {
		in.From = narrowType(in.From)
	}
	in.Type = narrowType(in.Type)
	if in.Op == ir.OpConvert && in.Type == in.From {
		in.Op, in.From = ir.OpMove, ir.Invalid
	}
	if compare {
		if w, ok := c.wide[in.Dst]; ok {
			in.Dst = w
		}
	} else {
		in.Dst = c.narrow[in.Dst]
	}
	return append(out, in)
}

// narrowedDivision is the 32-bit form of a division or remainder whose
// operands the test before the loop shows are not negative: in 32
// unsigned bits, which agree with Go's signed division there.
func (c *index32Copy) narrowedDivision(in ir.Instr) []ir.Instr {
	var out []ir.Instr
	for j, a := range in.Args {
		in.Args[j] = c.unsignedView(a, &out)
	}
	q := c.t.NewReg(ir.Uint32)
	return append(out,
		ir.Instr{Op: in.Op, Type: ir.Uint32, Dst: q, Args: in.Args, Pos: in.Pos},
		ir.Instr{Op: ir.OpConvert, Type: ir.Int32, From: ir.Uint32, Dst: c.narrow[in.Dst], Args: []ir.Arg{ir.R(q)}})
}

// unsignedView is a's value as a 32-bit unsigned operand, converted
// (and appended to out) once per value in a block.
func (c *index32Copy) unsignedView(a ir.Arg, out *[]ir.Instr) ir.Arg {
	if a.Imm {
		return ir.Imm(ir.Uint32, uint64(uint32(a.Bits)))
	}
	if r, ok := c.unsigned[a.Reg]; ok {
		return ir.R(r)
	}
	r := c.t.NewReg(ir.Uint32)
	if c.p.regs[a.Reg] {
		*out = append(*out, ir.Instr{Op: ir.OpConvert, Type: ir.Uint32, From: ir.Int32, Dst: r, Args: []ir.Arg{ir.R(c.narrow[a.Reg])}})
	} else {
		src := a.Reg
		if w, ok := c.wide[src]; ok {
			src = w
		}
		*out = append(*out, ir.Instr{Op: ir.OpConvert, Type: ir.Uint32, From: c.t.Regs[a.Reg], Dst: r, Args: []ir.Arg{ir.R(src)}})
	}
	c.unsigned[a.Reg] = r
	return ir.R(r)
}

// operandType is the type of in's operands before narrowing.
func (c *index32Copy) operandType(in ir.Instr) ir.Type {
	if in.Op == ir.OpConvert {
		return in.From
	}
	return in.Type
}

// extend assigns narrowed register r its 64-bit value from its 32-bit
// one: a sign extension, by way of int32 for a uint64.
func (c *index32Copy) extend(r ir.Reg) []ir.Instr {
	typ := c.t.Regs[r]
	dst := r
	if w, ok := c.wide[r]; ok {
		dst = w
	}
	if typ == ir.Int64 {
		return []ir.Instr{{Op: ir.OpConvert, Type: ir.Int64, From: ir.Int32, Dst: dst, Args: []ir.Arg{ir.R(c.narrow[r])}}}
	}
	signed := c.t.NewReg(ir.Int32)
	return []ir.Instr{
		{Op: ir.OpConvert, Type: ir.Int32, From: ir.Uint32, Dst: signed, Args: []ir.Arg{ir.R(c.narrow[r])}},
		{Op: ir.OpConvert, Type: ir.Uint64, From: ir.Int32, Dst: dst, Args: []ir.Arg{ir.R(signed)}},
	}
}

// findLiveOut lists the narrowed registers that a block reachable from the
// loop's exits reads, which the copy's exits extend.
func (p *index32Plan) findLiveOut() []ir.Reg {
	t := p.an.Task
	after := map[int]bool{}
	var work []int
	for _, e := range p.lp.Exits {
		work = append(work, e.To)
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if after[b] {
			continue
		}
		after[b] = true
		work = append(work, t.Blocks[b].Term.Successors()...)
	}
	var out []ir.Reg
	for _, r := range slices.Sorted(maps.Keys(p.regs)) {
		for bi := range after {
			b := t.Blocks[bi]
			read := false
			for i := 0; i <= len(b.Instrs); i++ {
				read = read || readsAt(t, analysis.Site{Block: bi, At: i}, r)
			}
			if read {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// exitBlock is a block on an exit edge of the copy that extends the
// registers out, then goes on to to.
func (c *index32Copy) exitBlock(out []ir.Reg, to int) int {
	b := c.t.NewBlock("index bounds exit")
	for _, r := range out {
		b.Instrs = append(b.Instrs, c.extend(r)...)
	}
	b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{to}}
	return b.Index
}
