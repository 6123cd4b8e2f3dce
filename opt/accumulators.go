package opt

import (
	"slices"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// KeepAccumulatorsInRegisters keeps an element of a slice that an inner
// loop reads and writes at the same address in every iteration in a
// register for the whole loop: the textbook product
//
//	for k := range n {
//		c[i*n+j] += a[i*n+k] * b[k*n+j]
//	}
//
// loads and stores c[i*n+j] in every iteration, because in Go c may share
// memory with a or b, and then a store to c changes what a later
// iteration reads. The loop is kept twice: in one copy the element is
// loaded into a register before the loop, the iterations add to the
// register, and it is stored on each way out; the other is the loop as it
// was. A test picks the first copy when the slice written does not
// overlap any other slice the loop reads or writes: their address ranges,
// from the slices' addresses and lengths, are disjoint. The test reads
// only the launch's arguments, so the task computes it once, in its entry
// block. The additions are the same ones in the same order, so the
// results are the same bits, and slices that do overlap run the loop as
// Go does.
//
// An element qualifies when its address does not change in the loop,
// every access to it has the same type, one access and one store to it
// come before every way out of the loop (so the loop reads and writes it
// anyway before it leaves, and loading it before the loop and storing it
// after reads and writes nothing Go would not), and it is the only thing
// the loop accesses of its slice. A loop whose header tests before the
// body runs, for k := 0; k < K; k++, may run no iteration: when the
// header computes only values, a copy of it before the loop goes on to
// the load only if the body runs, and the accesses then need only come
// before every way back to the header and every other way out. A loop
// qualifies when it has no effects other than loads and stores: no index
// checks (those are decided before the loop first, opt.HoistChecks, and a
// fault must see the stores before it), atomics, barriers or calls.
func KeepAccumulatorsInRegisters(k *ir.Kernel) {
	for _, t := range k.Tasks {
		keepAccumulators(k, t)
	}
}

// accumulator is an element a loop keeps in a register.
type accumulator struct {
	addr  ir.Reg // the address, as first assigned outside the loop
	typ   ir.Type
	param int    // the slice parameter it points into
	reg   ir.Reg // the register that holds it in the loop
	sites []analysis.Site
}

// memAccess is a load or store of a loop.
type memAccess struct {
	at    analysis.Site
	addr  ir.Reg // the address, as first assigned outside the loop, or as the loop assigns it
	store bool
	typ   ir.Type
	space ir.Space
}

// accumulatorLoop is a loop and the elements it keeps in registers, with
// the pairs of slice parameters that must not overlap.
type accumulatorLoop struct {
	lp    *analysis.Loop
	accs  []*accumulator
	pairs [][2]int
	// guarded: the loop's header tests whether to run the body, and a
	// copy of it before the loop decides whether the elements are loaded.
	guarded bool
}

func keepAccumulators(k *ir.Kernel, t *ir.Task) {
	done := map[int]bool{}
	tests := &launchTests{spans: map[int][2]ir.Reg{}, pairs: map[[2]int]ir.Reg{}}
	for {
		a := analysis.New(t)
		var next *accumulatorLoop
		for _, lp := range a.Innermost() {
			if done[lp.Header] {
				continue
			}
			done[lp.Header] = true
			if next = findAccumulators(a, lp); next != nil {
				break
			}
		}
		if next == nil {
			return
		}
		for _, b := range next.apply(k, t, tests) {
			done[b] = true
		}
	}
}

// findAccumulators returns the elements lp can keep in registers, or nil.
func findAccumulators(a *analysis.Analysis, lp *analysis.Loop) *accumulatorLoop {
	t := a.Task
	var accesses []memAccess
	for _, bi := range lp.Blocks {
		for i := range t.Blocks[bi].Instrs {
			in := &t.Blocks[bi].Instrs[i]
			info := in.Op.Info()
			if in.Op == ir.OpLoad || in.Op == ir.OpStore {
				if in.Args[0].Imm {
					return nil
				}
				at := analysis.Site{Block: bi, At: i}
				accesses = append(accesses, memAccess{at: at, addr: invariantAddress(a, lp, in.Args[0].Reg),
					store: in.Op == ir.OpStore, typ: in.Type, space: in.Space})
				continue
			}
			if info.SideEffects || info.Memory != 0 || info.Atomic || info.Checks || info.Parallel {
				return nil
			}
		}
	}
	roots := sliceRoots(t)
	// The blocks an access must come before: every way out, or, where
	// the header tests before the body and can be run once more before
	// the loop (guarded), every way out but the header's and every way
	// back to the header.
	var exiting []int
	for _, e := range lp.Exits {
		if !slices.Contains(exiting, e.From) {
			exiting = append(exiting, e.From)
		}
	}
	guarded := false
	if slices.Contains(exiting, lp.Header) && repeatableTest(t, lp) {
		guarded = true
		exiting = slices.DeleteFunc(exiting, func(b int) bool { return b == lp.Header })
		exiting = append(exiting, lp.Latches...)
	}
	beforeExits := func(s analysis.Site) bool {
		for _, x := range exiting {
			if !a.Dominates(s.Block, x) {
				return false
			}
		}
		return true
	}
	variant := definedInLoop(a, lp)
	var accs []*accumulator
	for _, x := range accesses {
		if !x.store || x.space != ir.Global || variant[x.addr] || slices.ContainsFunc(accs, func(c *accumulator) bool { return c.addr == x.addr }) {
			continue
		}
		r := roots[x.addr]
		if len(r) != 1 || r[0] < 0 {
			continue
		}
		c := &accumulator{addr: x.addr, typ: x.typ, param: r[0]}
		stored, accessed, ok := false, false, true
		for _, y := range accesses {
			if y.addr != x.addr {
				continue
			}
			ok = ok && y.typ == x.typ && y.space == ir.Global
			c.sites = append(c.sites, y.at)
			if beforeExits(y.at) {
				accessed = true
				stored = stored || y.store
			}
		}
		if ok && stored && accessed && len(exiting) > 0 {
			accs = append(accs, c)
		}
	}
	out := &accumulatorLoop{lp: lp, guarded: guarded}
	for _, c := range accs {
		var others []int
		ok := true
		for _, y := range accesses {
			if y.addr == c.addr || y.space != ir.Global {
				continue
			}
			for _, p := range roots[y.addr] {
				switch {
				case p == c.param || p == unknownRoot:
					ok = false
				case p >= 0 && !slices.Contains(others, p):
					others = append(others, p)
				}
			}
			if roots[y.addr] == nil {
				ok = false
			}
		}
		if !ok {
			continue
		}
		slices.Sort(others)
		for _, p := range others {
			pair := [2]int{c.param, p}
			if !slices.Contains(out.pairs, pair) {
				out.pairs = append(out.pairs, pair)
			}
		}
		out.accs = append(out.accs, c)
	}
	if len(out.accs) == 0 {
		return nil
	}
	return out
}

// repeatableTest reports whether lp's header only computes values and
// branches to one block of the loop and one outside it, so that running
// it once more before the loop changes nothing: none of its instructions
// reads a register that it or a later one assigns.
func repeatableTest(t *ir.Task, lp *analysis.Loop) bool {
	h := t.Blocks[lp.Header]
	if h.Term.Kind != ir.Branch || lp.Has(h.Term.Succs[0]) == lp.Has(h.Term.Succs[1]) {
		return false
	}
	for i, in := range h.Instrs {
		if !in.Op.Info().Pure {
			return false
		}
		for _, later := range h.Instrs[i:] {
			for _, d := range later.Defs() {
				for _, arg := range in.Args {
					if !arg.Imm && arg.Reg == d {
						return false
					}
				}
			}
		}
	}
	return true
}

// invariantAddress returns the register that first holds the address r
// holds in lp: r itself, or, when r is assigned once outside the loop as
// a copy of a register that is assigned once too, that register's.
func invariantAddress(a *analysis.Analysis, lp *analysis.Loop, r ir.Reg) ir.Reg {
	for range 16 {
		defs := a.Defs(r)
		if len(defs) != 1 || lp.Has(defs[0].Block) {
			return r
		}
		in := a.Instr(defs[0])
		if in.Op != ir.OpMove || in.Args[0].Imm || len(a.Defs(in.Args[0].Reg)) != 1 {
			return r
		}
		r = in.Args[0].Reg
	}
	return r
}

// definedInLoop reports which registers lp assigns.
func definedInLoop(a *analysis.Analysis, lp *analysis.Loop) map[ir.Reg]bool {
	in := map[ir.Reg]bool{}
	for _, bi := range lp.Blocks {
		for _, x := range a.Task.Blocks[bi].Instrs {
			for _, d := range x.Defs() {
				in[d] = true
			}
		}
	}
	return in
}

// Roots of addresses other than a slice parameter's (sliceRoots).
const (
	constantRoot = -1 // a constant table or a variable: memory no slice shares
	unknownRoot  = -2 // anything else
)

// sliceRoots returns, for every address register of t, the slice
// parameters it may point into, by the registers that base, elemaddr and
// moves of addresses define, to a fixed point: a table or a task variable
// is constantRoot, other addresses (a function's arguments) unknownRoot.
func sliceRoots(t *ir.Task) map[ir.Reg][]int {
	roots := map[ir.Reg][]int{}
	add := func(r ir.Reg, p int) bool {
		if slices.Contains(roots[r], p) {
			return false
		}
		roots[r] = append(roots[r], p)
		return true
	}
	for _, r := range t.Params {
		if t.Regs[r] == ir.Ptr {
			add(r, unknownRoot)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				in := &b.Instrs[i]
				switch {
				case in.Op == ir.OpParamBase:
					changed = add(in.Dst, int(in.Aux)) || changed
				case in.Op == ir.OpAddr || in.Op == ir.OpDataAddr:
					changed = add(in.Dst, constantRoot) || changed
				case derivesAddress(in):
					for _, p := range roots[in.Args[0].Reg] {
						changed = add(in.Dst, p) || changed
					}
				default:
					for _, d := range in.Defs() {
						if t.Regs[d] == ir.Ptr {
							changed = add(d, unknownRoot) || changed
						}
					}
				}
			}
		}
	}
	for r := range roots {
		slices.Sort(roots[r])
	}
	return roots
}

// apply versions the loop: the loop itself keeps the elements in
// registers, and a copy as it was runs when a pair of slices overlaps.
// It returns the copy's blocks.
//
//	entry:  ...; disjoint = the slices' address ranges do not meet
//	pre:    branch disjoint, load, copy's header
//	load:   acc = load addr; jump header
//	...     the loop, acc = acc op x for load addr; op; store addr
//	out:    store addr, acc; jump the exit   (one block per way out)
func (al *accumulatorLoop) apply(k *ir.Kernel, t *ir.Task, tests *launchTests) []int {
	lp := al.lp
	pre := preheader(t, lp.Loop)
	exits := lp.Exits
	copies := copyLoop(t, lp.Loop, " (slices overlap)")
	var ok ir.Arg
	for i, pair := range al.pairs {
		r := tests.disjoint(k, t, pair)
		if i == 0 {
			ok = ir.R(r)
			continue
		}
		dst := t.NewReg(ir.Bool)
		entry := t.Blocks[0]
		entry.Instrs = append(entry.Instrs, ir.Instr{Op: ir.OpAnd, Type: ir.Bool, Dst: dst, Args: []ir.Arg{ok, ir.R(r)}})
		ok = ir.R(dst)
	}
	load := t.NewBlock("accumulators")
	for _, c := range al.accs {
		c.reg = t.NewReg(c.typ)
		load.Instrs = append(load.Instrs, ir.Instr{Op: ir.OpLoad, Type: c.typ, Dst: c.reg, Args: []ir.Arg{ir.R(c.addr)}})
	}
	load.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{lp.Header}}
	first := load.Index
	if al.guarded {
		// The header's test, run once before the loop: the elements are
		// loaded only when the body runs at least once.
		h := t.Blocks[lp.Header]
		guard := t.NewBlock("accumulators' test")
		guard.Instrs = slices.Clone(h.Instrs)
		for i := range guard.Instrs {
			guard.Instrs[i].Args = slices.Clone(guard.Instrs[i].Args)
		}
		guard.Term = h.Term
		for j, s := range guard.Term.Successors() {
			if s == lp.Header || lp.Has(s) {
				guard.Term.Succs[j] = load.Index
			}
		}
		first = guard.Index
	}
	if len(al.pairs) == 0 {
		pre.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{first}}
	} else {
		pre.Term = ir.Term{Kind: ir.Branch, Cond: ok, Succs: [2]int{first, copies[lp.Header]}}
	}
	stores := map[analysis.Edge]int{}
	for _, e := range exits {
		out, seen := stores[e]
		if !seen {
			b := t.NewBlock("accumulators stored")
			for _, c := range al.accs {
				b.Instrs = append(b.Instrs, ir.Instr{Op: ir.OpStore, Type: c.typ, Dst: ir.NoReg, Args: []ir.Arg{ir.R(c.addr), ir.R(c.reg)}})
			}
			b.Term = ir.Term{Kind: ir.Jump, Succs: [2]int{e.To}}
			out = b.Index
			stores[e] = out
		}
		succs := t.Blocks[e.From].Term.Successors()
		for j, s := range succs {
			if s == e.To {
				succs[j] = out
			}
		}
	}
	for _, c := range al.accs {
		for _, s := range c.sites {
			in := &t.Blocks[s.Block].Instrs[s.At]
			if in.Op == ir.OpLoad {
				*in = ir.Instr{Op: ir.OpMove, Type: c.typ, Dst: in.Dst, Args: []ir.Arg{ir.R(c.reg)}, Pos: in.Pos}
			} else {
				*in = ir.Instr{Op: ir.OpMove, Type: c.typ, Dst: c.reg, Args: []ir.Arg{in.Args[1]}, Pos: in.Pos}
			}
		}
	}
	var out []int
	for _, b := range copies {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// launchTests are the tests of a task's slices that its entry block
// computes: each slice's address range, and each pair's disjointness.
type launchTests struct {
	spans map[int][2]ir.Reg
	pairs map[[2]int]ir.Reg
}

// disjoint returns a register that holds, from the task's entry on,
// whether the elements of the two slice parameters of pair lie in
// disjoint address ranges.
func (lt *launchTests) disjoint(k *ir.Kernel, t *ir.Task, pair [2]int) ir.Reg {
	if r, ok := lt.pairs[pair]; ok {
		return r
	}
	entry := t.Blocks[0]
	emit := func(in ir.Instr) ir.Reg {
		in.Dst = t.NewReg(in.ResultType())
		entry.Instrs = append(entry.Instrs, in)
		return in.Dst
	}
	var start, end [2]ir.Reg
	for i, p := range pair {
		span, ok := lt.spans[p]
		if !ok {
			base := emit(ir.Instr{Op: ir.OpParamBase, Aux: int64(p)})
			n := emit(ir.Instr{Op: ir.OpParamLen, Aux: int64(p)})
			size := k.Params[p].ElemSize
			if k.Params[p].Type != ir.Invalid {
				size = k.Params[p].Type.Size()
			}
			last := emit(ir.Instr{Op: ir.OpElemAddr, Args: []ir.Arg{ir.R(base), ir.R(n)}, Aux: int64(size)})
			span[0] = emit(ir.Instr{Op: ir.OpBitcast, Type: ir.Uint64, From: ir.Ptr, Args: []ir.Arg{ir.R(base)}})
			span[1] = emit(ir.Instr{Op: ir.OpBitcast, Type: ir.Uint64, From: ir.Ptr, Args: []ir.Arg{ir.R(last)}})
			lt.spans[p] = span
		}
		start[i], end[i] = span[0], span[1]
	}
	before := emit(ir.Instr{Op: ir.OpLe, Type: ir.Uint64, Args: []ir.Arg{ir.R(end[0]), ir.R(start[1])}})
	after := emit(ir.Instr{Op: ir.OpLe, Type: ir.Uint64, Args: []ir.Arg{ir.R(end[1]), ir.R(start[0])}})
	r := emit(ir.Instr{Op: ir.OpOr, Type: ir.Bool, Args: []ir.Arg{ir.R(before), ir.R(after)}})
	lt.pairs[pair] = r
	return r
}
