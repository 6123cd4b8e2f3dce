package opt

import (
	"cmp"
	"fmt"
	"go/token"
	"maps"
	"math/bits"
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
	dom := t.Dominators()
	defs := defSites(t)
	single := singleDefs(t, defs, dom)
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
	for at, s := range splits {
		if len(s.terms) > 0 && groups[s.key] < 2 {
			// No other address shares the root: only the constants
			// taken before the first term split off.
			s.root, s.constant, s.terms = s.beforeTerms, s.constantBeforeTerms, nil
			if s.constant == 0 {
				delete(splits, at)
				continue
			}
			splits[at] = s
		}
	}
	shared := shareAddresses(t, dom, loopOf, single, source, splits)
	for bi, b := range t.Blocks {
		var out []ir.Instr
		for i, x := range b.Instrs {
			for _, sh := range shared[site{bi, i}] {
				out = append(out, sh.code...)
			}
			s, ok := splits[site{bi, i}]
			if !ok {
				out = append(out, x)
				continue
			}
			if sh := s.shared; sh != nil {
				out = append(out, offsetFrom(x, sh.addr, s.constant))
				continue
			}
			out = append(out, splitAddress(t, x, s)...)
		}
		for _, sh := range shared[site{bi, len(b.Instrs)}] {
			out = append(out, sh.code...)
		}
		b.Instrs = out
	}
}

// sharedAddress is the element address of a root and its terms, computed
// once for the addresses that are it plus constants.
type sharedAddress struct {
	code []ir.Instr
	addr ir.Reg
}

// shareAddresses computes once, in the block that dominates them all, the
// root-and-terms address of split addresses that differ only in their
// constants but lie on different paths, where the common subexpressions
// pass, which shares only what one computes before the other, would leave
// a copy on each: the i-th of a thread's items, read where i*threads+t is
// below n, is &x[b*tile+t] + 4*threads*i behind a test of its own, and
// the loads of all the items address from one register. An element
// address cannot fault, so computing it on a path that does not load is
// harmless. The addresses must be in one loop, and so must the block they
// share, which then runs no more often than they do. It records the
// shared address in each split and returns the code to insert, by the
// instruction it goes before.
func shareAddresses(t *ir.Task, dom []ir.BlockSet, loopOf []*ir.Loop, single []bool, source func(ir.Arg) ir.Arg, splits map[site]splitIndex) map[site][]*sharedAddress {
	bySignature := map[string][]site{}
	for at, s := range splits {
		x := &t.Blocks[at.block].Instrs[at.at]
		if base := source(x.Args[0]); base.Imm || !single[base.Reg] {
			continue // the base must name one value wherever it is read
		}
		key := s.key
		for _, term := range s.terms {
			key += fmt.Sprint(" ", term.reg, term.negative)
		}
		bySignature[key] = append(bySignature[key], at)
	}
	out := map[site][]*sharedAddress{}
	for _, key := range slices.Sorted(maps.Keys(bySignature)) {
		sites := bySignature[key]
		slices.SortFunc(sites, func(a, b site) int { return cmp.Or(cmp.Compare(a.block, b.block), cmp.Compare(a.at, b.at)) })
		if sites[0].block == sites[len(sites)-1].block {
			continue // one block: the common subexpressions pass shares them
		}
		d := commonDominator(dom, sites)
		if loopOf[d] != loopOf[sites[0].block] {
			continue
		}
		at := site{d, len(t.Blocks[d].Instrs)}
		for _, x := range sites {
			if x.block == d && x.at < at.at {
				at = x
			}
		}
		first := &t.Blocks[sites[0].block].Instrs[sites[0].at]
		s := splits[sites[0]]
		code, addr := addressChain(t, source(first.Args[0]), s, first.Aux, first.Pos)
		sh := &sharedAddress{code: code, addr: addr}
		out[at] = append(out[at], sh)
		for _, x := range sites {
			s := splits[x]
			s.shared = sh
			splits[x] = s
		}
	}
	return out
}

// commonDominator returns the deepest block that dominates the blocks of
// all the sites.
func commonDominator(dom []ir.BlockSet, sites []site) int {
	best, depth := 0, -1
	for b := range dom {
		all := true
		for _, s := range sites {
			if !dom[s.block].Has(b) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		n := 0
		for _, w := range dom[b] {
			n += bits.OnesCount64(w)
		}
		if n > depth {
			best, depth = b, n
		}
	}
	return best
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
	shared              *sharedAddress // the root and terms, computed elsewhere
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
		// A term's own constants join the index's: the i-th of a thread's
		// items, b*tile + (t + threads*i), is &x[b*tile+t] plus a
		// constant, like every other item's.
		peel := func(term ir.Arg, negative bool) offsetTerm {
			reg, c := peelConstants(t, defs, single, source, term.Reg)
			if negative {
				s.constant -= c
			} else {
				s.constant += c
			}
			return offsetTerm{reg: reg, negative: negative}
		}
		switch {
		case varies(left) && !varies(right):
			terms = append(terms, peel(right, x.Op == ir.OpSub))
			s.root = left
		case x.Op == ir.OpAdd && varies(right) && !varies(left):
			terms = append(terms, peel(left, false))
			s.root = right
		default:
			return s.withTerms(terms)
		}
	}
	return s.withTerms(terms)
}

// peelConstants follows r through additions and subtractions of
// constants, and returns the register they start from and their sum.
func peelConstants(t *ir.Task, defs [][]site, single []bool, source func(ir.Arg) ir.Arg, r ir.Reg) (ir.Reg, int64) {
	var c int64
	for range 8 {
		if !single[r] {
			break
		}
		d := defs[r][0]
		x := t.Blocks[d.block].Instrs[d.at]
		if (x.Op != ir.OpAdd && x.Op != ir.OpSub) || x.Type != ir.Int64 {
			break
		}
		left, right := source(x.Args[0]), source(x.Args[1])
		switch {
		case right.Imm && !left.Imm && single[left.Reg]:
			if x.Op == ir.OpSub {
				c -= int64(right.Bits)
			} else {
				c += int64(right.Bits)
			}
			r = left.Reg
		case left.Imm && x.Op == ir.OpAdd && !right.Imm && single[right.Reg]:
			c += int64(left.Bits)
			r = right.Reg
		default:
			return r, c
		}
	}
	return r, c
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
	code, addr := addressChain(t, x.Args[0], s, x.Aux, x.Pos)
	return append(code, offsetFrom(x, addr, s.constant))
}

// addressChain returns the code that computes the address of base's
// element at the root plus the terms, and the register that holds it.
func addressChain(t *ir.Task, base ir.Arg, s splitIndex, size int64, pos token.Pos) ([]ir.Instr, ir.Reg) {
	addr := t.NewReg(ir.Ptr)
	code := []ir.Instr{{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: addr, Args: []ir.Arg{base, s.root}, Aux: size, Pos: pos}}
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
			ir.Instr{Op: ir.OpMul, Type: ir.Int64, Dst: bytes, Args: []ir.Arg{ir.R(reg), ir.Imm(ir.Int64, uint64(times[reg]*size))}, Pos: pos},
			ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: next, Args: []ir.Arg{ir.R(addr), ir.R(bytes)}, Aux: 1, Pos: pos})
		addr = next
	}
	return code, addr
}

// offsetFrom returns the instruction that assigns x's result the address
// addr plus constant elements of x's size.
func offsetFrom(x ir.Instr, addr ir.Reg, constant int64) ir.Instr {
	if constant == 0 {
		return ir.Instr{Op: ir.OpMove, Type: ir.Ptr, Dst: x.Dst, Args: []ir.Arg{ir.R(addr)}, Pos: x.Pos}
	}
	return ir.Instr{Op: ir.OpElemAddr, Type: ir.Ptr, Dst: x.Dst, Args: []ir.Arg{ir.R(addr), ir.Imm(ir.Int64, uint64(constant))}, Aux: x.Aux, Pos: x.Pos}
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
		if !hoistable(&x) && !threadConstant(x.Op) {
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

// threadConstant reports whether op reads a value that stays the same for
// as long as a thread runs: its place in its block and warp, and its
// block's. A block loop's index changes from one block to the next, but
// the thread's place in the block, which its elements are offsets by, does
// not.
func threadConstant(op ir.Op) bool {
	switch op {
	case ir.OpBlockIndex, ir.OpBlockCount, ir.OpBlockThread, ir.OpBlockSize, ir.OpLane, ir.OpWarpIndex, ir.OpWarpSize:
		return true
	}
	return false
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
