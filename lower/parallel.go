package lower

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/qdgo/qd/check"
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
	diags, conflicts := check.Blocks(l.k, l.loopIndexes, l)
	for _, d := range diags {
		l.errorf(d.Pos, "%s", d.Message)
	}
	l.k.Conflicts = conflicts
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
