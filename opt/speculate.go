package opt

import "github.com/qdgo/qd/ir"

// SpeculateGuardedStores moves the address arithmetic of a short guarded
// store, `if y < h && x < w { out[y*w+x] = tile[tx][r] }`, above the
// tests that guard it. Left below them, each copy of an unrolled guarded
// store is a branch around a dozen instructions, which ptxas keeps as a
// branch: the copies then run one after another, each waiting on its own
// test. With only the loads and stores left below the tests, ptxas turns
// the tests into predicates and issues the copies' loads together, as
// nvcc's code does (a tiled transpose's four stores of a tile column).
//
// The guarded block must end in a jump to the join of the tests, hold
// only pure instructions, loads and at least one store, and be short;
// each test above it is a block of pure instructions that branches to it
// (or to the test below) or to the same join, and is the only way in to
// what it guards. An instruction moves when it cannot fault (no integer
// division), its result is assigned only there or by copies of the same
// instruction elsewhere (so the register holds the same value wherever it
// is read), and its operands are available above the tests: assigned once
// before them, or by an instruction that moved with it. The moved
// instructions then run on paths where the store does not, a few integer
// instructions each, where ptxas would otherwise run a branch.
func SpeculateGuardedStores(t *ir.Task) {
	preds := t.Preds()
	dom := t.Dominators()
	defs := defSites(t)
	single := singleDefs(t, defs, dom)
	loops := t.Loops()
	headers := map[int]bool{}
	for _, lp := range loops {
		headers[lp.Header] = true
	}
	for si, s := range t.Blocks {
		if !guardedStore(s) || headers[si] {
			continue
		}
		chain := guardChain(t, preds, headers, si)
		if chain == nil || entersLoop(loops, chain[0], si) {
			continue
		}
		if speculate(t, defs, single, dom, chain) {
			defs = defSites(t) // the moved instructions' places changed
			single = singleDefs(t, defs, dom)
		}
	}
}

// Limits on what is worth speculating: a guarded block of a few
// addresses, a load and a store, under a few short tests.
const (
	speculateBlockLen = 16
	speculateTestLen  = 8
	speculateTests    = 4
)

// guardedStore reports whether b is a short block of pure instructions
// (a division among them stays), loads and stores, with a store, that
// jumps on.
func guardedStore(b *ir.Block) bool {
	if b.Term.Kind != ir.Jump || len(b.Instrs) > speculateBlockLen {
		return false
	}
	stores := 0
	for i := range b.Instrs {
		x := &b.Instrs[i]
		switch {
		case x.Op == ir.OpStore:
			stores++
		case x.Op == ir.OpLoad, x.Op.Info().Pure, hoistable(x):
		default:
			return false
		}
	}
	return stores > 0
}

// guardChain returns the blocks from the topmost test down to the guarded
// block si, or nil when si is not guarded by tests that branch to its join.
// The topmost block is where the instructions go; it may hold anything.
func guardChain(t *ir.Task, preds [][]int, headers map[int]bool, si int) []int {
	join := t.Blocks[si].Term.Succs[0]
	chain := []int{si}
	below := si
	for {
		if len(preds[below]) != 1 {
			return nil
		}
		p := preds[below][0]
		pb := t.Blocks[p]
		if pb.Term.Kind != ir.Branch || !branchesTo(pb, below, join) || p == si {
			return nil
		}
		chain = append([]int{p}, chain...)
		if len(chain) > speculateTests+1 || headers[p] || !pureTest(pb) || len(preds[p]) != 1 {
			return chain
		}
		q := t.Blocks[preds[p][0]]
		if q.Term.Kind != ir.Branch || !branchesTo(q, p, join) {
			return chain
		}
		below = p
	}
}

// branchesTo reports whether b branches to a and to join.
func branchesTo(b *ir.Block, a, join int) bool {
	s := b.Term.Succs
	return a != join && (s[0] == a && s[1] == join || s[0] == join && s[1] == a)
}

// pureTest reports whether b is a short test of pure instructions.
func pureTest(b *ir.Block) bool {
	if len(b.Instrs) > speculateTestLen {
		return false
	}
	for i := range b.Instrs {
		if !hoistable(&b.Instrs[i]) {
			return false
		}
	}
	return true
}

// speculate moves what may move from chain[1:] to the end of chain[0] and
// reports whether anything moved.
func speculate(t *ir.Task, defs [][]site, single []bool, dom []ir.BlockSet, chain []int) bool {
	top := t.Blocks[chain[0]]
	at := site{chain[0], len(top.Instrs)}
	moved := map[ir.Reg]bool{}
	var hoisted []ir.Instr
	for _, bi := range chain[1:] {
		b := t.Blocks[bi]
		kept := b.Instrs[:0]
		for _, x := range b.Instrs {
			if movable(t, &x, defs, single, dom, moved, at) {
				hoisted = append(hoisted, x)
				moved[x.Dst] = true
				continue
			}
			kept = append(kept, x)
		}
		b.Instrs = kept
	}
	top.Instrs = append(top.Instrs, hoisted...)
	return len(hoisted) > 0
}

// movable reports whether x may run at the end of the chain's top block.
func movable(t *ir.Task, x *ir.Instr, defs [][]site, single []bool, dom []ir.BlockSet, moved map[ir.Reg]bool, at site) bool {
	if x.Dst == ir.NoReg || !hoistable(x) || moved[x.Dst] {
		return false
	}
	if !single[x.Dst] && !sameEverywhere(t, x, defs) {
		return false
	}
	for _, a := range x.Args {
		if a.Imm || moved[a.Reg] {
			continue
		}
		if !single[a.Reg] || !dominates(dom, defs[a.Reg][0], at) {
			return false
		}
	}
	return true
}

// sameEverywhere reports whether every assignment of x's result is x
// itself: the same op of the same operands, each assigned once.
func sameEverywhere(t *ir.Task, x *ir.Instr, defs [][]site) bool {
	for _, d := range defs[x.Dst] {
		y := &t.Blocks[d.block].Instrs[d.at]
		if y.Op != x.Op || y.Type != x.Type || y.From != x.From || y.Aux != x.Aux || len(y.Args) != len(x.Args) {
			return false
		}
		for i, a := range y.Args {
			if a != x.Args[i] || !a.Imm && len(defs[a.Reg]) != 1 {
				return false
			}
		}
	}
	return true
}

// entersLoop reports whether top is in a loop that si is not in: moved
// there, the guarded block's arithmetic would run every iteration.
func entersLoop(loops []*ir.Loop, top, si int) bool {
	for _, lp := range loops {
		if lp.Has(top) && !lp.Has(si) {
			return true
		}
	}
	return false
}
