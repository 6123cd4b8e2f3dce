package lower

import (
	"go/ast"
	"go/constant"
	"go/token"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// A taskPlan is one task of a kernel body before its IR is built: either a
// parallel loop, or a serial segment of blocks between loops.
type taskPlan struct {
	kind ir.TaskKind
	loop *parLoop      // parallel and block-level tasks
	nest *blockNest    // block-level tasks
	fn   *ssa.Function // the kernel, or a qd.StreamParallel block's function

	// Serial tasks: the segment's blocks, its entry first. The task starts
	// at instruction from of blocks[0] and ends before instruction cutAt of
	// cut, whose remaining instructions and terminator belong to what comes
	// next (nil cut: the segment ends where the function returns).
	blocks []*ssa.BasicBlock
	from   int
	cut    *ssa.BasicBlock
	cutAt  int

	// streamBlock is the number of the qd.StreamParallel block the task
	// belongs to, or 0 for the launching stream.
	streamBlock int
	pos         token.Pos
	// bind holds what the parameters of the helpers the task's body was
	// planned in stand for (inlineplan.go).
	bind map[*ssa.Parameter]ssa.Value
	// results are the reductions whose results the task may read, by the
	// values that stand for them: a helper planned at several calls has
	// reductions of its own at each.
	results map[ssa.Value]*reduction
}

// parLoop is a top-level counted loop whose iterations run in parallel.
//
// Every counted loop go/ssa builds has an induction phi φ in its header,
// entered with init and advanced by φ+1 on each back edge, and one exit test
// X < bound with X either φ or φ+1. Iteration k runs with φ = init+k, and it
// runs exactly when init+k+delta < bound, where delta is 1 when the test
// checks φ+1 before the body (range over a slice) and 0 otherwise (range
// over an int, whose test of φ+1 at the latch is preceded by a pretest of
// init in the block before the loop; and three-clause loops, which test φ).
type parLoop struct {
	lp      *loop
	pre     *ssa.BasicBlock // the block outside the loop that enters it
	pretest bool            // pre's If is the loop's pretest and belongs to the loop
	exit    *ssa.BasicBlock // where the loop's exits land
	phi     *ssa.Phi
	init    ssa.Value
	bound   ssa.Value
	delta   int64
	pos     token.Pos
	// inner holds the loops perfectly nested in this one that share its
	// iterations' index space (nest.go), outermost first.
	inner []*parLoop
	test  *ssa.If // the exit test
	// inclusive says the exit test is index <= bound, which only an
	// inner level of a nest may have (nest.go).
	inclusive bool
	// shaped marks an inner level of a nest whose iterations are not
	// simply those of its bounds fixed before the nest: bounds that
	// follow the index of a level outside it (lower, upper), or an
	// inclusive test. It runs over a rectangle that holds all of them,
	// and each iteration tests its own bounds (nest.go).
	shaped       bool
	lower, upper affineBound
	// reductions are the variables the loop combines over its iterations.
	reductions []*reduction
}

// bodyStmts returns the statements at the top level of fn's body.
func bodyStmts(fn *ssa.Function) []ast.Stmt {
	switch syn := fn.Syntax().(type) {
	case *ast.FuncDecl:
		if syn.Body != nil {
			return syn.Body.List
		}
	case *ast.FuncLit:
		return syn.Body.List
	}
	return nil
}

// unlabel strips labels from a statement.
func unlabel(s ast.Stmt) ast.Stmt {
	for {
		ls, ok := s.(*ast.LabeledStmt)
		if !ok {
			return s
		}
		s = ls.Stmt
	}
}

// topLevelLoopStmt returns the top-level for or range statement of stmts
// that lp was built from, or nil when lp comes from a loop nested in another
// statement (such a loop runs serially).
func topLevelLoopStmt(lp *loop, fn *ssa.Function, stmts []ast.Stmt) ast.Stmt {
	for _, b := range fn.Blocks {
		if !lp.contains(b) {
			continue
		}
		for _, instr := range b.Instrs {
			pos := instr.Pos()
			if _, isPhi := instr.(*ssa.Phi); isPhi || !pos.IsValid() {
				continue // a phi has the position of its variable's declaration
			}
			for _, s := range stmts {
				if pos < s.Pos() || pos >= s.End() {
					continue
				}
				switch u := unlabel(s).(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					return u
				}
				return nil
			}
		}
	}
	return nil
}

// loopStmtOf returns the outermost for or range statement of fn that holds
// an instruction of lp.
func loopStmtOf(lp *loop, fn *ssa.Function) ast.Stmt {
	var pos token.Pos
	for _, b := range fn.Blocks {
		if lp.contains(b) {
			if p := blockPos(b, nil); p.IsValid() && (!pos.IsValid() || p < pos) {
				pos = p
			}
		}
	}
	var found ast.Stmt
	if syn := fn.Syntax(); syn != nil && pos.IsValid() {
		ast.Inspect(syn, func(n ast.Node) bool {
			if found != nil || n == nil || pos < n.Pos() || pos >= n.End() {
				return false
			}
			switch s := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				found = s.(ast.Stmt)
				return false
			case *ast.FuncLit:
				return n == syn
			}
			return true
		})
	}
	return found
}

// planBody cuts the body of fn (the kernel, or a qd.StreamParallel block,
// numbered streamBlock) into tasks.
func (l *lowerer) planBody(fn *ssa.Function, streamBlock int) []*taskPlan {
	l.checkReturns(fn)
	if l.checkEndless(fn) {
		return nil // what follows such a loop would be reported in vain
	}
	stmts := bodyStmts(fn)
	var loops []*parLoop
	nests := map[*parLoop]*blockNest{}
	for _, lp := range outermostLoops(fn) {
		stmt := topLevelLoopStmt(lp, fn, stmts)
		if stmt == nil {
			l.serialLoop(fn, lp, stmts)
			continue
		}
		if pl := l.recognizeLoop(fn, lp, stmt); pl != nil {
			if _, marker := blockMarker(pl.bound); marker == "Blocks" {
				if bn := l.planBlocks(fn, pl, stmt); bn != nil {
					nests[pl] = bn
					loops = append(loops, pl)
				}
				continue
			}
			pl.inner = l.nestedLevels(fn, pl, stmt)
			loops = append(loops, pl)
		}
	}
	if len(l.diags) > 0 {
		return nil
	}
	// Top-level loops lie on every path, so their entries are ordered by
	// dominance; order them so.
	for i := 1; i < len(loops); i++ {
		for j := i; j > 0 && loops[j].pre.Dominates(loops[j-1].pre); j-- {
			loops[j], loops[j-1] = loops[j-1], loops[j]
		}
	}
	inLoop := make([]bool, len(fn.Blocks))
	for _, pl := range loops {
		for _, b := range fn.Blocks {
			inLoop[b.Index] = inLoop[b.Index] || pl.lp.contains(b)
		}
	}
	var plans []*taskPlan
	start := fn.Blocks[0]
	for _, pl := range loops {
		plans = append(plans, l.segments(fn, start, 0, pl.pre, len(pl.pre.Instrs)-1, inLoop, streamBlock)...)
		p := &taskPlan{kind: ir.Parallel, loop: pl, fn: fn, pos: pl.pos, streamBlock: streamBlock}
		if bn := nests[pl]; bn != nil {
			p.kind, p.nest = ir.BlockLevel, bn
		}
		plans = append(plans, p)
		start = pl.exit
	}
	plans = append(plans, l.segments(fn, start, 0, nil, 0, inLoop, streamBlock)...)
	return plans
}

// segments returns the serial tasks from instruction from of block start
// to instruction cutAt of block cut (or to the function's return), cut
// further at each top-level qd.StreamParallel statement, whose blocks'
// tasks go in between.
func (l *lowerer) segments(fn *ssa.Function, start *ssa.BasicBlock, from int, cut *ssa.BasicBlock, cutAt int, inLoop []bool, streamBlock int) []*taskPlan {
	seg := l.segment(fn, start, from, cut, cutAt, inLoop, streamBlock)
	calls := l.topLevelCalls(fn, seg)
	if len(calls) == 0 {
		return []*taskPlan{seg}
	}
	var plans []*taskPlan
	for _, c := range calls {
		plans = append(plans, l.segment(fn, start, from, c.Block(), indexOf(c), inLoop, streamBlock))
		if streamParallelCallee(c) {
			plans = append(plans, l.planBlock(c)...)
		} else {
			plans = append(plans, l.planHelper(c, streamBlock)...)
		}
		start, from = c.Block(), indexOf(c)+1
	}
	return append(plans, l.segment(fn, start, from, cut, cutAt, inLoop, streamBlock))
}

func indexOf(instr ssa.Instruction) int {
	for i, in := range instr.Block().Instrs {
		if in == instr {
			return i
		}
	}
	return -1
}

// segment collects the blocks from instruction from of start up to
// instruction cutAt of cut, or to the function's return when cut is nil,
// as a serial task.
func (l *lowerer) segment(fn *ssa.Function, start *ssa.BasicBlock, from int, cut *ssa.BasicBlock, cutAt int, inLoop []bool, streamBlock int) *taskPlan {
	tp := &taskPlan{kind: ir.Serial, fn: fn, from: from, cut: cut, cutAt: cutAt, streamBlock: streamBlock}
	seen := make([]bool, len(fn.Blocks))
	stack := []*ssa.BasicBlock{start}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b.Index] {
			continue
		}
		if inLoop[b.Index] {
			l.errorf(blockPos(b, fn), "internal error: unexpected control flow between the kernel's top-level statements (a goto across a top-level loop?)")
			return tp
		}
		seen[b.Index] = true
		tp.blocks = append(tp.blocks, b)
		if b == cut {
			continue
		}
		stack = append(stack, b.Succs...)
	}
	// Keep the entry first and the rest in the function's block order.
	rest := tp.blocks[1:]
	for i := 1; i < len(rest); i++ {
		for j := i; j > 0 && rest[j].Index < rest[j-1].Index; j-- {
			rest[j], rest[j-1] = rest[j-1], rest[j]
		}
	}
	for _, b := range tp.blocks {
		if p := blockPos(b, nil); p.IsValid() && (!tp.pos.IsValid() || p < tp.pos) {
			tp.pos = p
		}
	}
	if !tp.pos.IsValid() {
		tp.pos = fn.Pos()
	}
	return tp
}

// blockPos is the first valid position of an instruction of b, or fn's.
func blockPos(b *ssa.BasicBlock, fn *ssa.Function) token.Pos {
	for _, instr := range b.Instrs {
		if p := instr.Pos(); p.IsValid() {
			return p
		}
	}
	if fn != nil {
		return fn.Pos()
	}
	return token.NoPos
}

// serialLoop tells where an outermost loop of fn that is not a statement
// of its body runs: on one thread. Inside a top-level if or switch that is
// rarely meant, and the same loop with the test inside it runs in
// parallel, so that is a warning; elsewhere a note.
func (l *lowerer) serialLoop(fn *ssa.Function, lp *loop, stmts []ast.Stmt) {
	nested := loopStmtOf(lp, fn)
	if nested == nil {
		return
	}
	for _, s := range stmts {
		if nested.Pos() < s.Pos() || nested.Pos() >= s.End() {
			continue
		}
		kind := ""
		switch s.(type) {
		case *ast.IfStmt:
			kind = "an if"
		case *ast.SwitchStmt, *ast.TypeSwitchStmt:
			kind = "a switch"
		}
		if kind != "" {
			l.warn(nested.Pos(), "this loop runs serially, on one GPU thread, because it is inside %s statement: only loops that are statements of the kernel's body run in parallel; put the test inside the loop instead (for i := range n { if cond { ... } }), which keeps the loop parallel", kind)
			return
		}
	}
	l.note(nested.Pos(), "this loop runs serially, on one thread: it is inside another statement; only loops that are statements of the kernel's body (or of a helper called as one) run in parallel")
}

// checkReturns rejects return statements before the end of a kernel body:
// the top-level statements after them run as separate launches, which a
// return on the device cannot skip.
func (l *lowerer) checkReturns(fn *ssa.Function) {
	for _, r := range earlyReturns(fn) {
		l.errorf(r.Pos(), "return before the end of a kernel is not supported: its top-level statements run as separate GPU launches that a return cannot skip; test the condition inside each loop that follows instead (for i := range n { if !done { ... } }), which keeps the loop parallel (a loop inside an if runs on one GPU thread)")
	}
}

// earlyReturns returns the return statements of fn before the end of its
// body.
func earlyReturns(fn *ssa.Function) []*ssa.Return {
	var last token.Pos
	if stmts := bodyStmts(fn); len(stmts) > 0 {
		if r, ok := stmts[len(stmts)-1].(*ast.ReturnStmt); ok {
			last = r.Pos()
		}
	}
	var early []*ssa.Return
	for _, b := range fn.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && r.Pos().IsValid() && r.Pos() != last {
			early = append(early, r)
		}
	}
	return early
}

// findBreak finds a break statement that leaves the loop stmt.
func findBreak(stmt ast.Stmt) *ast.BranchStmt {
	var found *ast.BranchStmt
	var body *ast.BlockStmt
	switch s := stmt.(type) {
	case *ast.ForStmt:
		body = s.Body
	case *ast.RangeStmt:
		body = s.Body
	}
	if body == nil {
		return nil
	}
	depth := 0 // nesting of statements an unlabeled break would leave instead
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			depth++
			ast.Inspect(n, func(m ast.Node) bool {
				if m == n {
					return true
				}
				return visit(m)
			})
			depth--
			return false
		case *ast.BranchStmt:
			if n.Tok == token.BREAK && (n.Label != nil || depth == 0) || n.Tok == token.GOTO {
				found = n
			}
		}
		return true
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if n == body {
			return true
		}
		return visit(n)
	})
	return found
}

func isIntegerType(v ssa.Value) bool {
	t, ok := basicType(v.Type())
	return ok && t.IsInteger()
}

// inductionInit reports whether phi, in the header of lp, is an induction
// variable advanced by 1 on every back edge, and returns its initial value.
func inductionInit(phi *ssa.Phi, lp *loop) (ssa.Value, bool) {
	var init ssa.Value
	for i, e := range phi.Edges {
		pred := phi.Block().Preds[i]
		if lp.contains(pred) {
			add, ok := e.(*ssa.BinOp)
			if !ok || add.Op != token.ADD {
				return nil, false
			}
			if !(add.X == ssa.Value(phi) && isConstInt(add.Y, 1) || add.Y == ssa.Value(phi) && isConstInt(add.X, 1)) {
				return nil, false
			}
			continue
		}
		if init != nil && !sameValue(init, e) {
			return nil, false
		}
		init = e
	}
	return init, init != nil
}

// indexTest matches a condition "x < bound" or "bound > x". If phi is not
// nil, x must be phi or phi+1.
func indexTest(cond ssa.Value, phi *ssa.Phi) (x, bound ssa.Value, ok bool) {
	bin, isBin := cond.(*ssa.BinOp)
	if !isBin {
		return nil, nil, false
	}
	switch bin.Op {
	case token.LSS:
		x, bound = bin.X, bin.Y
	case token.GTR:
		x, bound = bin.Y, bin.X
	default:
		return nil, nil, false
	}
	if phi == nil {
		return x, bound, true
	}
	if x == ssa.Value(phi) {
		return x, bound, true
	}
	if add, isAdd := x.(*ssa.BinOp); isAdd && add.Op == token.ADD &&
		(add.X == ssa.Value(phi) && isConstInt(add.Y, 1) || add.Y == ssa.Value(phi) && isConstInt(add.X, 1)) {
		return x, bound, true
	}
	return nil, nil, false
}

// inclusiveTest matches a condition "phi <= bound" or "bound >= phi".
func inclusiveTest(cond ssa.Value, phi *ssa.Phi) (bound ssa.Value, ok bool) {
	bin, isBin := cond.(*ssa.BinOp)
	switch {
	case !isBin:
	case bin.Op == token.LEQ && bin.X == ssa.Value(phi):
		return bin.Y, true
	case bin.Op == token.GEQ && bin.Y == ssa.Value(phi):
		return bin.X, true
	}
	return nil, false
}

func isConstInt(v ssa.Value, n int64) bool {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return false
	}
	i, exact := constant.Int64Val(c.Value)
	return exact && i == n
}

// sameValue reports whether a and b are the same value: the same SSA value,
// or equal constants.
func sameValue(a, b ssa.Value) bool {
	if a == b {
		return true
	}
	ca, ok1 := a.(*ssa.Const)
	cb, ok2 := b.(*ssa.Const)
	return ok1 && ok2 && ca.Value != nil && cb.Value != nil &&
		constant.Compare(ca.Value, token.EQL, cb.Value)
}

// invariant reports whether v has the same value in every iteration of lp:
// it is defined outside lp, or is a pure function of such values.
func (l *lowerer) invariant(v ssa.Value, lp *loop) bool {
	instr, ok := v.(ssa.Instruction)
	if !ok || instr.Block() == nil || !lp.contains(instr.Block()) {
		return true
	}
	if _, ok := v.(*ssa.Phi); ok || !l.isPure(v) {
		return false
	}
	var ops [8]*ssa.Value
	for _, op := range instr.Operands(ops[:0]) {
		if *op != nil && !l.invariant(*op, lp) {
			return false
		}
	}
	return true
}
