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
// every (y, x) pair is an iteration of one parallel task, and the threads
// of the grid share that one index space. A block of threads takes a tile
// of the innermost two levels at a time, h rows of y by w columns of x
// (nestTiles: 8 by 32 in a block of 256), and the blocks share the tiles,
// numbered row by row, as the threads of a single loop share its
// iterations. Rows of a tile that run together read each other's
// neighbours and a matrix's shared row once into the block's cache, as a
// 2-D grid's blocks do, while consecutive threads still take consecutive
// x; and since the tile's shape follows the nest's counts at launch, a
// narrow or short nest keeps every thread busy, which a 2-D grid of fixed
// block shape would not. Each thread splits its block's first tile into
// the levels once, with a division, and then steps by the grid's block
// count through additions and a carry, so no division is left in the
// loop; an iteration past the end of an edge tile is skipped.
//
// Stepping costs the fewest instructions per iteration of the ways to
// split the index. The grid is a few waves of the device (rt's gridFor),
// so a thread of a large nest runs a few iterations, and each step is an
// add, a compare and a rarely taken carry per inner level, and a test of
// the offsets of the tile's two levels against their counts. Splitting
// every iteration's index anew, even in 32 bits by a divisor known at
// launch (a reciprocal, a high multiply and a correction), costs several
// times that; a 2-D grid costs nothing per iteration but fixes the block's
// shape. The divisions of the setup, the tile's shape, the block's index
// and the block count by each inner level's tile count, run once per
// thread, in 32 bits when the operands fit (opt.FuseDivRem), as they do
// below 2^32 iterations. The head's tests of the offsets give the range
// analysis each level's bounds, with which opt.HoistChecks decides the
// nest's checks before it and opt.RemoveProvenTests drops the levels' own
// loop tests.

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
// are offsets i_k from their first values in [0, n_k); block b of B
// starts at the tile numbered b and steps by B tiles, and its thread at
// (ty, tx) of a tile of h×w takes that place in each tile:
//
//	entry:  prologue
//	setup:  n_k = the count of level k; exit if a level is empty
//	        h, w, ty, tx (nestTiles); exit if the thread is outside the tile
//	        i = b split into levels' tiles, times the tile's size, plus
//	        (ty, tx); d = B split the same way
//	head:   if i_0 < n_0 goto head' else exit
//	head':  if i_k < n_k for each inner level goto index else latch
//	index:  φ_k = first_k + i_k; goto the outer loop's header
//	...     the loops' blocks, each back edge and inner exit going to latch
//	latch:  i += d, carrying from each inner level into the one outside it
//	        at its tile count times the tile's size
//	exit:   return
//
// The outermost offset only grows, so a thread whose offset has passed
// its count has no iteration left.
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
	tiles := f.nestTiles(counts, exit)
	idx, steps, wraps := tiles.split(tb, counts)
	tb.jump(head)
	// The head tests every level's offset against its count. The
	// outermost offset only grows, so once it fails the thread is done;
	// the tiled levels' fail only in the part of an edge tile past the
	// end, and skip that iteration. The tests that pass tell the range
	// analysis (ir/analysis) that each offset is in [0, count), and with
	// that each index in its level's range, which decides the checks of
	// the nest before it (opt.HoistChecks). Each test reads a copy of the
	// offset that the iteration does not change.
	tb.cur = head
	at := make([]ir.Reg, len(levels))
	for k := range levels {
		at[k] = tb.op(ir.OpMove, u, ir.R(idx[k]))
	}
	for k := range levels {
		more := tb.op(ir.OpLt, u, ir.R(at[k]), counts[k])
		next, fail := index, exit
		if k < len(levels)-1 {
			next = t.NewBlock("head")
		}
		if k > 0 {
			fail = latch
		}
		tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(more), Succs: [2]int{next.Index, fail.Index}}
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
		wrap := tb.op(ir.OpGe, u, ir.R(idx[k]), wraps[k])
		carry, next := t.NewBlock("carry"), t.NewBlock("stepped")
		tb.cur.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(wrap), Succs: [2]int{carry.Index, next.Index}}
		tb.cur = carry
		tb.emit(ir.Instr{Op: ir.OpSub, Type: u, Dst: idx[k], Args: []ir.Arg{ir.R(idx[k]), wraps[k]}})
		tb.emit(ir.Instr{Op: ir.OpAdd, Type: u, Dst: idx[k-1], Args: []ir.Arg{ir.R(idx[k-1]), tiles.size(tb, k-1)}})
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

// nestTiles is how a nest's threads share its iterations: each block
// walks the innermost two levels in tiles of h rows (of the level outside
// the innermost) by w columns (of the innermost), its thread at row ty and
// column tx of the tile. Neighbouring rows of a tile then run in the same
// block at the same time, so that what an iteration reads of the rows
// around its own (a stencil's y-1 and y+1), of another row at the same
// column (b[k*n+j] of a matrix product, the same for every i), or along
// the outer level (in[x*h+y]) is read once into the block's cache for all
// of them, where a block of one row of 256 columns shares nothing between
// its rows. A warp still takes consecutive columns of a row.
//
// The tile is 32 columns wide, or the innermost count where that is
// smaller, and as many rows high as the block has threads for: 8 in a
// block of 256. A level outside it of fewer rows than that makes the tile
// that many rows high and wider instead, so that it keeps the block's
// threads busy. The threads of a block beyond h·w run no iteration.
type nestTiles struct {
	levels int
	// h, w, ty, tx in u64; rows and cols the tile counts of the two levels.
	h, w, ty, tx ir.Arg
	rows, cols   ir.Arg
	// h32 is h in u32, which the carry widens where it adds it.
	h32 ir.Arg
}

// nestTiles computes, in the setup block, the shape of the tiles of a
// nest with those counts and the thread's place in its tile, branching
// to exit for a thread outside it. Those are values of the block, below
// its size, and are computed in 32 bits; the tile counts are the levels'
// counts divided by h and w, rounded up.
func (f *frame) nestTiles(counts []ir.Arg, exit *ir.Block) *nestTiles {
	tb := f.tb
	u, u32 := ir.Uint64, ir.Uint32
	n := len(counts)
	nr, nc := counts[n-2], counts[n-1]
	narrow := func(a ir.Arg) ir.Arg { return tb.convert(a, u, u32) }
	widen := func(a ir.Arg) ir.Arg { return tb.convert(a, u32, u) }
	size := tb.convert(ir.R(tb.op(ir.OpBlockSize, ir.Int64)), ir.Int64, u32)
	lane := tb.convert(ir.R(tb.op(ir.OpBlockThread, ir.Int64)), ir.Int64, u32)
	// A block has at least a warp of threads on a GPU; the interpreter
	// runs a thread alone as a block of one, which gets tiles of 1×1.
	w := ir.R(tb.op(ir.OpMin, u32, narrow(ir.R(tb.op(ir.OpMin, u, nc, ir.Imm(u, 32)))), size))
	h := narrow(ir.R(tb.op(ir.OpMin, u, nr, widen(ir.R(tb.op(ir.OpDiv, u32, size, w))))))
	w = narrow(ir.R(tb.op(ir.OpMin, u, nc, widen(ir.R(tb.op(ir.OpDiv, u32, size, h))))))
	ty := ir.R(tb.op(ir.OpDiv, u32, lane, w))
	tx := ir.R(tb.op(ir.OpSub, u32, lane, ir.R(tb.op(ir.OpMul, u32, ty, w))))
	inside := tb.op(ir.OpLt, u32, ty, h)
	next := tb.t.NewBlock("setup")
	tb.branch(inside, next, exit)
	tb.cur = next
	ts := &nestTiles{levels: n, h: widen(h), w: widen(w), ty: widen(ty), tx: widen(tx), h32: h}
	// (count-1)/size + 1: the counts are at least 1 here.
	tilesOf := func(count, size ir.Arg) ir.Arg {
		less := ir.R(tb.op(ir.OpSub, u, count, ir.Imm(u, 1)))
		return ir.R(tb.op(ir.OpAdd, u, ir.R(tb.op(ir.OpDiv, u, less, size)), ir.Imm(u, 1)))
	}
	ts.rows, ts.cols = tilesOf(nr, ts.h), tilesOf(nc, ts.w)
	return ts
}

// size is what a carry into level k adds to its offset: a tile's height
// for the tiled outer level, 1 for a level outside the tiles.
func (ts *nestTiles) size(tb *taskBuilder, k int) ir.Arg {
	if k == ts.levels-2 {
		return tb.convert(ts.h32, ir.Uint32, ir.Uint64)
	}
	return ir.Imm(ir.Uint64, 1)
}

// split computes, in the setup block, each level's first offset for the
// thread, the offsets' steps and the offsets at which the inner levels
// wrap, as u64 (the outermost level's is not read). The block's index
// numbers the tiles, row by row as the pairs were numbered, and is split
// into the levels' tile coordinates,
// the block count into their steps, with one division per inner level
// each; the tiled levels' offsets are those times the tile's size, plus
// the thread's place in the tile, and wrap at their tile counts times the
// size, past the end by at most a tile. The steps are below those, and
// the carry machinery walks the offsets as it walked the pairs' numbers.
func (ts *nestTiles) split(tb *taskBuilder, counts []ir.Arg) (idx []ir.Reg, steps, wraps []ir.Arg) {
	u := ir.Uint64
	n := len(counts)
	tileCounts := append([]ir.Arg(nil), counts...)
	tileCounts[n-2], tileCounts[n-1] = ts.rows, ts.cols
	scale := func(k int, a ir.Arg) ir.Arg {
		switch k {
		case n - 1:
			return ir.R(tb.op(ir.OpMul, u, a, ts.w))
		case n - 2:
			return ir.R(tb.op(ir.OpMul, u, a, ts.h))
		}
		return a
	}
	first := tb.convert(ir.R(tb.op(ir.OpBlockIndex, ir.Int64)), ir.Int64, u)
	step := tb.convert(ir.R(tb.op(ir.OpBlockCount, ir.Int64)), ir.Int64, u)
	idx, steps, wraps = make([]ir.Reg, n), make([]ir.Arg, n), make([]ir.Arg, n)
	for k := n - 1; k >= 0; k-- {
		tile, tileStep := first, step
		if k > 0 {
			// One division each: the remainder is what the quotient leaves.
			q := tb.op(ir.OpDiv, u, first, tileCounts[k])
			tile = ir.R(tb.op(ir.OpSub, u, first, ir.R(tb.op(ir.OpMul, u, ir.R(q), tileCounts[k]))))
			qs := tb.op(ir.OpDiv, u, step, tileCounts[k])
			tileStep = ir.R(tb.op(ir.OpSub, u, step, ir.R(tb.op(ir.OpMul, u, ir.R(qs), tileCounts[k]))))
			first, step = ir.R(q), ir.R(qs)
		}
		at := scale(k, tile)
		switch k {
		case n - 1:
			at = ir.R(tb.op(ir.OpAdd, u, at, ts.tx))
		case n - 2:
			at = ir.R(tb.op(ir.OpAdd, u, at, ts.ty))
		}
		idx[k] = tb.t.NewReg(u)
		tb.move(idx[k], at)
		steps[k] = scale(k, tileStep)
		wraps[k] = counts[k]
		if k >= n-2 {
			wraps[k] = scale(k, tileCounts[k])
		}
	}
	return idx, steps, wraps
}
