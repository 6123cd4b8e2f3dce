package opt

import (
	"fmt"
	"slices"

	"github.com/qdgo/qd/ir"
)

// EliminateCommonSubexpressions computes a pure expression once where the
// same operation on the same operands was computed before on every path:
// the later instruction becomes a move of the earlier result. Both results
// and all register operands must be assigned once, by instructions that
// dominate their reads, so that equal names are equal values; commutative
// operations match with their operands in either order.
func EliminateCommonSubexpressions(t *ir.Task) {
	defs := defSites(t)
	dom := t.Dominators()
	single := singleDefs(t, defs, dom)
	type available struct {
		at  site
		reg ir.Reg
	}
	seen := map[string][]available{}
	for _, bi := range reversePostorder(t) {
		b := t.Blocks[bi]
		for i := range b.Instrs {
			x := &b.Instrs[i]
			key, ok := expressionKey(x, single)
			if !ok {
				continue
			}
			here := site{bi, i}
			replaced := false
			for _, a := range seen[key] {
				if dominates(dom, a.at, here) {
					*x = ir.Instr{Op: ir.OpMove, Type: x.ResultType(), Dst: x.Dst, Args: []ir.Arg{ir.R(a.reg)}, Pos: x.Pos}
					replaced = true
					break
				}
			}
			if !replaced {
				seen[key] = append(seen[key], available{here, x.Dst})
			}
		}
	}
}

// expressionKey names what a pure instruction computes, when it may be
// shared.
func expressionKey(x *ir.Instr, single []bool) (string, bool) {
	info := x.Op.Info()
	if !info.Pure || x.Op == ir.OpMove || x.Op == ir.OpConst || x.Dst == ir.NoReg || !single[x.Dst] {
		return "", false
	}
	args := slices.Clone(x.Args)
	for _, a := range args {
		if !a.Imm && !single[a.Reg] {
			return "", false
		}
	}
	if info.Commutative && len(args) == 2 && fmt.Sprint(args[0]) > fmt.Sprint(args[1]) {
		args[0], args[1] = args[1], args[0]
	}
	return fmt.Sprint(x.Op, x.Type, x.From, x.Aux, args), true
}

// reversePostorder lists the reachable blocks so that each comes after
// the blocks that dominate it.
func reversePostorder(t *ir.Task) []int {
	seen := make([]bool, len(t.Blocks))
	var post []int
	var visit func(int)
	visit = func(b int) {
		seen[b] = true
		for _, s := range t.Blocks[b].Term.Successors() {
			if !seen[s] {
				visit(s)
			}
		}
		post = append(post, b)
	}
	visit(0)
	slices.Reverse(post)
	return post
}
