package opt

import (
	"fmt"
	"math"
	"slices"

	"github.com/qdgo/qd/ir"
)

// privateBudget is the shared memory, in bytes, that a task's private
// copies may take: 4096 counters of 32 bits.
const privateBudget = 16 << 10

// PrivatizeAtomics gives each block of threads of a parallel task its own
// copy, in shared memory, of a small slice that the task only updates with
// atomics whose results it does not read, all adds, all mins or all
// maxes: a histogram's bins, a counter. Atomics on one element of global
// memory from thousands of threads wait for each other; on a block's
// copy they are fast, and the block adds its copy to the slice at the
// end, one atomic for each element it changed.
//
// The task starts by filling the copies with the operation's identity,
// and its threads wait at a barrier for each other before their updates
// and before the last step. The copy holds the elements the updates can
// reach: below a constant the indices are known to stay under (an
// unsigned byte, a mask), or, when there is none or it is too big, as
// much of the slice as the budget allows; then a test at the start runs
// the task unchanged when the slice is longer. The checks of the indices
// against the slice's length stay, so an index is below both lengths.
//
// Integer results are the same as without the copies; float sums are
// rounded in another order, as atomic float adds are anyway.
func PrivatizeAtomics(t *ir.Task) {
	if t.Kind != ir.Parallel {
		return
	}
	if copies := budget(privatizable(t)); len(copies) > 0 {
		rewrite(t, copies)
	}
}

// privateMin is the fewest elements a copy of a slice whose length is
// known only at run time is worth making with.
const privateMin = 256

// budget picks the copies that fit in privateBudget: those of the size
// their indices need first, then the others, which share what is left.
func budget(found []*private) []*private {
	var copies, open []*private
	room := privateBudget
	for _, p := range found {
		switch {
		case !p.bounded:
			open = append(open, p)
		case p.size*p.typ.Size() <= room:
			room -= p.size * p.typ.Size()
			copies = append(copies, p)
		}
	}
	for len(open) > 0 {
		share := room / len(open)
		p := open[0]
		open = open[1:]
		if size := share / p.typ.Size(); size >= privateMin {
			p.size = size
			room -= size * p.typ.Size()
			copies = append(copies, p)
		}
	}
	return copies
}

// private is a slice parameter that a task can update through a copy.
type private struct {
	param   int64
	op      ir.Op
	typ     ir.Type
	size    int  // elements in the copy
	bounded bool // the indices stay below size whatever the slice's length
	addrs   []site
	updates []site
	v       int // the copy's variable
	addr    ir.Reg
	count   ir.Reg // the elements to fill and add back: those below size and the slice's length
}

// privatizable finds the slice parameters of t that only atomic adds,
// mins or maxes of one type update, through addresses of their elements
// that nothing else reads.
func privatizable(t *ir.Task) []*private {
	bases := map[ir.Reg]int64{}
	params := map[int64]bool{}
	for _, b := range t.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpParamBase {
				if p, ok := bases[in.Dst]; ok && p != in.Aux {
					params[p], params[in.Aux] = false, false
				}
				bases[in.Dst] = in.Aux
				if _, seen := params[in.Aux]; !seen {
					params[in.Aux] = true
				}
			}
		}
	}
	defs := defSites(t)
	var found []*private
	for param := range params {
		if p, ok := privateUpdates(t, defs, bases, param); ok && params[param] {
			found = append(found, p)
		}
	}
	slices.SortFunc(found, func(a, b *private) int { return int(a.param - b.param) })
	tv := newTaskValues(t)
	for _, p := range found {
		p.size, p.bounded = p.extent(t, tv)
	}
	return found
}

// privateUpdates collects the updates of param in t, if they qualify.
func privateUpdates(t *ir.Task, defs [][]site, bases map[ir.Reg]int64, param int64) (*private, bool) {
	p := &private{param: param, op: ir.OpInvalid}
	addrs := map[ir.Reg]bool{}
	for bi, b := range t.Blocks {
		for i, in := range b.Instrs {
			for j, a := range in.Args {
				if a.Imm {
					continue
				}
				if q, ok := bases[a.Reg]; ok && q == param {
					if in.Op != ir.OpElemAddr || j != 0 || in.Dst == ir.NoReg {
						return nil, false
					}
					p.addrs = append(p.addrs, site{bi, i})
					addrs[in.Dst] = true
				}
			}
		}
	}
	for bi, b := range t.Blocks {
		for i, in := range b.Instrs {
			for j, a := range in.Args {
				if a.Imm || !addrs[a.Reg] {
					continue
				}
				if j != 0 || !p.accepts(&in) || in.Dst != ir.NoReg && readAnywhere(t, in.Dst) {
					return nil, false
				}
				p.updates = append(p.updates, site{bi, i})
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm && addrs[c.Reg] {
			return nil, false
		}
	}
	for r := range addrs {
		for _, d := range defs[r] {
			if x := t.Blocks[d.block].Instrs[d.at]; x.Op != ir.OpElemAddr || x.Aux != int64(p.typ.Size()) {
				return nil, false
			}
		}
	}
	return p, len(p.updates) > 0
}

// accepts reports whether the atomic in can update the copy, and takes its
// operation and type as the copy's when it is the first.
func (p *private) accepts(in *ir.Instr) bool {
	switch {
	case in.Space != ir.Global:
		return false
	case in.Op == ir.OpAtomicAdd && (ir.TypeSet(ir.Words).Has(in.Type) || in.Type.IsFloat()):
	case (in.Op == ir.OpAtomicMin || in.Op == ir.OpAtomicMax) && ir.TypeSet(ir.Words).Has(in.Type):
	default:
		return false
	}
	if p.op == ir.OpInvalid {
		p.op, p.typ = in.Op, in.Type
	}
	return in.Op == p.op && in.Type == p.typ
}

// readAnywhere reports whether any instruction or branch of t reads r.
func readAnywhere(t *ir.Task, r ir.Reg) bool {
	for _, b := range t.Blocks {
		for _, in := range b.Instrs {
			if slices.Contains(in.Args, ir.R(r)) {
				return true
			}
		}
		if b.Term.Kind == ir.Branch && b.Term.Cond == ir.R(r) {
			return true
		}
	}
	return false
}

// extent returns the number of elements the copy needs and whether the
// indices are known to stay below it.
func (p *private) extent(t *ir.Task, tv *loopValues) (int, bool) {
	most := uint64(0)
	for _, a := range p.addrs {
		m, ok := rangeOf(tv.resolve(t.Blocks[a.block].Instrs[a.at].Args[1], a))
		if !ok {
			return privateBudget / p.typ.Size(), false
		}
		most = max(most, m)
	}
	if most >= uint64(privateBudget/p.typ.Size()) {
		return privateBudget / p.typ.Size(), false
	}
	return int(most) + 1, true
}

// identity is the value that leaves an element unchanged under p's
// operation: 0 for adds (-0 for floats), the type's largest value for
// mins, its smallest for maxes.
func (p *private) identity() ir.Arg {
	typ := p.typ
	switch {
	case p.op == ir.OpAtomicAdd && typ == ir.Float32:
		return ir.Imm(typ, uint64(math.Float32bits(float32(math.Copysign(0, -1)))))
	case p.op == ir.OpAtomicAdd && typ == ir.Float64:
		return ir.Imm(typ, math.Float64bits(math.Copysign(0, -1)))
	case p.op == ir.OpAtomicAdd:
		return ir.Imm(typ, 0)
	case p.op == ir.OpAtomicMin && typ.IsSigned():
		return ir.Imm(typ, 1<<(typ.Bits()-1)-1)
	case p.op == ir.OpAtomicMin:
		return ir.Imm(typ, math.MaxUint64)
	case typ.IsSigned():
		return ir.Imm(typ, 1<<(typ.Bits()-1))
	}
	return ir.Imm(typ, 0)
}

// changed tests whether the element v loaded from at differs from the
// identity. Floats compare their bits: a sum of +0 must still be added,
// since it turns a -0 in the slice into +0 as Go's adds would.
func (p *private) changed(w *blocks, at, v ir.Arg) ir.Arg {
	if !p.typ.IsFloat() {
		return w.op(ir.OpNe, p.typ, v, p.identity())
	}
	bits := ir.Uint32
	if p.typ.Size() == 8 {
		bits = ir.Uint64
	}
	b := w.emit(ir.Instr{Op: ir.OpLoad, Type: bits, Space: ir.Shared, Args: []ir.Arg{at}})
	return w.op(ir.OpNe, bits, b, ir.Imm(bits, p.identity().Bits))
}

// rewrite makes t update the copies. The entry block's code moves to a
// new block, and the entry fills the copies first; with a copy smaller
// than its slice may need, the entry first tests the slice's length and
// runs a copy of the task as it was when the slice is longer. Every
// return of the task with copies adds them to the slices.
func rewrite(t *ir.Task, copies []*private) {
	entry := t.Blocks[0]
	body := copyBlock(t, entry, entry.Comment, nil)
	entry.Instrs, entry.Comment = nil, "private copies"
	var unchanged map[int]int
	if slices.ContainsFunc(copies, func(p *private) bool { return !p.bounded }) {
		unchanged = copyTask(t, body.Index)
	}
	w := &blocks{seq: seq{t: t}, cur: entry}
	blockThread, blockSize := w.op(ir.OpBlockThread, ir.Int64), w.op(ir.OpBlockSize, ir.Int64)
	for _, p := range copies {
		p.v = len(t.Vars)
		t.Vars = append(t.Vars, ir.Var{Name: fmt.Sprintf("private%d", p.param), Space: ir.Shared,
			Size: p.size * p.typ.Size(), Align: p.typ.Size()})
		p.addr = w.emit(ir.Instr{Op: ir.OpAddr, Type: ir.Ptr, Aux: int64(p.v)}).Reg
		length := w.emit(ir.Instr{Op: ir.OpParamLen, Type: ir.Int64, Aux: p.param})
		if !p.bounded {
			fits := t.NewBlock("private copies")
			w.branch(w.op(ir.OpLe, ir.Int64, length, ir.Imm(ir.Int64, uint64(p.size))), fits, t.Blocks[unchanged[body.Index]])
			w.cur = fits
		}
		// Only the elements below the slice's length are updated.
		p.count = w.op(ir.OpMin, ir.Int64, length, ir.Imm(ir.Int64, uint64(p.size))).Reg
	}
	for _, p := range copies {
		w.each(blockThread, blockSize, ir.R(p.count), func(j ir.Arg) {
			w.emit(ir.Instr{Op: ir.OpStore, Type: p.typ, Space: ir.Shared, Args: []ir.Arg{w.elem(p, ir.R(p.addr), j), p.identity()}})
		})
	}
	w.emit(ir.Instr{Op: ir.OpBarrier})
	w.jump(body)

	flush := t.NewBlock("add the private copies")
	for bi, b := range t.Blocks {
		if b.Term.Kind == ir.Return && b != flush && !isCopy(unchanged, bi) {
			b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{flush.Index}}
		}
	}
	for _, p := range copies {
		for _, a := range p.addrs {
			t.Blocks[a.block].Instrs[a.at].Args[0] = ir.R(p.addr)
		}
		for _, u := range p.updates {
			t.Blocks[u.block].Instrs[u.at].Space = ir.Shared
		}
	}
	w.cur = flush
	w.emit(ir.Instr{Op: ir.OpBarrier})
	for _, p := range copies {
		base := w.emit(ir.Instr{Op: ir.OpParamBase, Type: ir.Ptr, Aux: p.param})
		w.each(blockThread, blockSize, ir.R(p.count), func(j ir.Arg) {
			at := w.elem(p, ir.R(p.addr), j)
			v := w.emit(ir.Instr{Op: ir.OpLoad, Type: p.typ, Space: ir.Shared, Args: []ir.Arg{at}})
			add, next := t.NewBlock("add an element"), t.NewBlock("next element")
			w.branch(p.changed(w, at, v), add, next)
			w.cur = add
			w.emit(ir.Instr{Op: p.op, Type: p.typ, Args: []ir.Arg{w.elem(p, base, j), v}})
			w.jump(next)
		})
	}
	w.close(ir.Term{Kind: ir.Return})
}

// blocks writes code over several blocks, into the current one.
type blocks struct {
	seq
	cur *ir.Block
}

// emit appends in, with a new register for its result, and returns that.
func (w *blocks) emit(in ir.Instr) ir.Arg {
	in.Dst = ir.NoReg
	if rt := in.ResultType(); rt != ir.Invalid {
		in.Dst = w.t.NewReg(rt)
	}
	w.out = append(w.out, in)
	return ir.R(in.Dst)
}

// close ends the current block with term.
func (w *blocks) close(term ir.Term) {
	w.cur.Instrs = append(w.cur.Instrs, w.out...)
	w.out = nil
	w.cur.Term = term
}

// jump ends the current block with a jump to b and goes on in b.
func (w *blocks) jump(b *ir.Block) {
	w.close(ir.Term{Kind: ir.Jump, Succs: [2]int{b.Index}})
	w.cur = b
}

func (w *blocks) branch(cond ir.Arg, yes, no *ir.Block) {
	w.close(ir.Term{Kind: ir.Branch, Cond: cond, Succs: [2]int{yes.Index, no.Index}})
}

// elem is the address of element j of the array of p's type at base.
func (w *blocks) elem(p *private, base, j ir.Arg) ir.Arg {
	return w.emit(ir.Instr{Op: ir.OpElemAddr, Aux: int64(p.typ.Size()), Args: []ir.Arg{base, j}})
}

// each runs body for j = first, first+step, ... below count, as a loop,
// and goes on after it.
func (w *blocks) each(first, step, count ir.Arg, body func(j ir.Arg)) {
	j := w.t.NewReg(ir.Int64)
	w.out = append(w.out, ir.Instr{Op: ir.OpMove, Type: ir.Int64, Dst: j, Args: []ir.Arg{first}})
	head, loop, done := w.t.NewBlock("each"), w.t.NewBlock("each body"), w.t.NewBlock("each done")
	w.jump(head)
	w.branch(w.op(ir.OpLt, ir.Int64, ir.R(j), count), loop, done)
	w.cur = loop
	body(ir.R(j))
	w.out = append(w.out, ir.Instr{Op: ir.OpAdd, Type: ir.Int64, Dst: j, Args: []ir.Arg{ir.R(j), step}})
	w.close(ir.Term{Kind: ir.Jump, Succs: [2]int{head.Index}})
	w.cur = done
}

// isCopy reports whether block bi is a copy that copyTask made.
func isCopy(copies map[int]int, bi int) bool {
	for _, c := range copies {
		if c == bi {
			return true
		}
	}
	return false
}

// copyTask copies the blocks reachable from start, and returns the copy
// of each. The copy assigns registers of its own: no other block reads
// them.
func copyTask(t *ir.Task, start int) map[int]int {
	var order []int
	seen := map[int]bool{}
	var visit func(int)
	visit = func(bi int) {
		if !seen[bi] {
			seen[bi] = true
			order = append(order, bi)
			for _, s := range t.Blocks[bi].Term.Successors() {
				visit(s)
			}
		}
	}
	visit(start)
	rename := map[ir.Reg]ir.Reg{}
	for _, bi := range order {
		for _, in := range t.Blocks[bi].Instrs {
			for _, d := range in.Defs() {
				if _, ok := rename[d]; !ok {
					rename[d] = t.NewReg(t.Regs[d])
				}
			}
		}
	}
	copies := map[int]int{}
	for _, bi := range order {
		copies[bi] = copyBlock(t, t.Blocks[bi], t.Blocks[bi].Comment+" (global)", rename).Index
	}
	for _, c := range copies {
		succs := t.Blocks[c].Term.Successors()
		for j, s := range succs {
			succs[j] = copies[s]
		}
	}
	return copies
}
