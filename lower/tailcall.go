package lower

import (
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// Kernels cannot recurse, but a call that returns what a function it is
// inlined into returns — a tail call through frames that are all tail
// calls — need not be a call: it assigns that function's parameters and
// jumps to its entry, as a loop would. math.Pow calls itself this way.

// tailRecursion returns the frame of the function v calls, when v calls a
// function it is already inlined into and the recursion is a tail call
// that can jump to that frame's entry.
func (f *frame) tailRecursion(v *ssa.Call, callee *ssa.Function) *frame {
	if callee == nil || !isTailCall(v) {
		return nil
	}
	for g := f; g != nil; g = g.parent {
		if g.fn == callee {
			if g.ownParams {
				return g
			}
			return nil
		}
		if !g.tail {
			return nil
		}
	}
	return nil
}

// jumpToEntry ends the current block with the jump of a tail call of g's
// function with args; the rest of the caller's block is not lowered.
func (f *frame) jumpToEntry(g *frame, args []ssa.Value) {
	var dsts []ir.Reg
	var srcs []ir.Arg
	for i, p := range g.fn.Params {
		dsts = append(dsts, g.vals[p]...)
		if c, ok := args[i].(*ssa.Const); ok {
			if t, ok := basicType(c.Type()); ok {
				srcs = append(srcs, ir.Imm(t, constBits(c, t)))
				continue
			}
		}
		for _, r := range f.regs(args[i]) {
			srcs = append(srcs, ir.R(r))
		}
	}
	if len(dsts) != len(srcs) {
		f.errorf(args[0].Pos(), "internal error: tail call with %d values for %d parameter registers", len(srcs), len(dsts))
		return
	}
	f.tb.parallelMove(dsts, srcs)
	f.tb.cur.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{g.start[g.fn.Blocks[0]].Index}}
	f.ended = true
}

// isTailCall reports whether the block of v returns v's results right
// after v, through extracts of them if v has several.
func isTailCall(v *ssa.Call) bool {
	instrs := v.Block().Instrs
	i := 0
	for instrs[i] != ssa.Instruction(v) {
		i++
	}
	rest := instrs[i+1:]
	ret, ok := rest[len(rest)-1].(*ssa.Return)
	if !ok {
		return false
	}
	extracts := rest[:len(rest)-1]
	if len(extracts) == 0 {
		return len(ret.Results) == 1 && ret.Results[0] == ssa.Value(v)
	}
	if len(extracts) != len(ret.Results) {
		return false
	}
	for j, e := range extracts {
		x, ok := e.(*ssa.Extract)
		if !ok || x.Tuple != ssa.Value(v) || x.Index != j || ret.Results[j] != ssa.Value(x) {
			return false
		}
	}
	return true
}

// mayRecurse reports whether fn can call itself through the static calls
// of functions with bodies.
func (l *lowerer) mayRecurse(fn *ssa.Function) bool {
	if r, ok := l.recursive[fn]; ok {
		return r
	}
	seen := map[*ssa.Function]bool{}
	var reaches func(g *ssa.Function) bool
	reaches = func(g *ssa.Function) bool {
		for _, b := range g.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok {
					continue
				}
				c := call.Common().StaticCallee()
				if c == fn {
					return true
				}
				if c != nil && !seen[c] {
					seen[c] = true
					if reaches(c) {
						return true
					}
				}
			}
		}
		return false
	}
	if l.recursive == nil {
		l.recursive = make(map[*ssa.Function]bool)
	}
	l.recursive[fn] = reaches(fn)
	return l.recursive[fn]
}
