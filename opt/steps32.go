package opt

import (
	"math"
	"slices"

	"github.com/qdgo/qd/ir"
)

// NarrowPointerSteps lets the pointers that ReduceStrength steps by a
// stride in a register advance in one instruction where the stride fits
// in 32 bits. Its step in bytes, n·size for a 64-bit n such as a matrix's
// row length in a walk down a column (a[i*n+j] in i's loop), is a 64-bit
// value, and adding it takes the GPU two instructions; written as the
// product of n's low 32 bits, sign-extended, and the size, the backend
// multiplies it in one wide multiply, which ptxas then folds into every
// step: p += n·size is one wide multiply-add, as in nvcc's code for int
// indices.
//
// A loop's fixed offsets from its pointers, such as a stencil's
// in[p-w] and in[p+w] read from one stepped pointer as p·4 ± w·4, or a
// grid-unrolled body's later iterations at p + count·8, are products of
// the same kind and narrow the same way: each address is then one wide
// multiply-add from the pointer where a 64-bit add of an offset ptxas
// must keep in two registers, or make again, took several (Daxpy's
// unrolled loop went from 52 instructions to 40).
//
// Whether n fits is a test on the loop's entry edge, one comparison a
// stride. The loop must have the copy that HoistChecks keeps with its
// checks, which every input runs correctly, and a choice before it that
// enters that copy: the test sends the rare thread whose stride does not
// fit there too, so no code is copied for it.
func NarrowPointerSteps(t *ir.Task) {
	for _, lp := range ir.Innermost(t.Loops()) {
		narrowSteps(t, lp)
	}
}

// pointerStep is a stride the loop's pointers step by: bytes = n·size,
// assigned once, in the block before the loop.
type pointerStep struct {
	bytes, n ir.Reg
	size     uint64
}

func narrowSteps(t *ir.Task, lp *ir.Loop) {
	fallback := t.Blocks[lp.Header].Fallback
	if fallback == 0 {
		return
	}
	preds := t.Preds()
	pre, ok := soleEntry(t, preds, lp)
	if !ok {
		return
	}
	other, ok := fallbackEntry(t, preds, pre, fallback)
	if !ok {
		return
	}
	defs := defSites(t)
	if !freshDefs(t, defs, pre, lp) {
		return
	}
	steps := loopSteps(t, lp, defs, pre)
	if len(steps) == 0 {
		return
	}
	guard := t.NewBlock("pointer steps")
	ok32 := ir.Imm(ir.Bool, 1)
	narrowed := map[ir.Reg]ir.Reg{}
	// Products of one n (a grid-unrolled body's offsets, n·8, n·16, ...)
	// share its test and its extended low half, and copies of one product
	// its narrowed value.
	type product struct {
		n    ir.Reg
		size uint64
	}
	made := map[product]ir.Reg{}
	extended := map[ir.Reg]ir.Reg{}
	for _, s := range steps {
		if r, ok := made[product{s.n, s.size}]; ok {
			narrowed[s.bytes] = r
			continue
		}
		wide, ok := extended[s.n]
		if !ok {
			low, fits := t.NewReg(ir.Int32), t.NewReg(ir.Bool)
			wide = t.NewReg(ir.Int64)
			guard.Instrs = append(guard.Instrs,
				ir.Instr{Op: ir.OpConvert, Type: ir.Int32, From: ir.Int64, Dst: low, Args: []ir.Arg{ir.R(s.n)}},
				ir.Instr{Op: ir.OpConvert, Type: ir.Int64, From: ir.Int32, Dst: wide, Args: []ir.Arg{ir.R(low)}},
				ir.Instr{Op: ir.OpEq, Type: ir.Int64, Dst: fits, Args: []ir.Arg{ir.R(wide), ir.R(s.n)}})
			if ok32.Imm {
				ok32 = ir.R(fits)
			} else {
				all := t.NewReg(ir.Bool)
				guard.Instrs = append(guard.Instrs, ir.Instr{Op: ir.OpAnd, Type: ir.Bool, Dst: all, Args: []ir.Arg{ok32, ir.R(fits)}})
				ok32 = ir.R(all)
			}
			extended[s.n] = wide
		}
		bytes := t.NewReg(ir.Int64)
		guard.Instrs = append(guard.Instrs,
			ir.Instr{Op: ir.OpMul, Type: ir.Int64, Dst: bytes, Args: []ir.Arg{ir.R(wide), ir.Imm(ir.Int64, s.size)}})
		narrowed[s.bytes] = bytes
		made[product{s.n, s.size}] = bytes
	}
	guard.Term = ir.Term{Kind: ir.Branch, Cond: ok32, Succs: [2]int{lp.Header, other}}
	redirect(t.Blocks[pre], lp.Header, guard.Index)
	for _, bi := range lp.Blocks() {
		for i := range t.Blocks[bi].Instrs {
			in := &t.Blocks[bi].Instrs[i]
			if isPointerOffset(in) {
				if r, ok := narrowed[in.Args[1].Reg]; ok {
					in.Args[1] = ir.R(r)
				}
			}
		}
	}
}

// soleEntry is the one block outside lp that enters it, ending in a jump.
func soleEntry(t *ir.Task, preds [][]int, lp *ir.Loop) (int, bool) {
	var outside []int
	for _, p := range preds[lp.Header] {
		if !lp.Has(p) {
			outside = append(outside, p)
		}
	}
	if len(outside) != 1 || t.Blocks[outside[0]].Term.Kind != ir.Jump {
		return 0, false
	}
	return outside[0], true
}

// fallbackEntry finds where the choice that enters pre goes instead: the
// copy with checks, whose header is fallback, or the block that only
// jumps to it. The choice is pre's one predecessor.
func fallbackEntry(t *ir.Task, preds [][]int, pre, fallback int) (int, bool) {
	if len(preds[pre]) != 1 {
		return 0, false
	}
	choice := t.Blocks[preds[pre][0]].Term
	if choice.Kind != ir.Branch {
		return 0, false
	}
	for _, s := range choice.Succs {
		b := t.Blocks[s]
		if s != pre && (s == fallback || b.Term.Kind == ir.Jump && b.Term.Succs[0] == fallback) {
			return s, true
		}
	}
	return 0, false
}

// freshDefs reports whether every register that block bi assigns is
// assigned nowhere but there and in lp (as a pointer the loop steps is):
// then the copy with checks, entered from the choice before bi, reads
// none of them, and entering it after bi instead changes nothing it
// computes.
func freshDefs(t *ir.Task, defs [][]site, bi int, lp *ir.Loop) bool {
	for _, in := range t.Blocks[bi].Instrs {
		for _, d := range in.Defs() {
			if slices.ContainsFunc(defs[d], func(s site) bool { return s.block != bi && !lp.Has(s.block) }) {
				return false
			}
		}
	}
	return true
}

// loopSteps lists the strides and offsets in registers that lp's
// pointers step by or are read at ("p = elemaddr p, bytes, 1", "q =
// elemaddr p, bytes, 1"), where bytes is assigned once, in pre, as n
// times a constant size, from a 64-bit n that pre does not change after,
// or as a copy of such a product made before pre, from an n assigned only
// there before it.
func loopSteps(t *ir.Task, lp *ir.Loop, defs [][]site, pre int) []pointerStep {
	dom := t.Dominators()
	var steps []pointerStep
	for _, bi := range lp.Blocks() {
		for _, in := range t.Blocks[bi].Instrs {
			if !isPointerOffset(&in) || slices.ContainsFunc(steps, func(s pointerStep) bool { return s.bytes == in.Args[1].Reg }) {
				continue
			}
			bytes := in.Args[1].Reg
			if len(defs[bytes]) != 1 || defs[bytes][0].block != pre {
				continue
			}
			if n, size, ok := stepProduct(t, lp, defs, dom, defs[bytes][0]); ok {
				steps = append(steps, pointerStep{bytes: bytes, n: n, size: size})
			}
		}
	}
	return steps
}

// stepProduct finds the n and size of a product n·size assigned at def
// in the loop's preheader, directly or through one copy, where the test
// after the preheader reads the n the product was made from.
func stepProduct(t *ir.Task, lp *ir.Loop, defs [][]site, dom []ir.BlockSet, def site) (ir.Reg, uint64, bool) {
	pre := def.block
	mul := t.Blocks[pre].Instrs[def.at]
	copied := mul.Op == ir.OpMove && mul.Type == ir.Int64 && !mul.Args[0].Imm
	if copied {
		src := defs[mul.Args[0].Reg]
		if len(src) != 1 || lp.Has(src[0].block) || !dominates(dom, src[0], def) {
			return 0, 0, false
		}
		def = src[0]
		mul = t.Blocks[def.block].Instrs[def.at]
	}
	// Not elements of one byte: constant propagation turns n·1 into a
	// copy of n, whose width the backend no longer sees.
	size := int64(mul.Args[1].Bits)
	if mul.Op != ir.OpMul || mul.Type != ir.Int64 || mul.Args[0].Imm || !mul.Args[1].Imm || size > -2 && size < 2 || size < math.MinInt32 || size > math.MaxInt32 {
		return 0, 0, false
	}
	n := mul.Args[0].Reg
	if t.Regs[n] != ir.Int64 {
		return 0, 0, false
	}
	if !copied {
		if slices.ContainsFunc(defs[n], func(d site) bool { return d.block == pre && d.at > def.at }) {
			return 0, 0, false
		}
		return n, uint64(size), true
	}
	// A product made before the preheader: n must hold at the test what it
	// held there, so it is assigned once, before the product.
	if len(defs[n]) != 1 || !dominates(dom, defs[n][0], def) {
		return 0, 0, false
	}
	return n, uint64(size), true
}

// isPointerOffset reports whether in is "q = elemaddr p, r, 1", a pointer
// and an offset in bytes in a register; a step of p when q is p.
func isPointerOffset(in *ir.Instr) bool {
	return in.Op == ir.OpElemAddr && in.Aux == 1 && !in.Args[0].Imm && !in.Args[1].Imm
}
