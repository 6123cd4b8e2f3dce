package lower

import (
	"go/ast"
	"go/token"

	"github.com/qdgo/qd/check"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file runs perfectly nested loops in parallel. When a top-level
// loop holds nothing but another counted loop whose bounds do not depend
// on it (and that one perhaps a third; bounds that follow an outer index
// make the triangular nests of triangle.go),
//
//	for y := range h {
//		for x := range w {
//			out[y*w+x] = f(x, y)
//		}
//	}
//
// every (y, x) pair is an iteration of one parallel task: the pairs are
// numbered y*w + x, and the threads of the grid share that one index space
// as they share a single loop's. Each thread splits its first index into
// y and x once, with a division, and then steps by the grid size through
// additions and a carry, so no division is left in the loop. Consecutive
// threads take consecutive x, which keeps their memory accesses together;
// and any shape of loop nest keeps every thread busy, which a 2-D grid of
// fixed block shape would not for narrow or odd widths.
//
// Stepping costs the fewest instructions per iteration of the ways to
// split the index. The grid is a few waves of the device (rt's gridFor),
// so a thread of a large nest runs a few iterations, and each step is an
// add, a compare and a rarely taken carry per inner level. Splitting
// every iteration's index anew, even in 32 bits by a divisor known at
// launch (a reciprocal, a high multiply and a correction), costs several
// times that; a 2-D grid costs nothing per iteration but fixes the block's
// shape. The two divisions of the setup, the thread's index and the grid
// size by each inner count, run once per thread, in 32 bits when the
// operands fit (opt.FuseDivRem), as they do below 2^32 iterations. The
// head's tests of the offsets give the range analysis each level's
// bounds, with which opt.HoistChecks decides the nest's checks before it
// and opt.RemoveProvenTests drops the levels' own loop tests.
//
// A block of consecutive threads runs one row of 256 columns at a time,
// where a 2-D grid's block of 32×8 runs 8 rows of 32: rows that read the
// same elements, as every row of a matrix product reads b[k*n+j], read
// them once into the block's cache for 8 rows there, and 8 times here. A
// nest with such a load walks stripes (stripedWalk): its outermost level
// is cut into 8 stripes of rows, and each of 8 groups of a block's
// threads walks one stripe as above, so that a block runs 8 rows at a
// time still, at no cost per iteration. Stripes keep the rows they run
// together apart, so a nest whose rows share only their neighbours (a
// stencil's y-1 and y+1) gains nothing from them, and keeps the plain walk.

// maxNest is the number of loops of a nest that can share one index space.
const maxNest = 3

// nestedLevels returns the loops perfectly nested in the top-level loop
// pl, outermost first, that run in parallel with it; a note says why a
// nested loop that a reader might expect to run in parallel does not.
func (l *lowerer) nestedLevels(fn *ssa.Function, pl *parLoop, stmt ast.Stmt) []*parLoop {
	var levels []*parLoop
	outer, outerStmt := pl, stmt
	for len(levels)+1 < maxNest {
		inner, innerStmt, reason := l.perfectChild(fn, append([]*parLoop{pl}, levels...), outer, outerStmt)
		if inner == nil {
			if reason != "" {
				l.note(innerPos(innerStmt, outerStmt), "this loop runs serially in each iteration of the parallel loop around it: %s", reason)
			}
			break
		}
		levels = append(levels, inner)
		outer, outerStmt = inner, innerStmt
	}
	return levels
}

func innerPos(inner, outer ast.Stmt) token.Pos {
	if inner != nil {
		return inner.Pos()
	}
	return outer.Pos()
}

// perfectChild returns the loop directly nested in outer, the innermost
// of the nest's levels so far (levels[0] is the top-level loop), if outer
// holds nothing else and it is a counted loop whose bounds the nest does
// not change or that follow the index of one of its levels (shape);
// otherwise, if outer holds a loop, why it does not qualify.
func (l *lowerer) perfectChild(fn *ssa.Function, levels []*parLoop, outer *parLoop, outerStmt ast.Stmt) (*parLoop, ast.Stmt, string) {
	nest := levels[0]
	var children []*loop
	for _, lp := range naturalLoops(fn) {
		if lp.header != outer.lp.header && outer.lp.contains(lp.header) {
			children = append(children, lp)
		}
	}
	var child *loop
	for _, c := range children {
		nested := false
		for _, other := range children {
			if other != c && other.contains(c.header) {
				nested = true
			}
		}
		if nested {
			continue
		}
		if child != nil {
			return nil, nil, "the loop around it holds more than one loop"
		}
		child = c
	}
	if child == nil {
		return nil, nil, ""
	}
	stmt := topLevelLoopStmt(child, fn, loopBody(outerStmt))
	if stmt == nil {
		return nil, nil, "" // nested in an if or switch: plainly serial
	}
	inner, fail := l.matchLoop(fn, child, stmt, nest)
	if fail != nil {
		return nil, stmt, fail.reason
	}
	if reason := l.shape(levels, inner); reason != "" {
		return nil, stmt, reason
	}
	for _, b := range fn.Blocks {
		if !outer.lp.contains(b) || child.contains(b) {
			continue
		}
		if !l.onlyIndexing(b, nest, outer, inner) {
			return nil, stmt, "the loop around it does more than run it (statements before or after it, or a condition)"
		}
	}
	return inner, stmt, ""
}

// loopBody returns the statements of a for or range statement's body.
func loopBody(stmt ast.Stmt) []ast.Stmt {
	switch s := stmt.(type) {
	case *ast.ForStmt:
		return s.Body.List
	case *ast.RangeStmt:
		return s.Body.List
	}
	return nil
}

// onlyIndexing reports whether a block of the outer loop of a nest, outside
// the inner loop, computes only values without effects and branches only
// on the loops' tests: it then does nothing an iteration of the nest could
// miss if it ran once per iteration of the inner loop or not at all. The
// phis of the top-level loop nest's reductions merely pass them on, but an
// update of one there would be missed.
func (l *lowerer) onlyIndexing(b *ssa.BasicBlock, nest, outer, inner *parLoop) bool {
	for _, instr := range b.Instrs {
		switch in := instr.(type) {
		case *ssa.Phi:
			if in != outer.phi && in.Referrers() != nil && len(*in.Referrers()) > 0 && !nest.reduces(in) {
				return false
			}
		case *ssa.Jump, *ssa.DebugRef:
		case *ssa.If:
			// The outer loop's exit test, or the inner loop's entry test.
			leaves := !outer.lp.contains(b.Succs[0]) || !outer.lp.contains(b.Succs[1])
			if !leaves && !(inner.pretest && b == inner.pre) {
				return false
			}
		case ssa.Value:
			if !l.effectFree(in) || nest.updates(in) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// effectFree reports whether computing v neither writes nor reads memory
// (other than constant tables), so computing it more often or not at all
// changes nothing.
func (l *lowerer) effectFree(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.BinOp, *ssa.Convert, *ssa.ChangeType, *ssa.Slice, *ssa.Extract, *ssa.IndexAddr,
		*ssa.FieldAddr, *ssa.Field, *ssa.Index:
		return true
	case *ssa.UnOp:
		return v.Op != token.MUL && v.Op != token.ARROW || rootGlobal(v.X) != nil
	case *ssa.Call:
		if b, ok := v.Common().Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "min", "max", "real", "imag", "complex":
				return true
			}
			return false
		}
		callee := v.Common().StaticCallee()
		if isLibraryFunc(callee) {
			return true
		}
		return callee != nil && !v.Common().IsInvoke() && l.pureFunction(callee)
	}
	return false
}

// buildNestOrLoop builds the task of a loop nest as one parallel loop,
// unless iterations of an inner level would touch the same elements: that
// level's loop then runs serially inside each iteration of the levels
// outside it, which still share one index space, as it does in Go. The
// k loop of c[i*n+j] += a[i*n+k]*b[k*n+j] runs serially in each (i, j).
// A nest with reductions keeps only its outer level parallel.
func (l *lowerer) buildNestOrLoop(fn *ssa.Function, pl *parLoop) *ir.Task {
	serial := l.taskSerial
	for {
		t := l.buildNest(fn, pl)
		l.assignSpaces(t)
		if l.cfg.SkipDependenceCheck || len(l.diags) > 0 {
			l.note(pl.pos, "these %d nested loops run as one parallel loop over all their iterations", len(pl.inner)+1)
			return t
		}
		level := l.firstConflict(t)
		switch {
		case level > 0:
			l.note(pl.inner[level-1].pos, "this loop runs serially in each iteration of the parallel loop around it: its iterations touch the same elements (one writes what another reads or writes), so they cannot all run at once")
		case check.NeedsConditions(l.k, t, l.nestIndexes[t][0]):
			// Only a flat loop has a serial version (version.go).
			l.note(pl.inner[0].pos, "this loop runs serially in each iteration of the parallel loop around it: the outer loop's iterations touch distinct elements only for some values of the parameters, which the kernel tests at launch")
			level = 1
		default:
			l.note(pl.pos, "these %d nested loops run as one parallel loop over all their iterations", len(pl.inner)+1)
			return t
		}
		delete(l.loopIndexes, t)
		delete(l.nestIndexes, t)
		l.taskSerial = serial
		if len(pl.reductions) > 0 {
			level = 1
		}
		pl.inner = pl.inner[:level-1]
		if len(pl.inner) == 0 {
			return l.buildLoop(fn, pl)
		}
	}
}

// firstConflict returns the outermost inner level of the nest task t
// (1 for the loop inside the top-level one) whose iterations the
// dependence check finds to conflict, without reporting them; 0 if none.
func (l *lowerer) firstConflict(t *ir.Task) int {
	for k, lp := range l.nestIndexes[t][1:] {
		if check.Conflicts(l.k, t, lp) {
			return k + 1
		}
	}
	return 0
}

// buildNest builds the parallel task of a loop nest: the levels' indices
// are offsets i_k from their first values in [0, n_k), thread t of T
// starts at the pair (or triple) numbered t and steps by T:
//
//	entry:  prologue
//	setup:  n_k = the count of level k; exit if a level is empty
//	        i = t split into levels; d = T split into levels
//	        (striped: t and T those of the thread's group, i_0 from its
//	        stripe's first row, e its end; otherwise e = n_0)
//	head:   if i_0 < e goto index else exit
//	index:  φ_k = first_k + i_k; goto the outer loop's header
//	...     the loops' blocks, each back edge and inner exit going to latch
//	latch:  i += d, carrying from each inner level into the one outside it
//	exit:   return
func (l *lowerer) buildNest(fn *ssa.Function, pl *parLoop) *ir.Task {
	levels := append([]*parLoop{pl}, pl.inner...)
	tb := l.newTaskBuilder(ir.Parallel, pl.pos)
	t := tb.t
	f := tb.newFrame(fn, pl.lp.contains)
	setup, head, index, latch, exit := t.NewBlock("setup"), t.NewBlock("head"), t.NewBlock("index"), t.NewBlock("latch"), t.NewBlock("exit")
	for _, b := range fn.Blocks {
		if pl.lp.contains(b) {
			f.start[b] = t.NewBlock(b.Comment)
		}
	}
	f.skipPhis = map[*ssa.Phi]bool{}
	for _, lv := range levels {
		f.skipPhis[lv.phi] = true
	}
	// A reduction's variable is one partial result per thread throughout
	// the nest: the phis that hold it in the inner levels' headers share
	// its register, and every iteration ends with its value there.
	for _, red := range pl.reductions {
		for _, lv := range levels[1:] {
			for _, instr := range lv.lp.header.Instrs {
				if phi, ok := instr.(*ssa.Phi); ok && red.holds(phi) {
					f.vals[phi] = f.regsFor(red.phi)
				}
			}
		}
	}
	f.carried = f.carriedMoves(pl)
	f.assume = guardedPretests(levels)
	f.redirect = func(from, to *ssa.BasicBlock) (*ir.Block, bool) {
		switch {
		case !pl.lp.contains(to):
			return exit, true
		case to == pl.lp.header:
			return latch, true
		}
		for _, lv := range levels[1:] {
			// Each visit runs one iteration of the innermost loop: leaving
			// it or going round it is the end of the iteration.
			if lv.lp.contains(from) && (to == lv.lp.header || !lv.lp.contains(to)) {
				return latch, true
			}
		}
		return nil, false
	}

	u := ir.Uint64
	tb.cur = setup
	for _, red := range pl.reductions {
		tb.move(f.regsFor(red.phi)[0], red.identity())
	}
	ranges := make([]levelRange, len(levels))
	firsts := make([]ir.Arg, len(levels))
	counts := make([]ir.Arg, len(levels))
	for k, lv := range levels {
		ranges[k] = f.levelRange(lv, ranges[:k], exit)
		firsts[k], counts[k] = ranges[k].first, ranges[k].count
	}
	var walk nestWalk
	if len(pl.reductions) == 0 && sharedAcrossRows(fn, pl, levels[len(levels)-1]) {
		walk = f.stripedWalk(counts[0])
	} else {
		walk = f.plainWalk(counts[0])
	}
	tid, step := walk.first, walk.step
	idx, steps := make([]ir.Reg, len(levels)), make([]ir.Arg, len(levels))
	for k := len(levels) - 1; k >= 0; k-- {
		idx[k] = t.NewReg(u)
		if k == 0 {
			if walk.start != nil {
				tb.emit(ir.Instr{Op: ir.OpAdd, Type: u, Dst: idx[k], Args: []ir.Arg{*walk.start, tid}})
			} else {
				tb.move(idx[k], tid)
			}
			steps[k] = step
			break
		}
		// One division each: the remainder is what the quotient leaves.
		q := tb.op(ir.OpDiv, u, tid, counts[k])
		tb.emit(ir.Instr{Op: ir.OpSub, Type: u, Dst: idx[k], Args: []ir.Arg{tid, ir.R(tb.op(ir.OpMul, u, ir.R(q), counts[k]))}})
		tid = ir.R(q)
		qs := tb.op(ir.OpDiv, u, step, counts[k])
		steps[k] = ir.R(tb.op(ir.OpSub, u, step, ir.R(tb.op(ir.OpMul, u, ir.R(qs), counts[k]))))
		step = ir.R(qs)
	}
	tb.jump(head)
	// The head tests every level's offset against its count, which only
	// the outer one can fail: the tests that the inner ones pass tell the
	// range analysis (ir/analysis) that each offset is in [0, count), and
	// with that each index in its level's range, which decides the checks
	// of the nest before it (opt.HoistChecks). Each test reads a copy of
	// the offset that the iteration does not change.
	tb.cur = head
	at := make([]ir.Reg, len(levels))
	for k := range levels {
		at[k] = tb.op(ir.OpMove, u, ir.R(idx[k]))
	}
	for k := len(levels) - 1; k >= 0; k-- {
		bound := counts[k]
		if k == 0 {
			bound = walk.end
		}
		more := tb.op(ir.OpLt, u, ir.R(at[k]), bound)
		next := index
		if k > 0 {
			next = t.NewBlock("head")
		}
		tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(more), Succs: [2]int{next.Index, exit.Index}}
		tb.cur = next
	}

	for k, lv := range levels {
		v := tb.op(ir.OpAdd, u, firsts[k], ir.R(at[k]))
		tb.convertInto(f.regsFor(lv.phi)[0], ir.R(v), u)
	}
	f.guardLevels(levels, latch)
	tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{f.start[pl.lp.header].Index}}

	tb.cur = latch
	for k := len(levels) - 1; k > 0; k-- {
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: u, Dst: idx[k], Args: []ir.Arg{ir.R(idx[k]), steps[k]}})
		wrap := tb.op(ir.OpGe, u, ir.R(idx[k]), counts[k])
		carry, next := t.NewBlock("carry"), t.NewBlock("stepped")
		tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(wrap), Succs: [2]int{carry.Index, next.Index}}
		tb.cur = carry
		tb.emit(ir.Instr{Op: ir.OpSub, Type: u, Dst: idx[k], Args: []ir.Arg{ir.R(idx[k]), counts[k]}})
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: u, Dst: idx[k-1], Args: []ir.Arg{ir.R(idx[k-1]), ir.Imm(u, 1)}})
		tb.jump(next)
	}
	tb.emit(ir.Instr{Op: ir.OpAdd, Type: u, Dst: idx[0], Args: []ir.Arg{ir.R(idx[0]), steps[0]}})
	tb.jump(head)
	f.finishLoopTask(pl, exit, setup, l.nestCount(levels))
	for k, lv := range levels {
		ranges[k].reg = f.regsFor(lv.phi)[0]
	}
	l.nestIndexes[t] = nestIndexes(ranges)
	l.loopIndexes[t] = l.nestIndexes[t][0]
	return t
}

// nestIndexes describes a nest to the dependence check as one loop per
// level (check.Loop).
func nestIndexes(ranges []levelRange) []*check.Loop {
	var ixs []*check.Loop
	for k, lv := range ranges {
		ix := &check.Loop{Index: lv.reg, Init: lv.init, Bound: lv.bound, Wide: lv.wide, Delta: lv.delta,
			Fixed: map[ir.Reg]bool{}, Counters: map[ir.Reg]check.Counter{}}
		for _, outer := range ranges[:k] {
			ix.Fixed[outer.reg] = true
		}
		for _, inner := range ranges[k+1:] {
			ix.Counters[inner.reg] = check.Counter{Init: inner.init, Wide: inner.wide, Count: inner.count}
		}
		ixs = append(ixs, ix)
	}
	return ixs
}

// levelRange is one level of a nest in its task: the register of its
// index, its bounds as the loop has them (of type wide), and the offset of
// its first index and its number of iterations in u64.
type levelRange struct {
	reg          ir.Reg
	init, bound  ir.Arg
	wide         ir.Type
	delta        int64
	first, count ir.Arg
}

// levelRange computes, in the setup block, the first value of a level's
// index (as u64 bits) and its number of iterations, branching to exit when
// it has none; those of its rectangle if it is shaped, from the ranges of
// the levels outside it (triangle.go).
func (f *frame) levelRange(lv *parLoop, outside []levelRange, exit *ir.Block) levelRange {
	tb := f.tb
	u := ir.Uint64
	phiType, _ := basicType(lv.phi.Type())
	wide := ir.Int64
	if phiType.IsUnsigned() {
		wide = u
	}
	var init, bound ir.Arg
	if lv.shaped {
		init, bound = f.rectangle(lv, outside, phiType, wide)
	} else {
		init = tb.convert(f.pureArg(lv.init), phiType, wide)
		bound = tb.convert(f.pureArg(lv.bound), phiType, wide)
	}
	start := init
	if lv.delta != 0 {
		start = ir.R(tb.op(ir.OpAdd, wide, init, ir.Imm(wide, uint64(lv.delta))))
	}
	some := tb.op(ir.OpLt, wide, start, bound)
	next := tb.t.NewBlock("setup")
	tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(some), Succs: [2]int{next.Index, exit.Index}}
	tb.cur = next
	// bound - start is exact in u64 when bound > start.
	first := tb.convert(init, wide, u)
	count := ir.R(tb.op(ir.OpSub, u, tb.convert(bound, wide, u), tb.convert(start, wide, u)))
	return levelRange{init: init, bound: bound, wide: wide, delta: lv.delta, first: first, count: count}
}

// nestClamp bounds each level's count in the host's count of a nest's
// iterations, so that their product cannot overflow; the grid is capped
// far below it anyway.
const nestClamp = 1 << 21

// nestCount is the host expression for the iterations of a nest: the
// product of the levels' counts, clamped.
func (l *lowerer) nestCount(levels []*parLoop) *ir.Expr {
	var product *ir.Expr
	for k, lv := range levels {
		n := l.loopCount(lv)
		if lv.shaped {
			first, end := l.hostSpan(levels, k)
			n = nil
			if first != nil && end != nil {
				n = &ir.Expr{Op: ir.OpSub, Type: ir.Int64, Args: []*ir.Expr{end, first}}
			}
		}
		if n == nil {
			return nil
		}
		n = &ir.Expr{Op: ir.OpMin, Type: ir.Int64, Args: []*ir.Expr{
			{Op: ir.OpMax, Type: ir.Int64, Args: []*ir.Expr{n, {Op: ir.OpConst, Type: ir.Int64}}},
			{Op: ir.OpConst, Type: ir.Int64, Bits: nestClamp},
		}}
		if product == nil {
			product = n
		} else {
			product = &ir.Expr{Op: ir.OpMul, Type: ir.Int64, Args: []*ir.Expr{product, n}}
		}
	}
	return product
}

// nestWalk is how a thread of a nest's grid walks its iterations,
// numbered row by row: from first (of the iterations of its stripe of
// the outermost level, if start is set, whose offset is start), by step,
// until the outermost level's offset reaches end. All are u64.
type nestWalk struct {
	first, step ir.Arg
	start       *ir.Arg
	end         ir.Arg
}

// plainWalk is the walk of a thread over all the iterations of a nest of
// outermost count n0: thread t of T starts at iteration t and steps by T.
func (f *frame) plainWalk(n0 ir.Arg) nestWalk {
	tb := f.tb
	u := ir.Uint64
	tid := tb.convert(ir.R(tb.op(ir.OpThreadIndex, ir.Int64)), ir.Int64, u)
	step := tb.convert(ir.R(tb.op(ir.OpThreadCount, ir.Int64)), ir.Int64, u)
	return nestWalk{first: tid, step: step, end: n0}
}

// stripedWalk splits the outermost level of a nest into 8 stripes of
// consecutive rows and each block's threads into 8 groups, one a stripe:
// group g of every block walks the iterations of stripe g as the grid's
// threads walk a plain nest's, so that a block runs 8 rows (one of each
// stripe) of 32 columns at a time, where a plain walk runs 1 row of 256.
// What all rows read alike, b[k*n+j] of a matrix product, is then read
// into the block's cache once for 8 rows. The walk costs nothing per
// iteration: the offsets step and carry as a plain walk's do, and the
// outermost one is tested against its stripe's end instead of the count.
//
// A block whose size is not a multiple of 8 (the interpreter runs blocks
// of any size), or a level of fewer than 8 rows, takes one stripe of all
// the rows in one group: the plain walk. The shift g is 3 or 0, and with
// it every value below is the one or the other walk's, without a branch.
func (f *frame) stripedWalk(n0 ir.Arg) nestWalk {
	tb := f.tb
	u := ir.Uint64
	special := func(op ir.Op) ir.Arg { return tb.convert(ir.R(tb.op(op, ir.Int64)), ir.Int64, u) }
	bin := func(op ir.Op, a, b ir.Arg) ir.Arg {
		in := ir.Instr{Op: op, Type: u, Dst: tb.t.NewReg(u), Args: []ir.Arg{a, b}}
		if op == ir.OpShl || op == ir.OpShr {
			in.From = u
		}
		tb.emit(in)
		return ir.R(in.Dst)
	}
	one := ir.Imm(u, 1)
	size, lane, block := special(ir.OpBlockSize), special(ir.OpBlockThread), special(ir.OpBlockIndex)
	// 1 when the size is a multiple of 8 and there are 8 rows or more.
	even := bin(ir.OpSub, one, bin(ir.OpMin, bin(ir.OpAnd, size, ir.Imm(u, 7)), one))
	tall := bin(ir.OpMin, bin(ir.OpShr, n0, ir.Imm(u, 3)), one)
	g := bin(ir.OpMul, bin(ir.OpAnd, even, tall), ir.Imm(u, 3))
	width := bin(ir.OpShr, size, g) // threads in a group
	group := bin(ir.OpDiv, lane, width)
	rows := bin(ir.OpShr, bin(ir.OpAdd, n0, bin(ir.OpSub, bin(ir.OpShl, one, g), one)), g)
	start := bin(ir.OpMul, group, rows)
	end := bin(ir.OpMin, bin(ir.OpAdd, start, rows), n0)
	first := bin(ir.OpAdd, bin(ir.OpMul, block, width), bin(ir.OpSub, lane, bin(ir.OpMul, group, width)))
	// The groups' threads, the grid's threads over 8 (or 1).
	step := bin(ir.OpShr, special(ir.OpThreadCount), g)
	return nestWalk{first: first, step: step, start: &start, end: end}
}

// sharedAcrossRows reports whether the body of the nest whose outermost
// level is pl and innermost inner loads an element whose index follows
// the innermost level's index but not the outermost's: b[k*n+j] of
// c[i*n+j] += a[i*n+k]*b[k*n+j]. Rows of the outermost level that run
// together then read the same elements, which a striped walk shares.
func sharedAcrossRows(fn *ssa.Function, pl, inner *parLoop) bool {
	for _, b := range fn.Blocks {
		if !pl.lp.contains(b) {
			continue
		}
		for _, instr := range b.Instrs {
			ia, ok := instr.(*ssa.IndexAddr)
			if !ok || !loaded(ia) {
				continue
			}
			if dependsOn(ia.Index, inner.phi, map[ssa.Value]bool{}) && !dependsOn(ia.Index, pl.phi, map[ssa.Value]bool{}) {
				return true
			}
		}
	}
	return false
}

// loaded reports whether an element's address is read through.
func loaded(ia *ssa.IndexAddr) bool {
	for _, r := range *ia.Referrers() {
		if u, ok := r.(*ssa.UnOp); ok && u.Op == token.MUL {
			return true
		}
	}
	return false
}

// dependsOn reports whether v is computed from phi.
func dependsOn(v ssa.Value, phi *ssa.Phi, seen map[ssa.Value]bool) bool {
	if v == ssa.Value(phi) {
		return true
	}
	if seen[v] {
		return false
	}
	seen[v] = true
	instr, ok := v.(ssa.Instruction)
	if !ok {
		return false
	}
	for _, op := range instr.Operands(nil) {
		if *op != nil && dependsOn(*op, phi, seen) {
			return true
		}
	}
	return false
}
