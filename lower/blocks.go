package lower

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"sort"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file plans block-level kernels. A top-level loop over
// qd.Blocks(n), or two nested ones for a 2-D grid, becomes one task whose
// blocks of threads stride over the loop's iterations, one iteration per
// block at a time (blockbuild.go builds it). In its body:
//
//   - a loop over qd.Threads(c), c constant, is a thread loop: thread k
//     of the block runs iteration k, and the loop ends with a barrier;
//     two nested thread loops make a 2-D block, the inner index fastest;
//   - a local variable declared outside the thread loops is one per
//     block, in shared memory;
//   - everything else runs on every thread of the block alike, so it must
//     not write memory.
//
// Code outside thread loops sees no thread index, so every condition
// around a thread loop is the same for all the threads of a block, and
// the barrier that ends a thread loop is reached by all of them.

// blockMarker reports whether v is a call of qd.Blocks or qd.Threads, and
// of which.
func blockMarker(v ssa.Value) (*ssa.Call, string) {
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil, ""
	}
	callee := call.Common().StaticCallee()
	if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg.Path() != QDPath {
		return nil, ""
	}
	switch callee.Name() {
	case "Blocks", "Threads":
		return call, callee.Name()
	}
	return nil, ""
}

// threadLoop is a thread loop of a qd.Blocks loop's body: one loop, or
// two nested ones for a 2-D block of threads.
type threadLoop struct {
	levels  []*parLoop // outermost first
	extents []int64
	stmt    ast.Stmt
	// The blocks that start and end it in the task being built.
	start, end *ir.Block
}

// threads is the number of threads the loop runs.
func (tl *threadLoop) threads() int64 {
	n := int64(1)
	for _, e := range tl.extents {
		n *= e
	}
	return n
}

func (tl *threadLoop) contains(b *ssa.BasicBlock) bool { return tl.levels[0].lp.contains(b) }

// blockNest is a kernel's qd.Blocks loop, or nest of two, and what its
// body holds.
type blockNest struct {
	levels  []*parLoop // the qd.Blocks loops, outermost first
	threads []*threadLoop
	size    int64 // threads per block: the most a thread loop runs
	// shared holds the variables of the body outside thread loops, which
	// live in shared memory; perThread those of them that are per-thread
	// values (blockthread.go), with the type of a thread's part, and own
	// the element addresses that are a thread's part.
	shared    map[*ssa.Alloc]bool
	written   map[*ssa.Alloc]bool // shared ones never read as zeroed (blockzero.go)
	ownZeroes map[*ssa.Alloc]bool // shared ones whose zeroes need no barrier (blockzero.go)
	perThread map[*ssa.Alloc]types.Type
	own       map[*ssa.IndexAddr]bool
}

// inThreadLoop reports whether b is in one of the nest's thread loops.
func (bn *blockNest) inThreadLoop(b *ssa.BasicBlock) bool {
	for _, tl := range bn.threads {
		if tl.contains(b) {
			return true
		}
	}
	return false
}

// rangeOver finds the range statement of fn whose range expression is
// the call at lparen.
func rangeOver(fn *ssa.Function, lparen token.Pos) *ast.RangeStmt {
	var found *ast.RangeStmt
	if syn := fn.Syntax(); syn != nil {
		ast.Inspect(syn, func(n ast.Node) bool {
			if rs, ok := n.(*ast.RangeStmt); ok {
				if call, ok := ast.Unparen(rs.X).(*ast.CallExpr); ok && call.Lparen == lparen {
					found = rs
				}
			}
			return found == nil
		})
	}
	return found
}

// loopMarker returns the qd.Blocks or qd.Threads call that bounds lp, if
// its exit test compares its index with one.
func loopMarker(lp *loop, fn *ssa.Function) (*ssa.Call, string) {
	for _, b := range fn.Blocks {
		if !lp.contains(b) {
			continue
		}
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok || lp.contains(b.Succs[1]) {
			continue
		}
		if _, bound, ok := indexTest(iff.Cond, nil); ok {
			if call, name := blockMarker(bound); call != nil {
				return call, name
			}
		}
	}
	return nil, ""
}

// planBlocks describes the qd.Blocks loop pl, the top-level statement
// stmt, and its body, reporting what a block-level kernel cannot have.
func (l *lowerer) planBlocks(fn *ssa.Function, pl *parLoop, stmt ast.Stmt) *blockNest {
	bn := &blockNest{levels: []*parLoop{pl}, shared: map[*ssa.Alloc]bool{}, written: map[*ssa.Alloc]bool{}, ownZeroes: map[*ssa.Alloc]bool{},
		perThread: map[*ssa.Alloc]types.Type{}, own: map[*ssa.IndexAddr]bool{}}
	if len(pl.reductions) > 0 {
		l.errorf(pl.pos, "a qd.Blocks loop cannot combine a variable over its blocks (a reduction): blocks run at the same time; combine within a block with qd.Sum, and across blocks with an atomic (qd.AtomicAdd) or a second kernel")
		return nil
	}
	type marked struct {
		lp   *loop
		call *ssa.Call
		name string
		stmt *ast.RangeStmt
	}
	var inside []marked
	for _, lp := range naturalLoops(fn) {
		if lp == pl.lp || lp.header == pl.lp.header || !pl.lp.contains(lp.header) {
			continue
		}
		if call, name := loopMarker(lp, fn); call != nil {
			inside = append(inside, marked{lp, call, name, rangeOver(fn, call.Pos())})
		}
	}
	sort.SliceStable(inside, func(i, j int) bool { return inside[i].lp.header.Index < inside[j].lp.header.Index })
	l.markers[pl.bound.(*ssa.Call)] = true
	body := loopBody(stmt)
	for _, m := range inside {
		if m.stmt == nil {
			l.errorf(m.call.Pos(), "qd.%s must be the range of a for loop: for i := range qd.%s(n)", m.name, m.name)
			continue
		}
		if m.name == "Blocks" {
			if len(bn.levels) > 1 || len(body) != 1 || body[0] != ast.Stmt(m.stmt) {
				l.errorf(m.stmt.Pos(), "a loop over qd.Blocks must be a top-level statement of the kernel, or the only statement of another one's body (a 2-D grid of blocks)")
				continue
			}
			lv, fail := l.matchLoop(fn, m.lp, m.stmt, nil)
			if fail != nil {
				l.errorf(fail.pos, "the inner loop over qd.Blocks is not a counted loop: %s", fail.reason)
				continue
			}
			l.markers[m.call] = true
			bn.levels = append(bn.levels, lv)
			continue
		}
		l.planThreadLoop(fn, bn, m.lp, m.call, m.stmt)
	}
	for _, tl := range bn.threads {
		bn.size = max(bn.size, tl.threads())
	}
	if len(bn.threads) == 0 && !slices.ContainsFunc(inside, func(m marked) bool { return m.name == "Threads" }) {
		l.errorf(pl.pos, "this qd.Blocks loop has no thread loop: its blocks' threads run only in loops over qd.Threads(n) in its body (for t := range qd.Threads(256) { ... })")
		return nil
	}
	if len(bn.threads) == 0 {
		return nil // reported
	}
	if bn.size > ir.MaxBlockThreads {
		l.errorf(pl.pos, "the thread loops of this qd.Blocks loop run %d threads a block, more than the %d a GPU block can have: use fewer threads, each doing more of the work", bn.size, ir.MaxBlockThreads)
	}
	l.planBlockBody(fn, bn)
	for v := range bn.shared {
		if bn.overwritten(v) {
			bn.written[v] = true
		} else if bn.zeroedByOwner(v) {
			bn.ownZeroes[v] = true
		}
	}
	return bn
}

// planThreadLoop adds the thread loop lp, over the qd.Threads call, to bn:
// a level of its own, or the inner level of the one it is in.
func (l *lowerer) planThreadLoop(fn *ssa.Function, bn *blockNest, lp *loop, call *ssa.Call, stmt *ast.RangeStmt) {
	l.markers[call] = true
	extent, ok := constExtent(call)
	if !ok {
		l.errorf(call.Pos(), "qd.Threads needs a constant number of threads, which the block's size is made from: write a constant (qd.Threads(256)), and guard the iterations past a variable bound with an if")
		return
	}
	lv, fail := l.matchLoop(fn, lp, stmt, nil)
	switch {
	case fail != nil && fail.kind == breaks:
		l.errorf(fail.pos, "break in a thread loop is not supported: the block's threads run its iterations at the same time; skip the rest of an iteration with continue instead")
		return
	case fail != nil && fail.kind == carried:
		l.errorf(fail.pos, "variable %s is carried from one iteration of this thread loop to the next, and %s: its iterations are the block's threads, which run at the same time; keep a value per thread in an array indexed by the thread (v[t]) and combine them with qd.Sum or qd.InclusiveScan after the loop", fail.name, fail.why)
		return
	case fail != nil:
		l.errorf(fail.pos, "a thread loop must count its index from 0 (for t := range qd.Threads(n)): %s", fail.reason)
		return
	case len(lv.reductions) > 0:
		l.errorf(stmt.Pos(), "this thread loop combines a variable over its iterations, which are the block's threads running at the same time: keep a value per thread in an array indexed by the thread (v[t]) and combine them with qd.Sum after the loop")
		return
	case extent < 1 || extent > ir.MaxBlockThreads:
		l.errorf(call.Pos(), "qd.Threads(%d): a block has 1 to %d threads", extent, ir.MaxBlockThreads)
		return
	}
	for _, outer := range bn.threads {
		if !outer.contains(lp.header) {
			continue
		}
		body := loopBody(outer.stmt)
		if len(outer.levels) > 1 || len(body) != 1 || body[0] != ast.Stmt(stmt) {
			l.errorf(stmt.Pos(), "a thread loop inside a thread loop: the outer loop's iterations are already threads; for a 2-D block of threads make the inner loop the only statement of the outer one (for y := range qd.Threads(16) { for x := range qd.Threads(16) { ... } })")
			return
		}
		outer.levels = append(outer.levels, lv)
		outer.extents = append(outer.extents, extent)
		return
	}
	bn.threads = append(bn.threads, &threadLoop{levels: []*parLoop{lv}, extents: []int64{extent}, stmt: stmt})
}

// constExtent returns the constant argument of a qd.Threads call.
func constExtent(call *ssa.Call) (int64, bool) {
	c, ok := call.Call.Args[0].(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
}

// planBlockBody finds the shared variables of bn's body and reports its
// writes outside thread loops.
func (l *lowerer) planBlockBody(fn *ssa.Function, bn *blockNest) {
	for _, b := range fn.Blocks {
		if !bn.levels[0].lp.contains(b) || bn.inThreadLoop(b) {
			continue
		}
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.Alloc:
				switch {
				case in.Heap && collectedOnly(in):
					bn.shared[in] = true // its address goes to collectives only
				case in.Heap:
				case bn.isPerThread(in, bn.own):
					bn.perThread[in] = bn.threadElem(in, bn.own)
				default:
					bn.shared[in] = true
				}
			case *ssa.Call:
				if collectiveCallee(in) != "" {
					l.collectives[in] = true
				}
			case *ssa.Store:
				l.errorf(in.Pos(), "this statement writes memory in a qd.Blocks loop but outside its thread loops, where every thread of the block would run it: write in a thread loop (for t := range qd.Threads(1) { ... } has one thread do it)")
			}
		}
	}
}

// collectedOnly reports whether the address of v goes nowhere but to
// element addresses and to block collectives (qd.Sum(v[:])), which go/ssa
// counts as an escape to the heap.
func collectedOnly(v *ssa.Alloc) bool {
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.IndexAddr, *ssa.DebugRef:
		case *ssa.Slice:
			for _, u := range *r.Referrers() {
				if call, ok := u.(*ssa.Call); !ok || collectiveCallee(call) == "" {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
