package opt

import (
	"fmt"
	"slices"

	"github.com/qdgo/qd/ir"
)

// EliminateCommonSubexpressions computes a pure expression once where the
// same operation on the same operands was computed before on every path:
// the later instruction becomes a move of the earlier result. A load of
// the same address earlier in the same block, with no write to memory
// between, is shared too: go/ssa loads x[i] twice for x[i]*x[i], and
// another thread may not write it meanwhile, which the analyzer's check of
// conflicting iterations rules out. Both results must be assigned once;
// so must their register operands, by instructions that dominate their
// reads, so that equal names are equal values, or else the two must be in
// one block with no assignment of the operand between them, as the two
// i*n+k of a[i*n+k]*a[i*n+k] in a loop over k. Commutative operations
// match with their operands in either order.
func EliminateCommonSubexpressions(t *ir.Task) {
	defs := defSites(t)
	dom := t.Dominators()
	single := singleDefs(t, defs, dom)
	type available struct {
		at  site
		reg ir.Reg
	}
	seen := map[string][]available{}
	source := copySource(t, defs, single)
	for _, bi := range reversePostorder(t) {
		b := t.Blocks[bi]
		// The memory writes so far in b, which end what loads can share: a
		// thread's local memory is written only by its stores, which no
		// other space's loads see.
		writes, localWrites := 0, 0
		assigned := map[ir.Reg]int{} // assignments so far in b of registers assigned more than once
		name := func(a ir.Arg) ir.Arg {
			if a.Imm || single[a.Reg] {
				return source(a)
			}
			return a
		}
		local := func(a ir.Arg) string {
			if a.Imm || single[a.Reg] {
				return ""
			}
			return fmt.Sprintf(" r%d@b%d.%d", a.Reg, bi, assigned[a.Reg])
		}
		for i := range b.Instrs {
			x := &b.Instrs[i]
			switch info := x.Op.Info(); {
			case x.Op == ir.OpStore && x.Space == ir.Local:
				localWrites++
			case info.Memory.Writes() || info.SideEffects && !info.Checks:
				writes++
			}
			key, ok := expressionKey(x, single, name, local)
			switch {
			case x.Op == ir.OpLoad && x.Space == ir.Local:
				key, ok = loadKey(x, single, name, local, bi, localWrites)
			case x.Op == ir.OpLoad:
				key, ok = loadKey(x, single, name, local, bi, writes)
			}
			if x.Dst != ir.NoReg && !single[x.Dst] {
				assigned[x.Dst]++
			}
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
func expressionKey(x *ir.Instr, single []bool, source func(ir.Arg) ir.Arg, local func(ir.Arg) string) (string, bool) {
	info := x.Op.Info()
	if !info.Pure || x.Op == ir.OpMove || x.Op == ir.OpConst || x.Dst == ir.NoReg || !single[x.Dst] {
		return "", false
	}
	args := make([]string, len(x.Args))
	for j, a := range x.Args {
		args[j] = fmt.Sprint(source(a)) + local(a)
	}
	if info.Commutative && len(args) == 2 && args[0] > args[1] {
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

// loadKey names a load, which may share the result of the same load
// earlier in block b after the same number of memory writes.
func loadKey(x *ir.Instr, single []bool, source func(ir.Arg) ir.Arg, local func(ir.Arg) string, b, writes int) (string, bool) {
	if x.Dst == ir.NoReg || !single[x.Dst] {
		return "", false
	}
	return fmt.Sprint("load", x.Type, x.Space, source(x.Args[0]), local(x.Args[0]), b, writes), true
}

// copySource returns, for an operand, the operand it is a copy of: a move
// of a register assigned once names the same value, so keys use the
// register (or immediate) it copies.
func copySource(t *ir.Task, defs [][]site, single []bool) func(ir.Arg) ir.Arg {
	return func(a ir.Arg) ir.Arg {
		for range 16 {
			if a.Imm || !single[a.Reg] {
				return a
			}
			d := defs[a.Reg][0]
			x := t.Blocks[d.block].Instrs[d.at]
			if x.Op != ir.OpMove || !x.Args[0].Imm && !single[x.Args[0].Reg] {
				return a
			}
			a = x.Args[0]
		}
		return a
	}
}
