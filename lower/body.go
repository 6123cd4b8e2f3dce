package lower

import (
	"strings"

	"github.com/qdgo/qd/check"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// lowerBody plans the kernel body and builds one task per plan.
func (l *lowerer) lowerBody() {
	l.findCells(l.fn)
	plans := l.planBody(l.fn, 0)
	if len(l.diags) > 0 {
		return
	}
	kernelResults := l.results
	for _, p := range plans {
		l.bound, l.results = p.bind, p.results
		if p.results == nil {
			l.results = kernelResults
		}
		var t *ir.Task
		switch {
		case p.kind == ir.Parallel && len(p.loop.inner) > 0:
			t = l.buildNestOrLoop(p.fn, p.loop)
		case p.kind == ir.Parallel:
			t = l.buildLoop(p.fn, p.loop)
		case p.kind == ir.BlockLevel:
			t = l.buildBlocks(p.fn, p.loop, p.nest)
		default:
			t = l.buildSegment(p.fn, p)
		}
		t.StreamBlock = p.streamBlock
		l.assignSpaces(t)
		l.k.Tasks = append(l.k.Tasks, t)
		if p.kind == ir.Parallel && len(slotted(p.loop.reductions)) > 0 {
			c := l.buildCombine(p.fn, p.loop)
			c.StreamBlock = p.streamBlock
			l.k.Tasks = append(l.k.Tasks, c)
		}
	}
	if len(l.diags) > 0 {
		return // the tasks may be incomplete
	}
	if !l.cfg.SkipDependenceCheck {
		deps := check.Dependences(l.k, l.loopIndexes, l)
		for _, d := range deps.Diagnostics {
			l.errorf(d.Pos, "%s", d.Message)
		}
		for _, t := range l.k.Tasks {
			for _, d := range check.ThreadLoops(l.k, t, l.threadIndexes[t], l) {
				l.errorf(d.Pos, "%s", strings.ReplaceAll(d.Message, "parallel loop", "thread loop"))
			}
			if conds := deps.Conditions[t]; len(conds) > 0 {
				l.serialSwitches[t].insert(t, conds)
				var texts []string
				for _, c := range conds {
					texts = append(texts, c.Text)
				}
				l.note(t.Pos, "this loop's iterations touch distinct elements only where %s: the kernel tests that at launch, and runs the loop on one thread, in order, where it fails", strings.Join(texts, " and "))
			}
		}
	}
	l.groupBlocks()
}

// buildLoop builds the parallel task of a top-level loop. Thread t of a grid
// of T threads runs the iterations with index init+t, init+t+T, ...:
//
//	entry:  prologue (parameters, values of earlier statements)
//	setup:  i = init + threadindex
//	head:   if i+delta < bound goto index else exit
//	index:  φ = i; goto the loop's header
//	...     the loop's blocks, each back edge going to latch
//	latch:  i += threadcount; goto head
//	exit:   return
func (l *lowerer) buildLoop(fn *ssa.Function, pl *parLoop) *ir.Task {
	tb := l.newTaskBuilder(ir.Parallel, pl.pos)
	t := tb.t
	f := tb.newFrame(fn, pl.lp.contains)
	setup := t.NewBlock("setup")
	head := t.NewBlock("head")
	index := t.NewBlock("index")
	latch := t.NewBlock("latch")
	exit := t.NewBlock("exit")
	for _, b := range fn.Blocks {
		if pl.lp.contains(b) {
			f.start[b] = t.NewBlock(b.Comment)
		}
	}
	f.skipPhis = map[*ssa.Phi]bool{pl.phi: true}
	f.redirect = func(from, to *ssa.BasicBlock) (*ir.Block, bool) {
		switch {
		case !pl.lp.contains(to):
			return exit, true
		case to == pl.lp.header:
			return latch, true
		}
		return nil, false
	}

	f.carried = f.carriedMoves(pl)

	phiType, _ := basicType(pl.phi.Type())
	wide := ir.Int64
	if phiType.IsUnsigned() {
		wide = ir.Uint64
	}
	tb.cur = setup
	for _, red := range pl.reductions {
		tb.move(f.regsFor(red.phi)[0], red.identity())
	}
	tid := tb.convert(ir.R(tb.op(ir.OpThreadIndex, ir.Int64)), ir.Int64, wide)
	count := tb.convert(ir.R(tb.op(ir.OpThreadCount, ir.Int64)), ir.Int64, wide)
	init := tb.convert(f.pureArg(pl.init), phiType, wide)
	i := t.NewReg(wide)
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: wide, Dst: i, Args: []ir.Arg{init, tid}})
	gs := &gridStride{pl: pl, f: f, i: i, count: count, wide: wide, index: index, exit: exit}
	first := head
	if unrollable(pl) {
		first = gs.unrolled()
	}
	setup.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{first.Index}}

	tb.cur = head
	x, bound := gs.next()
	cond := tb.op(ir.OpLt, wide, x, bound)
	tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(cond), Succs: [2]int{index.Index, exit.Index}}

	tb.cur = index
	l.loopIndexes[t] = &check.Loop{Index: f.regsFor(pl.phi)[0], Init: init, Bound: bound, Wide: wide, Delta: pl.delta, Versioned: true}
	l.serialSwitches[t] = &serialSwitch{setup: setup, first: first, exit: exit, tid: tid, count: count, wide: wide}
	gs.enter(f.start)

	tb.cur = latch
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: wide, Dst: i, Args: []ir.Arg{ir.R(i), count}})
	latch.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{head.Index}}
	f.finishLoopTask(pl, exit, setup, l.loopCount(pl))
	return t
}

// finishLoopTask completes the task of a parallel loop or nest: its exit
// writes the reductions' partial results, the loop's blocks are lowered,
// the prologue goes on to setup, and the task runs count iterations, at
// least one when there are partial results, which even a loop without
// iterations leaves.
func (f *frame) finishLoopTask(pl *parLoop, exit, setup *ir.Block, count *ir.Expr) {
	tb := f.tb
	exit.Term = ir.Term{Kind: ir.Return}
	reds := slotted(pl.reductions)
	if len(reds) > 0 {
		tb.cur = exit
		regs := make([]ir.Reg, len(reds))
		for i, red := range reds {
			regs[i] = f.regsFor(red.phi)[0]
		}
		tb.writePartials(reds, regs)
	}
	for _, b := range f.fn.Blocks {
		if pl.lp.contains(b) {
			f.lowerBlock(b)
		}
	}
	tb.pro.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{setup.Index}}
	if count != nil && len(reds) > 0 {
		count = &ir.Expr{Op: ir.OpMax, Type: ir.Int64, Args: []*ir.Expr{count, {Op: ir.OpConst, Type: ir.Int64, Bits: 1}}}
	}
	tb.t.Count = count
}

// pureArg computes a pure value as an operand, an immediate for constants.
func (f *frame) pureArg(v ssa.Value) ir.Arg {
	if _, ok := v.(*ssa.Const); ok {
		return f.arg(v)
	}
	return ir.R(f.evalPure(v)[0])
}

// loopCount is the host expression for the iteration count of pl,
// bound - (init + delta), or nil.
func (l *lowerer) loopCount(pl *parLoop) *ir.Expr {
	bound := hostConvert(l.hostExpr(pl.bound), ir.Int64)
	init := hostConvert(l.hostExpr(pl.init), ir.Int64)
	if bound == nil || init == nil {
		return nil
	}
	var first *ir.Expr
	switch {
	case init.Op == ir.OpConst && int64(init.Bits)+pl.delta == 0:
		return bound
	case init.Op == ir.OpConst:
		first = &ir.Expr{Op: ir.OpConst, Type: ir.Int64, Bits: uint64(int64(init.Bits) + pl.delta)}
	case pl.delta == 0:
		first = init
	default:
		first = &ir.Expr{Op: ir.OpAdd, Type: ir.Int64, Args: []*ir.Expr{init, {Op: ir.OpConst, Type: ir.Int64, Bits: uint64(pl.delta)}}}
	}
	return &ir.Expr{Op: ir.OpSub, Type: ir.Int64, Args: []*ir.Expr{bound, first}}
}

// buildSegment builds the serial task of the statements between loops.
func (l *lowerer) buildSegment(fn *ssa.Function, p *taskPlan) *ir.Task {
	tb := l.newTaskBuilder(ir.Serial, p.pos)
	owned := make([]bool, len(fn.Blocks))
	for _, b := range p.blocks {
		owned[b.Index] = true
	}
	f := tb.newFrame(fn, func(b *ssa.BasicBlock) bool { return owned[b.Index] })
	f.cut, f.cutAt = p.cut, p.cutAt
	f.from = map[*ssa.BasicBlock]int{p.blocks[0]: p.from}
	for _, b := range p.blocks {
		f.start[b] = tb.t.NewBlock(b.Comment)
	}
	for _, b := range p.blocks {
		f.lowerBlock(b)
	}
	tb.pro.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{f.start[p.blocks[0]].Index}}
	return tb.t
}

// checkHelper lowers fn as if a kernel called it, for its diagnostics.
func (l *lowerer) checkHelper(fn *ssa.Function) {
	l.k = &ir.Kernel{Name: fn.Name()}
	l.params = map[*ssa.Parameter]int{}
	tb := l.newTaskBuilder(ir.Serial, fn.Pos())
	root := tb.newFrame(nil, func(*ssa.BasicBlock) bool { return false })
	var args [][]ir.Reg
	for _, p := range fn.Params {
		ts, ok := regTypes(p.Type())
		if !ok {
			l.errorf(p.Pos(), "parameter %s has type %s: %s are not supported in kernels", p.Name(), p.Type(), describeType(p.Type()))
			continue
		}
		regs := make([]ir.Reg, len(ts))
		for i, t := range ts {
			regs[i] = tb.t.NewReg(t)
		}
		args = append(args, regs)
	}
	res, ok := regTypes(fn.Signature.Results())
	if !ok {
		pos := fn.Signature.Results().At(0).Pos()
		if !pos.IsValid() {
			pos = fn.Pos()
		}
		l.errorf(pos, "%s returns %s, which kernels do not support", fn.Name(), fn.Signature.Results())
	}
	if len(l.diags) > 0 {
		return
	}
	if err := l.callable(fn); err != nil {
		l.errorf(fn.Pos(), "%v", err)
		return
	}
	dst := make([]ir.Reg, len(res))
	for i, t := range res {
		dst[i] = tb.t.NewReg(t)
	}
	root.inline(fn, args, dst, callSite{})
	l.assignSpaces(tb.t)
}
