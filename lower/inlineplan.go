package lower

import (
	"go/ast"
	"maps"
	"sort"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file plans calls of helper functions that are statements of their
// own at the top level of a kernel (or of a qd.StreamParallel block) as if
// the helper's body were written there: its top-level loops become
// parallel tasks, its other statements serial ones. The helper's
// parameters stand for the arguments of the call (taskPlan.bind), which
// must be values any task can compute again: parameters, constants and
// pure expressions of them.

// topLevelCalls returns the calls in the serial segment seg that cut it:
// the qd.StreamParallel statements, and the helper calls planned as
// bodies, in program order.
func (l *lowerer) topLevelCalls(fn *ssa.Function, seg *taskPlan) []*ssa.Call {
	calls := l.streamParallelCalls(fn, seg)
	for _, b := range seg.blocks {
		for _, instr := range segmentInstrs(seg, b) {
			if call, ok := instr.(*ssa.Call); ok && l.plannableHelper(fn, call) != nil {
				calls = append(calls, call)
			}
		}
	}
	sort.SliceStable(calls, func(i, j int) bool {
		a, b := calls[i], calls[j]
		if a.Block() == b.Block() {
			return indexOf(a) < indexOf(b)
		}
		return a.Block().Dominates(b.Block())
	})
	return calls
}

// segmentInstrs returns the instructions of block b that belong to seg.
func segmentInstrs(seg *taskPlan, b *ssa.BasicBlock) []ssa.Instruction {
	from, end := 0, len(b.Instrs)
	if b == seg.blocks[0] {
		from = seg.from
	}
	if b == seg.cut {
		end = seg.cutAt
	}
	return b.Instrs[from:end]
}

// plannableHelper returns the helper call is a top-level statement calling
// whose body can be planned in place, or nil. When the helper has loops
// that stay serial, a note says why.
func (l *lowerer) plannableHelper(fn *ssa.Function, call *ssa.Call) *ssa.Function {
	common := call.Common()
	callee := common.StaticCallee()
	if common.IsInvoke() || callee == nil || streamParallelCallee(call) || topLevelCall(fn, call) == nil {
		return nil
	}
	if isLibraryFunc(callee) || l.callable(callee) != nil || callee.Blocks == nil {
		return nil
	}
	loops := topLevelLoops(callee)
	if len(loops) == 0 {
		return nil
	}
	why := func(format string, args ...any) *ssa.Function {
		l.note(call.Pos(), "the loops of %s run serially, on one thread: "+format, append([]any{callee.Name()}, args...)...)
		return nil
	}
	for _, planned := range l.planning {
		if planned == callee {
			return nil // recursion, which is reported
		}
	}
	switch {
	case len(callee.FreeVars) > 0 || callee.Signature.Results().Len() > 0:
		return why("it returns results; a helper whose loops run in parallel returns nothing")
	case len(earlyReturns(callee)) > 0:
		return why("it returns before its end")
	}
	for _, a := range common.Args {
		if !l.isPure(a) {
			return why("an argument depends on memory or on control flow, so the helper's loops, each a launch of its own, cannot compute it again")
		}
	}
	saved := l.bound
	l.bound = l.bindings(callee, common.Args)
	defer func() { l.bound = saved }()
	for _, lp := range loops {
		if _, fail := l.matchLoop(callee, lp.lp, lp.stmt, nil); fail != nil {
			return why("the loop at line %d cannot run in parallel: %s", l.fset.Position(lp.stmt.Pos()).Line, fail.reason)
		}
	}
	return callee
}

// bindings binds the parameters of callee to args, on top of the
// bindings of the body the call is in.
func (l *lowerer) bindings(callee *ssa.Function, args []ssa.Value) map[*ssa.Parameter]ssa.Value {
	bind := make(map[*ssa.Parameter]ssa.Value, len(l.bound)+len(args))
	for p, v := range l.bound {
		bind[p] = v
	}
	for i, p := range callee.Params {
		bind[p] = args[i]
	}
	return bind
}

// planHelper plans the body of a helper called at the top level.
func (l *lowerer) planHelper(call *ssa.Call, streamBlock int) []*taskPlan {
	callee := call.Common().StaticCallee()
	saved, savedResults := l.bound, l.results
	l.bound = l.bindings(callee, call.Common().Args)
	l.results = maps.Clone(savedResults) // the caller's, and this call's own
	l.planning = append(l.planning, callee)
	defer func() {
		l.bound, l.results = saved, savedResults
		l.planning = l.planning[:len(l.planning)-1]
	}()
	plans := l.planBody(callee, streamBlock)
	for _, p := range plans {
		if p.bind == nil {
			p.bind = l.bound
		}
		if p.results == nil {
			p.results = l.results
		}
	}
	return plans
}

// loopStmt is a loop and the statement it comes from.
type loopStmt struct {
	lp   *loop
	stmt ast.Stmt
}

// topLevelLoops returns the loops of fn that are top-level statements.
func topLevelLoops(fn *ssa.Function) []loopStmt {
	var loops []loopStmt
	stmts := bodyStmts(fn)
	for _, lp := range outermostLoops(fn) {
		if stmt := topLevelLoopStmt(lp, fn, stmts); stmt != nil {
			loops = append(loops, loopStmt{lp, stmt})
		}
	}
	return loops
}

// outer returns the registers of a value of the body a planned helper was
// called from: computed again in the task's prologue.
func (tb *taskBuilder) outer(f *frame, v ssa.Value) []ir.Reg {
	switch v := v.(type) {
	case *ssa.Parameter:
		return tb.param(f, v)
	case *ssa.Global:
		return tb.table(f, v)
	case *ssa.Const:
		saved := tb.cur
		tb.cur = tb.pro
		regs := f.constRegs(v)
		tb.pro, tb.cur = tb.cur, saved
		return regs
	}
	return tb.external(f, v)
}
