package opt

import (
	"fmt"
	"slices"

	"github.com/qdgo/qd/ir"
)

// SplitAddressOffsets computes the addresses of neighbouring elements, like
// in[p-1], in[p+1], in[p-w] and in[p] in a stencil, from one element
// address and offsets: &in[p-1] becomes &in[p] - 4, which the emitter folds
// into the load, and &in[p-w] becomes &in[p] + w*-4, whose multiplication
// does not change in the loop and leaves it. nvcc's code addresses
// neighbours the same way; computed apart, each address costs a 64-bit
// multiply-add of its own.
//
// An index is split into a root and offsets by following additions and
// subtractions of constants, and of values that the innermost loop around
// the address does not change while the root does. Constant offsets are
// always split off, since they cost nothing in a load; offsets in registers
// only where another address of the same slice has the same root, so that
// the element address of the root is shared. Pointer arithmetic wraps
// modulo 2^64, so the address is the same bits either way.
func SplitAddressOffsets(t *ir.Task) {
	defs := defSites(t)
	single := singleDefs(t, defs, t.Dominators())
	source := copySource(t, defs, single)
	loopOf := innermostLoopOf(t)
	invariants := map[*ir.Loop]func(ir.Reg) bool{}
	varies := func(lp *ir.Loop, a ir.Arg) bool {
		if a.Imm {
			return false
		}
		if lp == nil {
			return true // outside loops only constants are offsets
		}
		if invariants[lp] == nil {
			invariants[lp] = loopInvariants(t, defs, single, lp)
		}
		return !invariants[lp](a.Reg)
	}
	splits := map[site]splitIndex{}
	groups := map[string]int{}
	for bi, b := range t.Blocks {
		lp := loopOf[bi]
		for i := range b.Instrs {
			x := &b.Instrs[i]
			if x.Op != ir.OpElemAddr || x.Args[1].Imm {
				continue
			}
			s := splitOf(t, defs, single, source, x.Args[1], func(a ir.Arg) bool { return varies(lp, a) })
			s.key = fmt.Sprint(source(x.Args[0]), x.Aux, s.root, loopHeader(lp))
			groups[s.key]++
			if s.constant != 0 || len(s.terms) > 0 {
				splits[site{bi, i}] = s
			}
		}
	}
	for bi, b := range t.Blocks {
		var out []ir.Instr
		for i, x := range b.Instrs {
			s, ok := splits[site{bi, i}]
			if ok && len(s.terms) > 0 && groups[s.key] < 2 {
				// No other address shares the root: only the constants
				// taken before the first term split off.
				s.root, s.constant, s.terms = s.beforeTerms, s.constantBeforeTerms, nil
				ok = s.constant != 0
			}
			if !ok {
				out = append(out, x)
				continue
			}
			out = append(out, splitAddress(t, x, s)...)
		}
		b.Instrs = out
	}
}

// splitIndex is an index as root + terms + constant, and as beforeTerms +
// constantBeforeTerms, what it was split into when the first term was
// found, for an address whose terms are not split off.
type splitIndex struct {
	root                ir.Arg
	terms               []offsetTerm
	constant            int64
	key                 string
	beforeTerms         ir.Arg
	constantBeforeTerms int64
}

// offsetTerm is a register added to an index, or subtracted from it.
type offsetTerm struct {
	reg      ir.Reg
	negative bool
}

// splitOf follows index through additions and subtractions of constants,
// and of values that do not vary while the rest does.
func splitOf(t *ir.Task, defs [][]site, single []bool, source func(ir.Arg) ir.Arg, index ir.Arg, varies func(ir.Arg) bool) splitIndex {
	s := splitIndex{root: source(index)}
	var terms []offsetTerm
	for range 8 {
		a := s.root
		if a.Imm || !single[a.Reg] {
			break
		}
		// The root and terms must name one value wherever they are read,
		// since they are read again at the address.
		d := defs[a.Reg][0]
		x := t.Blocks[d.block].Instrs[d.at]
		if (x.Op != ir.OpAdd && x.Op != ir.OpSub) || x.Type != ir.Int64 {
			break
		}
		left, right := source(x.Args[0]), source(x.Args[1])
		if !left.Imm && !single[left.Reg] || !right.Imm && !single[right.Reg] {
			break
		}
		switch {
		case right.Imm:
			if x.Op == ir.OpSub {
				s.constant -= int64(right.Bits)
			} else {
				s.constant += int64(right.Bits)
			}
			s.root = left
			continue
		case left.Imm && x.Op == ir.OpAdd:
			s.constant += int64(left.Bits)
			s.root = right
			continue
		}
		if len(terms) == 0 {
			s.beforeTerms, s.constantBeforeTerms = s.root, s.constant
		}
		switch {
		case varies(left) && !varies(right):
			terms = append(terms, offsetTerm{reg: right.Reg, negative: x.Op == ir.OpSub})
			s.root = left
		case x.Op == ir.OpAdd && varies(right) && !varies(left):
			terms = append(terms, offsetTerm{reg: left.Reg})
			s.root = right
		default:
			return s.withTerms(terms)
		}
	}
	return s.withTerms(terms)
}

func (s splitIndex) withTerms(terms []offsetTerm) splitIndex {
	if s.root.Imm {
		return splitIndex{root: s.root} // a constant index: nothing to share
	}
	s.terms = terms
	return s
}

// splitAddress returns the code that computes the element address x as
// the address of the root's element and its offsets.
func splitAddress(t *ir.Task, x ir.Instr, s splitIndex) []ir.Instr {
	size := x.Aux
	addr := t.NewReg(ir.Ptr)
	code := []ir.Instr{{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: addr, Args: []ir.Arg{x.Args[0], s.root}, Aux: size, Pos: x.Pos}}
	// The terms nearest the root go first, and a register added n times
	// is added once, times n: p+c+c-w in a copy of a loop body that
	// gridunroll makes is &in[p+c+c] - 4w, and &in[p+c+c] is the same
	// address as that copy's in[p], computed once.
	var order []ir.Reg
	times := map[ir.Reg]int64{}
	for _, term := range slices.Backward(s.terms) {
		if _, ok := times[term.reg]; !ok {
			order = append(order, term.reg)
		}
		if term.negative {
			times[term.reg]--
		} else {
			times[term.reg]++
		}
	}
	for _, reg := range order {
		if times[reg] == 0 {
			continue
		}
		bytes, next := t.NewReg(ir.Int64), t.NewReg(ir.Ptr)
		code = append(code,
			ir.Instr{Op: ir.OpMul, Type: ir.Int64, Dst: bytes, Args: []ir.Arg{ir.R(reg), ir.Imm(ir.Int64, uint64(times[reg]*size))}, Pos: x.Pos},
			ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: next, Args: []ir.Arg{ir.R(addr), ir.R(bytes)}, Aux: 1, Pos: x.Pos})
		addr = next
	}
	if s.constant == 0 {
		return append(code, ir.Instr{Op: ir.OpMove, Type: ir.Ptr, Dst: x.Dst, Args: []ir.Arg{ir.R(addr)}, Pos: x.Pos})
	}
	return append(code, ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: x.Dst, Args: []ir.Arg{ir.R(addr), ir.Imm(ir.Int64, uint64(s.constant))}, Aux: size, Pos: x.Pos})
}

// loopInvariants reports which registers keep their value through lp:
// those the loop does not assign, and those it computes from them as
// HoistInvariants would move out of it.
func loopInvariants(t *ir.Task, defs [][]site, single []bool, lp *ir.Loop) func(ir.Reg) bool {
	inLoop := definedIn(t, lp)
	memo := map[ir.Reg]bool{}
	var invariantReg func(r ir.Reg, depth int) bool
	invariantReg = func(r ir.Reg, depth int) bool {
		if !inLoop[r] {
			return true
		}
		if v, ok := memo[r]; ok {
			return v
		}
		memo[r] = false
		if !single[r] || depth > 16 {
			return false
		}
		d := defs[r][0]
		x := t.Blocks[d.block].Instrs[d.at]
		if !hoistable(&x) {
			return false
		}
		for _, a := range x.Args {
			if !a.Imm && !invariantReg(a.Reg, depth+1) {
				return false
			}
		}
		memo[r] = true
		return true
	}
	return func(r ir.Reg) bool { return invariantReg(r, 0) }
}

func loopHeader(lp *ir.Loop) int {
	if lp == nil {
		return -1
	}
	return lp.Header
}

// innermostLoopOf maps each block to the innermost loop that holds it, or
// nil.
func innermostLoopOf(t *ir.Task) []*ir.Loop {
	of := make([]*ir.Loop, len(t.Blocks))
	size := make([]int, len(t.Blocks))
	for _, lp := range t.Loops() {
		blocks := lp.Blocks()
		for _, bi := range blocks {
			if of[bi] == nil || len(blocks) < size[bi] {
				of[bi], size[bi] = lp, len(blocks)
			}
		}
	}
	return of
}
