package lower

import (
	"go/token"
	"go/types"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file lets a task use a local variable that an earlier top-level
// statement built, such as filter taps declared before a parallel loop:
//
//	taps := [3]float32{0.25, 0.5, 0.25}
//	for i := range out { ... taps[k] ... }
//
// Each task is a launch of its own and a thread's local memory does not
// outlive it, so the task builds the variable again in its prologue: the
// statements that build it are replayed there. That is exact when they
// run once, in one block, store only values any task can compute, and
// nothing writes the variable afterwards; later statements may read it.

// replayable reports whether the local variable alloc can be rebuilt in a
// later task, and records the instructions that build it, all in its
// block, in l.replays.
func (l *lowerer) replayable(alloc *ssa.Alloc) bool {
	if v, ok := l.replays[alloc]; ok {
		return v != nil
	}
	if l.replays == nil {
		l.replays = make(map[*ssa.Alloc]map[ssa.Instruction]bool)
	}
	l.replays[alloc] = nil // a cycle is not replayable
	set := map[ssa.Instruction]bool{}
	if !l.collectReplay(alloc, set) {
		return false
	}
	l.replays[alloc] = set
	return true
}

// collectReplay adds to set the instructions that build alloc, and reports
// whether they qualify.
func (l *lowerer) collectReplay(alloc *ssa.Alloc, set map[ssa.Instruction]bool) bool {
	b := alloc.Block()
	if b == nil || inAnyLoop(b) {
		l.replayFailure = "it is built in a loop"
		return false
	}
	if _, err := leaves(alloc.Type().Underlying().(*types.Pointer).Elem()); err != nil {
		l.replayFailure = err.Error()
		return false
	}
	set[alloc] = true
	var addrs func(v ssa.Value) bool
	addrs = func(v ssa.Value) bool {
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.FieldAddr, *ssa.IndexAddr:
				if r.Block() == b {
					set[r] = true
					if ix, ok := r.(*ssa.IndexAddr); ok && !l.replayValue(ix.Index, b, set) {
						return false
					}
				}
				if !addrs(r.(ssa.Value)) {
					return false
				}
			case *ssa.Store:
				if r.Addr != v || r.Block() != b {
					l.replayFailure = "it is changed after it is built, or built under a condition"
					return false
				}
				if !l.replayValue(r.Val, b, set) {
					l.replayFailure = "it is built from a value that depends on memory (such as a slice element) or on control flow, which a later launch cannot compute again"
					return false
				}
				set[r] = true
			case *ssa.UnOp: // a read
			case *ssa.DebugRef:
			case *ssa.MakeClosure:
				if !l.blockClosures[r] || !onlyReadIn(r, v) {
					l.replayFailure = "a function literal uses it"
					return false
				}
			default:
				l.replayFailure = "its address is passed on"
				return false
			}
		}
		return true
	}
	return addrs(alloc)
}

// whyNotReplayable says why alloc, found not replayable, is not.
func (l *lowerer) whyNotReplayable(alloc *ssa.Alloc) string {
	l.replayFailure = ""
	delete(l.replays, alloc)
	if l.replayable(alloc) || l.replayFailure == "" {
		return "it is built where a later launch cannot build it again"
	}
	return l.replayFailure
}

// replayValue reports whether a value stored into a replayed variable can
// be computed again, adding the instructions of block b that compute it to
// set: a pure value, or a copy of another replayable variable of b.
func (l *lowerer) replayValue(v ssa.Value, b *ssa.BasicBlock, set map[ssa.Instruction]bool) bool {
	instr, ok := v.(ssa.Instruction)
	if !ok || instr.Block() != b {
		return l.isPure(v)
	}
	if load, ok := v.(*ssa.UnOp); ok && load.Op == token.MUL {
		src, ok := load.X.(*ssa.Alloc)
		if !ok || !l.collectReplay(src, set) {
			return false
		}
		set[load] = true
		return true
	}
	if !l.isPure(v) {
		return false
	}
	set[instr] = true
	var ops [8]*ssa.Value
	for _, op := range instr.Operands(ops[:0]) {
		if *op != nil && !isCallee(instr, *op) && !l.replayValue(*op, b, set) {
			return false
		}
	}
	return true
}

// isCallee reports whether op is the function a call calls.
func isCallee(instr ssa.Instruction, op ssa.Value) bool {
	call, ok := instr.(*ssa.Call)
	return ok && call.Call.Value == op
}

// inAnyLoop reports whether b is in a loop of its function.
func inAnyLoop(b *ssa.BasicBlock) bool {
	for _, lp := range naturalLoops(b.Parent()) {
		if lp.contains(b) {
			return true
		}
	}
	return false
}

// replay rebuilds alloc in the task's prologue and returns its address.
// The rebuilding may add blocks to the prologue (an inlined call's), and
// it may be asked for while a value that reads alloc is being recomputed
// at the prologue's end, which then goes on after it (inPrologue).
func (tb *taskBuilder) replay(alloc *ssa.Alloc) []ir.Reg {
	set := tb.l.replays[alloc]
	b := alloc.Block()
	rf := tb.newFrame(b.Parent(), func(x *ssa.BasicBlock) bool { return x == b })
	var r []ir.Reg
	tb.inPrologue(func() {
		for _, instr := range b.Instrs {
			if set[instr] {
				rf.instr(instr)
			}
		}
		r = rf.regs(alloc)
	})
	tb.ext[alloc] = r
	return r
}

// readsBuiltLocal reports whether load reads a local variable that later
// tasks can rebuild, after the statements that build it: what it reads
// is then what a rebuilt copy holds.
func (l *lowerer) readsBuiltLocal(load *ssa.UnOp) bool {
	alloc := localRoot(load.X)
	if alloc == nil || !l.replayable(alloc) {
		return false
	}
	if load.Block() != alloc.Block() {
		return true // the variable's block runs whole before any other
	}
	at := indexOf(load)
	for instr := range l.replays[alloc] {
		if _, ok := instr.(*ssa.Store); ok && instr.Block() == load.Block() && indexOf(instr) > at {
			return false
		}
	}
	return true
}

// localRoot returns the local variable an address points into, following
// field and element addresses, or nil.
func localRoot(addr ssa.Value) *ssa.Alloc {
	for {
		switch a := addr.(type) {
		case *ssa.Alloc:
			return a
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			if _, ok := a.X.Type().Underlying().(*types.Pointer); !ok {
				return nil
			}
			addr = a.X
		default:
			return nil
		}
	}
}

// onlyReadIn reports whether the qd.StreamParallel block mc only reads
// through its free variable bound to v.
func onlyReadIn(mc *ssa.MakeClosure, v ssa.Value) bool {
	fn := mc.Fn.(*ssa.Function)
	for i, bound := range mc.Bindings {
		if bound == v && !onlyRead(fn.FreeVars[i]) {
			return false
		}
	}
	return true
}

// onlyRead reports whether every use of the address v, and of the
// addresses of its parts, is a load.
func onlyRead(v ssa.Value) bool {
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return false
			}
		case *ssa.FieldAddr, *ssa.IndexAddr:
			if !onlyRead(r.(ssa.Value)) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}
