package opt

import (
	"fmt"
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// Grid-stride loops whose body has at most this many instructions run
// gridUnrollFactor iterations of a thread in a row.
const (
	gridUnrollFactor    = 4
	gridUnrollMaxInstrs = 56
)

// fullOccupancyRegs is the most registers a thread may use for a
// multiprocessor of sm_70 to sm_90 (65536 registers, 2048 threads) to hold
// all the threads it can.
const fullOccupancyRegs = 32

// UnrollGridStride runs a small grid-stride loop four iterations of the
// thread at a time while four are left, as nvcc does with the same loop:
// one bound test and one step of the index serve four bodies, and the
// bodies' independent work can overlap. The iterations left over run one
// by one in the loop as it was:
//
//	guard:  if x < bound goto room else exit         x = i + d, the head's test
//	room:   if bound - x > 3*count goto copy 0 else head
//	copy k: the body for index i + k*count; copy 3 ends with i += 4*count, goto guard
//	head:   the loop as it was
//
// The copies run the same iterations in the same order, so results, and
// which check fails first, are the same. Each copy has registers of its
// own for the values of its iteration, which keeps them assigned once for
// the passes after this one. A loop with an inner loop is left alone, as
// are the loops of tasks whose threads work together (reductions, which
// the lowering unrolls itself, and barriers): a thread that runs a copy
// and one that runs the loop as it was would wait at different places.
func UnrollGridStride(t *ir.Task) {
	if t.Kind != ir.Parallel || cooperates(t) {
		return
	}
	an := analysis.New(t)
	var grid []*analysis.IndVar
	for _, lp := range an.Innermost() {
		if iv := gridIndexVar(an, lp); iv != nil && len(t.Blocks[iv.Update.Block].Instrs) == 1 && t.Blocks[iv.Update.Block].Term.Kind == ir.Jump {
			grid = append(grid, iv)
		}
	}
	var loopsFound []*gridLoop
	for _, iv := range grid {
		// Of a loop kept twice, with its checks and without, the copy
		// with checks runs only in launches that fault.
		if len(grid) > 1 && hasChecks(t, iv.Loop.Loop) || hasCalls(t, iv.Loop.Loop) {
			continue
		}
		if g, ok := gridLoopOf(t, iv); ok {
			loopsFound = append(loopsFound, g)
		}
	}
	for _, g := range loopsFound {
		g.unroll()
	}
	// Unrolling is for loads in flight, and the copies' registers must not
	// cost threads, which would take away more loads in flight than the
	// copies add: measured on the H100, a 5-point stencil unrolled this way
	// took 40 registers and ran 16% slower than with 32; a 7-point one
	// took 54 and ran 45% slower, though 32 spilled 24 bytes.
	if len(loopsFound) > 0 {
		t.MaxRegs = fullOccupancyRegs
	}
}

// cooperates reports whether the task's threads exchange values or wait
// for each other.
func cooperates(t *ir.Task) bool {
	for _, b := range t.Blocks {
		for _, x := range b.Instrs {
			if x.Op == ir.OpShuffleDown || x.Op == ir.OpShuffleUp || x.Op == ir.OpScratch || x.Op == ir.OpBarrier {
				return true
			}
		}
	}
	return false
}

// hasCalls reports whether the loop calls a device function, such as a
// library function the kernels of a module share (math.Exp): its body is
// the callee's too, larger than a body unrolled, and so it stays a loop
// as it was when the callee was inlined. Registers kept to 32 across the
// call would spill (math.Atan2's loop, unrolled, spilled 80 bytes).
func hasCalls(t *ir.Task, lp *ir.Loop) bool {
	for _, bi := range lp.Blocks() {
		for _, x := range t.Blocks[bi].Instrs {
			if x.Op == ir.OpCall {
				return true
			}
		}
	}
	return false
}

func hasChecks(t *ir.Task, lp *ir.Loop) bool {
	for _, bi := range lp.Blocks() {
		for _, x := range t.Blocks[bi].Instrs {
			if x.Op.Info().Checks {
				return true
			}
		}
	}
	return false
}

// gridLoop is a grid-stride loop found in a task:
//
//	head:  [x = add i, d]; c = lt x, bound; branch c, first, exit
//	latch: i = add i, count; jump head
type gridLoop struct {
	t            *ir.Task
	lp           *ir.Loop
	head, latch  *ir.Block
	i, count     ir.Reg
	x, bound     ir.Arg
	offset       int64 // d of x = i + d
	typ          ir.Type
	first, exit  int
	bodyInstrs   []ir.Instr // the head's, recomputed by the guard
	blocks       []int      // the loop's blocks but the head
	headLocalReg map[ir.Reg]bool
}

// gridLoopOf reads the loop of a grid-stride index whose latch holds
// only its step, and whose head computes only its test from the index.
func gridLoopOf(t *ir.Task, iv *analysis.IndVar) (*gridLoop, bool) {
	lp := iv.Loop.Loop
	g := &gridLoop{t: t, lp: lp, head: t.Blocks[lp.Header], latch: t.Blocks[lp.Latches[0]]}
	g.i, g.typ, g.count = iv.Reg, iv.Type, iv.StepArg.Reg
	term := g.head.Term
	if term.Kind != ir.Branch || term.Cond.Imm || lp.Has(term.Succs[1]) || !lp.Has(term.Succs[0]) || g.latch.Term.Succs[0] != lp.Header {
		return nil, false
	}
	g.first, g.exit = term.Succs[0], term.Succs[1]
	// The head's test is one of the analysis's tests of i, x < bound with
	// x = i+d.
	var e *analysis.ExitTest
	for _, test := range iv.Tests {
		if test.Block == lp.Header {
			e = test
		}
	}
	if e == nil || e.Compare.Block != lp.Header || e.Op != ir.OpLt || e.Type != g.typ {
		return nil, false
	}
	d, ok := e.ConstOffset()
	test := g.head.Instrs[e.Compare.At]
	if !ok || e.BoundArg != test.Args[1] {
		return nil, false
	}
	g.x, g.bound, g.offset = test.Args[0], e.BoundArg, d
	// The head computes only its test and x; nothing else reads them.
	g.headLocalReg = map[ir.Reg]bool{}
	for i, in := range g.head.Instrs {
		if i != e.Compare.At && (in.Dst != g.x.Reg || g.x == ir.R(g.i)) {
			return nil, false
		}
		g.headLocalReg[in.Dst] = true
	}
	if !g.bound.Imm && definedIn(t, lp)[g.bound.Reg] {
		return nil, false
	}
	size := 0
	for _, bi := range lp.Blocks() {
		if bi == lp.Header {
			continue
		}
		g.blocks = append(g.blocks, bi)
		b := t.Blocks[bi]
		size += len(b.Instrs)
		for _, x := range b.Instrs {
			if slices.Contains(x.Defs(), g.i) && bi != g.latch.Index || readsAny(&x, g.headLocalReg) {
				return nil, false
			}
		}
		for _, s := range b.Term.Successors() {
			if s == lp.Header && bi != g.latch.Index {
				return nil, false // a back edge that skips the latch
			}
		}
		if c := b.Term.Cond; b.Term.Kind == ir.Branch && !c.Imm && g.headLocalReg[c.Reg] {
			return nil, false
		}
	}
	return g, size <= gridUnrollMaxInstrs
}

func readsAny(x *ir.Instr, regs map[ir.Reg]bool) bool {
	for _, a := range x.Args {
		if !a.Imm && regs[a.Reg] {
			return true
		}
	}
	return false
}

func (g *gridLoop) unroll() {
	t := g.t
	local := localRegs(t, g.lp)
	pre := preheader(t, g.lp)
	multiples := map[uint64]ir.Reg{1: g.count}
	multiple := func(k uint64) ir.Reg {
		if r, ok := multiples[k]; ok {
			return r
		}
		r := t.NewReg(g.typ)
		pre.Instrs = append(pre.Instrs, ir.Instr{Op: ir.OpMul, Type: g.typ, Dst: r, Args: []ir.Arg{ir.R(g.count), ir.Imm(g.typ, k)}})
		multiples[k] = r
		return r
	}
	span := multiple(gridUnrollFactor - 1)
	// The guard and the test that four iterations are left.
	guard, room := t.NewBlock("grid unrolled guard"), t.NewBlock("grid unrolled room")
	x := g.x
	if x != ir.R(g.i) {
		x = ir.R(t.NewReg(g.typ))
		guard.Instrs = append(guard.Instrs, ir.Instr{Op: ir.OpAdd, Type: g.typ, Dst: x.Reg, Args: []ir.Arg{ir.R(g.i), ir.Imm(g.typ, uint64(g.offset))}})
	}
	more := t.NewReg(ir.Bool)
	guard.Instrs = append(guard.Instrs, ir.Instr{Op: ir.OpLt, Type: g.typ, Dst: more, Args: []ir.Arg{x, g.bound}})
	guard.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(more), Succs: [2]int{room.Index, g.exit}}
	pre.Term.Succs[0] = guard.Index
	// Where the loop hands what it leaves to a copy with checks, so does
	// the guard, which leaves the same way.
	guard.Fallback = g.head.Fallback
	// x < bound, so bound - x is the distance in 64 unsigned bits.
	left, room4 := t.NewReg(ir.Uint64), t.NewReg(ir.Bool)
	bound, from, most := g.asUint64(room, g.bound), g.asUint64(room, x), g.asUint64(room, ir.R(span))
	room.Instrs = append(room.Instrs,
		ir.Instr{Op: ir.OpSub, Type: ir.Uint64, Dst: left, Args: []ir.Arg{bound, from}},
		ir.Instr{Op: ir.OpGt, Type: ir.Uint64, Dst: room4, Args: []ir.Arg{ir.R(left), most}})

	entries := make([]*ir.Block, gridUnrollFactor)
	copies := make([]map[int]int, gridUnrollFactor)
	// The copies read their index from registers assigned once, which
	// later passes can follow, unlike i: each copy's is the one before's
	// plus count, so that addresses step from copy to copy by one addition.
	index := t.NewReg(g.typ)
	for k := range gridUnrollFactor {
		entries[k] = t.NewBlock(fmt.Sprintf("grid unrolled %d", k))
		rename := map[ir.Reg]ir.Reg{}
		for r := range t.Regs {
			if local[ir.Reg(r)] {
				rename[ir.Reg(r)] = t.NewReg(t.Regs[r])
			}
		}
		if k == 0 {
			entries[k].Instrs = append(entries[k].Instrs, ir.Instr{Op: ir.OpMove, Type: g.typ, Dst: index, Args: []ir.Arg{ir.R(g.i)}})
		} else {
			next := t.NewReg(g.typ)
			entries[k].Instrs = append(entries[k].Instrs, ir.Instr{Op: ir.OpAdd, Type: g.typ, Dst: next, Args: []ir.Arg{ir.R(index), ir.R(g.count)}})
			index = next
		}
		rename[g.i] = index
		copies[k] = map[int]int{}
		for _, bi := range g.blocks {
			orig := t.Blocks[bi]
			nb := t.NewBlock(fmt.Sprintf("%s (grid unrolled %d)", orig.Comment, k))
			nb.Checked = orig.Checked
			copies[k][bi] = nb.Index
			if bi == g.latch.Index {
				continue // the copies' latches are set below
			}
			nb.Instrs = make([]ir.Instr, len(orig.Instrs))
			for j, x := range orig.Instrs {
				x.Args = append([]ir.Arg(nil), x.Args...)
				x.Results = append([]ir.Reg(nil), x.Results...)
				renameRegs(&x, rename)
				nb.Instrs[j] = x
			}
			nb.Term = orig.Term
			if c := nb.Term.Cond; nb.Term.Kind == ir.Branch && !c.Imm {
				if r, ok := rename[c.Reg]; ok {
					nb.Term.Cond = ir.R(r)
				}
			}
		}
	}
	room.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(room4), Succs: [2]int{entries[0].Index, g.lp.Header}}
	step := multiple(gridUnrollFactor)
	for k := range gridUnrollFactor {
		entries[k].Term = ir.Term{Kind: ir.Jump, Succs: [2]int{copies[k][g.first]}}
		for _, bi := range g.blocks {
			nb := t.Blocks[copies[k][bi]]
			if bi == g.latch.Index {
				if k+1 < gridUnrollFactor {
					nb.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{entries[k+1].Index}}
				} else {
					nb.Instrs = []ir.Instr{{Op: ir.OpAdd, Type: g.typ, Dst: g.i, Args: []ir.Arg{ir.R(g.i), ir.R(step)}}}
					nb.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{guard.Index}}
				}
				continue
			}
			succs := nb.Term.Successors()
			for j, s := range succs {
				if g.lp.Has(s) {
					succs[j] = copies[k][s]
				}
			}
		}
	}
}

// asUint64 converts a value of the loop's type to u64 at the end of b.
func (g *gridLoop) asUint64(b *ir.Block, a ir.Arg) ir.Arg {
	if g.typ == ir.Uint64 {
		return a
	}
	r := g.t.NewReg(ir.Uint64)
	b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpConvert, Type: ir.Uint64, From: g.typ, Dst: r, Args: []ir.Arg{a}})
	return ir.R(r)
}
