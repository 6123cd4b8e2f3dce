package lower

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lowers qd.StreamParallel blocks. A top-level statement
//
//	qd.StreamParallel(func() { ... })
//
// cuts the kernel's serial code around it, and the block's function is
// planned like a kernel body of its own: its top-level loops become
// parallel tasks, its other statements serial tasks, all tagged with the
// block's number. Consecutive blocks form a group whose blocks run at the
// same time, each on its own stream; everything joins before the next
// statement of the kernel.
//
// The block's function reaches the kernel's variables through heap cells
// that go/ssa makes for captured variables; a cell stored once and only
// read stands for the value stored in it.

// streamParallelCallee reports whether call calls qd.StreamParallel.
func streamParallelCallee(call *ssa.Call) bool {
	callee := call.Common().StaticCallee()
	return callee != nil && callee.Pkg != nil && callee.Pkg.Pkg.Path() == QDPath && callee.Name() == "StreamParallel"
}

// blockFunction returns the function literal a qd.StreamParallel call runs.
func blockFunction(call *ssa.Call) (*ssa.Function, *ssa.MakeClosure) {
	switch arg := call.Common().Args[0].(type) {
	case *ssa.MakeClosure:
		return arg.Fn.(*ssa.Function), arg
	case *ssa.Function:
		if arg.Parent() != nil {
			return arg, nil
		}
	}
	return nil, nil
}

// isBlockArgument reports whether a closure is passed to qd.StreamParallel
// (where the call, if misplaced, is what gets reported).
func isBlockArgument(mc *ssa.MakeClosure) bool {
	for _, r := range *mc.Referrers() {
		if call, ok := r.(*ssa.Call); ok && streamParallelCallee(call) {
			return true
		}
	}
	return false
}

// capturedByBlock reports whether a variable is captured by a closure
// passed to qd.StreamParallel.
func capturedByBlock(v *ssa.Alloc) bool {
	for _, r := range *v.Referrers() {
		if mc, ok := r.(*ssa.MakeClosure); ok && isBlockArgument(mc) {
			return true
		}
	}
	return false
}

// findCells records the heap cells of the kernel's variables that
// qd.StreamParallel blocks capture: each stands for the one value stored
// in it.
func (l *lowerer) findCells(fn *ssa.Function) {
	l.cells = make(map[*ssa.Alloc]ssa.Value)
	l.captured = make(map[*ssa.FreeVar]ssa.Value)
	l.blockClosures = make(map[*ssa.MakeClosure]bool)
	l.freeVars = make(map[*ssa.FreeVar]*ssa.Alloc)
	l.notLiteral = make(map[*ssa.Call]bool)
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if call, ok := instr.(*ssa.Call); ok && streamParallelCallee(call) {
				if _, mc := blockFunction(call); mc != nil {
					l.blockClosures[mc] = true
				}
			}
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			alloc, ok := instr.(*ssa.Alloc)
			if !ok || !alloc.Heap {
				continue
			}
			var init ssa.Value
			stores, ok := 0, true
			var closures []*ssa.MakeClosure
			for _, r := range *alloc.Referrers() {
				switch r := r.(type) {
				case *ssa.Store:
					stores++
					init = r.Val
					ok = ok && r.Addr == ssa.Value(alloc)
				case *ssa.UnOp:
					ok = ok && r.Op == token.MUL
				case *ssa.MakeClosure:
					ok = ok && l.blockClosures[r]
					closures = append(closures, r)
				case *ssa.DebugRef:
				default:
					ok = false
				}
			}
			if len(closures) == 0 {
				continue
			}
			if isAggregate(alloc.Type().Underlying().(*types.Pointer).Elem()) && l.replayable(alloc) {
				// Blocks address its parts: each block's tasks rebuild it.
				for _, mc := range closures {
					for i, bound := range mc.Bindings {
						if bound == ssa.Value(alloc) {
							l.freeVars[mc.Fn.(*ssa.Function).FreeVars[i]] = alloc
						}
					}
				}
				continue
			}
			partsRead := isAggregate(alloc.Type().Underlying().(*types.Pointer).Elem()) && blocksAddressParts(alloc, closures)
			if partsRead {
				// Only a rebuilt variable has parts a block can address.
				l.errorf(alloc.Pos(), "%s", rebuiltMessage(alloc))
			}
			if !ok || stores != 1 || partsRead {
				// Reported where the variable is declared; the blocks'
				// uses of it are not reported again.
				for _, mc := range closures {
					for i, bound := range mc.Bindings {
						if bound == ssa.Value(alloc) {
							l.failed[mc.Fn.(*ssa.Function).FreeVars[i]] = true
						}
					}
				}
				continue
			}
			l.cells[alloc] = init
			for _, mc := range closures {
				for i, bound := range mc.Bindings {
					if bound == ssa.Value(alloc) {
						l.captured[mc.Fn.(*ssa.Function).FreeVars[i]] = init
					}
				}
			}
		}
	}
}

// streamParallelCalls returns the top-level qd.StreamParallel calls in the
// serial segment seg, reporting those that are not.
func (l *lowerer) streamParallelCalls(fn *ssa.Function, seg *taskPlan) []*ssa.Call {
	var calls []*ssa.Call
	for _, b := range seg.blocks {
		for _, instr := range segmentInstrs(seg, b) {
			call, ok := instr.(*ssa.Call)
			if !ok || !streamParallelCallee(call) {
				continue
			}
			stmt := topLevelCall(fn, call)
			if fn != l.fn || stmt == nil {
				continue // lowered as a call, which reports it
			}
			if _, lit := stmt.Args[0].(*ast.FuncLit); !lit {
				l.errorf(call.Pos(), "the argument of qd.StreamParallel must be a function literal: qd.StreamParallel(func() { ... })")
				l.notLiteral[call] = true
			} else if f, _ := blockFunction(call); f == nil {
				l.errorf(call.Pos(), "the argument of qd.StreamParallel must be a function literal: qd.StreamParallel(func() { ... })")
			}
			calls = append(calls, call)
		}
	}
	return calls
}

// topLevelCall returns the call expression of a top-level statement of
// fn's body that consists of call alone, or nil.
func topLevelCall(fn *ssa.Function, call *ssa.Call) *ast.CallExpr {
	for _, s := range bodyStmts(fn) {
		if es, ok := s.(*ast.ExprStmt); ok {
			if ce, ok := es.X.(*ast.CallExpr); ok && ce.Lparen == call.Pos() {
				return ce
			}
		}
	}
	return nil
}

// planBlock plans the tasks of one qd.StreamParallel block.
func (l *lowerer) planBlock(call *ssa.Call) []*taskPlan {
	fn, _ := blockFunction(call)
	if fn == nil || l.notLiteral[call] {
		return nil // reported
	}
	l.blocks = append(l.blocks, call.Pos())
	return l.planBody(fn, len(l.blocks))
}

// groupBlocks numbers the groups of consecutive blocks, checks that the
// blocks of a group do not race through the same slice parameter, and
// records the pairs of different slice parameters that must not overlap
// at launch.
func (l *lowerer) groupBlocks() {
	group, inGroup := 0, false
	for _, t := range l.k.Tasks {
		switch {
		case t.StreamBlock > 0:
			if !inGroup {
				group++
			}
			t.Group, inGroup = group, true
		case t.Needed():
			inGroup = false // a plain statement ends the group
		}
	}
	l.k.Groups = make([]int, group)
	seenBlock := map[int]bool{}
	for _, t := range l.k.Tasks {
		if t.StreamBlock > 0 && !seenBlock[t.StreamBlock] {
			seenBlock[t.StreamBlock] = true
			l.k.Groups[t.Group-1]++
		}
	}
	type blockSummary struct {
		reads, writes []bool
		accesses      []blockAccess
	}
	byBlock := map[int]*blockSummary{}
	groups := map[int][]int{}
	for _, t := range l.k.Tasks {
		if t.StreamBlock == 0 {
			continue
		}
		a := byBlock[t.StreamBlock]
		if a == nil {
			a = &blockSummary{reads: make([]bool, len(l.k.Params)), writes: make([]bool, len(l.k.Params))}
			byBlock[t.StreamBlock] = a
			groups[t.Group] = append(groups[t.Group], t.StreamBlock)
		}
		reads, writes := paramAccess(l.k, t)
		for p := range l.k.Params {
			a.reads[p] = a.reads[p] || reads[p]
			a.writes[p] = a.writes[p] || writes[p]
		}
		a.accesses = append(a.accesses, l.blockAccesses(t)...)
	}
	conflicts := map[[2]int]bool{}
	for g := 1; g <= group; g++ {
		blocks := groups[g]
		for i, b1 := range blocks {
			for _, b2 := range blocks[i+1:] {
				a1, a2 := byBlock[b1], byBlock[b2]
				for p := range l.k.Params {
					for q := range l.k.Params {
						if p != q && (a1.writes[p] && (a2.reads[q] || a2.writes[q]) || a2.writes[p] && a1.reads[q]) {
							conflicts[[2]int{min(p, q), max(p, q)}] = true
						}
					}
					l.blockRace(p, a1.accesses, a2.accesses)
				}
			}
		}
	}
	for c := range conflicts {
		l.k.Conflicts = append(l.k.Conflicts, c)
	}
	sort.Slice(l.k.Conflicts, func(i, j int) bool {
		a, b := l.k.Conflicts[i], l.k.Conflicts[j]
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
}

// blockAccess is an access of a qd.StreamParallel block's task with the
// range of elements it may touch, [lo, hi]; nil bounds mean any element.
type blockAccess struct {
	access
	lo, hi form
}

func (l *lowerer) blockAccesses(t *ir.Task) []blockAccess {
	ix := newIndexer(l.k, t, l.loopIndexes[t])
	var bas []blockAccess
	for _, a := range ix.accesses() {
		lo, hi := ix.footprint(&a)
		bas = append(bas, blockAccess{a, lo, hi})
	}
	return bas
}

// blockRace reports the first pair of accesses of parameter p by two
// blocks of a group that may touch one element, one of them writing it.
// Atomics do not race with each other.
func (l *lowerer) blockRace(p int, first, second []blockAccess) {
	// Writes first: x[i] += 1 is reported as the write it ends with.
	var ys []blockAccess
	for _, write := range []bool{true, false} {
		for _, y := range second {
			if y.param == p && y.write == write {
				ys = append(ys, y)
			}
		}
	}
	for _, y := range ys {
		if l.raced[y.in] {
			return // reported with another block
		}
		for _, x := range first {
			if x.param != p || !x.write && !y.write || x.atomic && y.atomic || disjoint(&x, &y) {
				continue
			}
			l.raced[y.in] = true
			verb := func(a *blockAccess) string {
				if a.write {
					return "writes"
				}
				return "reads"
			}
			pos, text := l.describe(y.in, p)
			xpos, xtext := l.describe(x.in, p)
			l.errorf(pos, "data race on %s between qd.StreamParallel blocks: %s %s elements that %s (at %s) %s in a block that runs at the same time; put a plain statement between the two blocks to order them, or give them different slices or elements",
				l.k.Params[p].Name, text, verb(&y), xtext, l.where(xpos), verb(&x))
			return
		}
	}
}

// disjoint reports whether two accesses' ranges of elements cannot meet.
func disjoint(x, y *blockAccess) bool {
	if x.lo == nil || y.lo == nil {
		return false
	}
	below := func(hi, lo form) bool {
		d, ok := hi.sub(lo).constant()
		return ok && d < 0
	}
	return below(x.hi, y.lo) || below(y.hi, x.lo)
}

// paramAccess returns which slice parameters a task reads and writes,
// following addresses from each parameter's base through the task.
func paramAccess(k *ir.Kernel, t *ir.Task) (reads, writes []bool) {
	n := len(k.Params)
	from := pointsTo(k, t)
	reads, writes = make([]bool, n), make([]bool, n)
	for _, b := range t.Blocks {
		for _, in := range b.Instrs {
			// The op table says which ops touch memory, so that an op added
			// later (an atomic, which reads and writes) is not missed here.
			mem := in.Op.Info().Memory
			if mem == ir.MemNone {
				continue
			}
			if a := in.Args[0]; !a.Imm && from[a.Reg] != nil {
				for p, ok := range from[a.Reg] {
					reads[p] = reads[p] || ok && mem.Reads()
					writes[p] = writes[p] || ok && mem.Writes()
				}
			}
		}
	}
	return reads, writes
}

// cellMessage explains a captured variable that cannot be seen through.
// blocksAddressParts reports whether a block that captures alloc reads a
// field or an element of it, rather than its whole value.
func blocksAddressParts(alloc *ssa.Alloc, closures []*ssa.MakeClosure) bool {
	for _, mc := range closures {
		for i, bound := range mc.Bindings {
			if bound != ssa.Value(alloc) {
				continue
			}
			for _, r := range *mc.Fn.(*ssa.Function).FreeVars[i].Referrers() {
				switch r.(type) {
				case *ssa.FieldAddr, *ssa.IndexAddr:
					return true
				}
			}
		}
	}
	return false
}

// rebuiltMessage explains why a struct or array a block reads cannot be
// built again by the block's tasks.
func rebuiltMessage(v *ssa.Alloc) string {
	return fmt.Sprintf("variable %s is read by a qd.StreamParallel block, whose launches must build it again, but it is built under a condition or in a loop (a || or && in its value counts), or changed after it is built: build it in straight-line code from values every launch can compute, or declare it inside the block", v.Comment)
}

func cellMessage(v *ssa.Alloc) string {
	return fmt.Sprintf("variable %s is captured by a qd.StreamParallel block and assigned more than once; copy it into a new variable before the block", v.Comment)
}
