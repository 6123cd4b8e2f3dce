package check

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// This file finds the slice elements a task touches: for each load, store
// and atomic op on a slice parameter, the index of the element as a form
// of the parallel loop's index, the counters of inner loops and values
// that are the same in every iteration. The dependence check (depend.go)
// and the race check between qd.StreamParallel blocks (blocks.go)
// compare them.
//
// The IR of a freshly lowered task is nearly in SSA form: each go/ssa
// value has its own register, defined once, except the registers of phis,
// which are assigned on each incoming edge. A register defined once (or
// several times by the same instruction) stands for its definition; a phi
// is an inner loop's counter when one definition starts it outside the
// loop and the other adds 1 inside, and an unknown value otherwise.

// access is one instruction of a task that touches a slice parameter.
type access struct {
	task   *ir.Task
	in     *ir.Instr
	block  int
	param  int
	index  form // the element's index; nil when unknown
	read   bool
	write  bool
	atomic bool
	// iters bounds the values of the loop index in the iterations that
	// run the instruction, from the conditions it runs under.
	iters interval
}

// indexer computes the forms of a task's registers.
type indexer struct {
	k      *ir.Kernel
	t      *ir.Task
	loop   *Loop // nil for a serial task
	defs   [][]def
	forms  map[ir.Reg]form
	widths map[string]form // the number of values of each counter
	// ranges holds the start and bound of each inner loop's counter.
	ranges  map[string]counterRange
	an      *analysis.Analysis // the task's loops and induction variables
	guarded [][]guard          // by block, when computed
	// conditions are the launch conditions under which the accesses
	// accepted are distinct (Result.Conditions).
	conditions []Condition
}

// counterRange is where an inner loop's counter starts, and the bound it
// stays below: its values lie in [init, bound).
type counterRange struct{ init, bound form }

type def struct {
	block int
	in    *ir.Instr
}

func newIndexer(k *ir.Kernel, t *ir.Task, loop *Loop) *indexer {
	ix := &indexer{k: k, t: t, loop: loop, defs: make([][]def, len(t.Regs)),
		forms: map[ir.Reg]form{}, widths: map[string]form{}, ranges: map[string]counterRange{}, an: analysis.New(t)}
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			if in := &b.Instrs[i]; in.Dst != ir.NoReg {
				ix.defs[in.Dst] = append(ix.defs[in.Dst], def{b.Index, in})
			}
		}
	}
	return ix
}

// single returns the instruction that defines r, when every definition of
// r is the same instruction.
func (ix *indexer) single(r ir.Reg) *ir.Instr {
	ds := ix.defs[r]
	if len(ds) == 0 {
		return nil
	}
	for _, d := range ds[1:] {
		if !sameInstr(d.in, ds[0].in) {
			return nil
		}
	}
	return ds[0].in
}

func sameInstr(a, b *ir.Instr) bool {
	if a.Op != b.Op || a.Type != b.Type || a.From != b.From || a.Aux != b.Aux || a.Space != b.Space || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i] != b.Args[i] {
			return false
		}
	}
	return true
}

func varying(r ir.Reg) form { return symbolForm(fmt.Sprintf("%cr%d", varyingPrefix, r)) }

// regOf returns the register a counter or varying symbol names.
func regOf(sym string) (ir.Reg, bool) {
	if len(sym) < 3 || !isCounter(sym) && !isVarying(sym) {
		return 0, false
	}
	n, err := strconv.Atoi(sym[2:])
	return ir.Reg(n), err == nil
}

// formOf returns the form of register r's value.
func (ix *indexer) formOf(r ir.Reg) form {
	if ix.loop != nil && r == ix.loop.Index {
		return symbolForm(indexSymbol)
	}
	if ix.loop != nil && ix.loop.Fixed[r] {
		return symbolForm(fmt.Sprintf("level.r%d", r))
	}
	if c, ok := ix.loop.counter(r); ok {
		sym := fmt.Sprintf("%cr%d", counterPrefix, r)
		ix.widths[sym] = ix.formOfArg(c.Count, ir.Uint64)
		return ix.formOfArg(c.Init, c.Wide).add(symbolForm(sym))
	}
	if f, ok := ix.forms[r]; ok {
		if f == nil {
			return varying(r) // a cycle through phis
		}
		return f
	}
	ix.forms[r] = nil
	var f form
	if in := ix.single(r); in != nil {
		f = ix.formOfInstr(r, in)
	} else if c, ok := ix.counter(r); ok {
		f = c
	} else {
		f = varying(r)
	}
	ix.forms[r] = f
	return f
}

// formOfArg returns the form of an operand of type t.
func (ix *indexer) formOfArg(a ir.Arg, t ir.Type) form {
	if a.Imm {
		return constForm(int64(t.Normalize(a.Bits)))
	}
	return ix.formOf(a.Reg)
}

func (ix *indexer) formOfInstr(r ir.Reg, in *ir.Instr) form {
	t := in.Type
	arg := func(i int) form { return ix.formOfArg(in.Args[i], in.ArgTypes()[i]) }
	switch in.Op {
	case ir.OpConst, ir.OpMove:
		if t.IsInteger() {
			return arg(0)
		}
	case ir.OpParam:
		return symbolForm(ix.k.Params[in.Aux].Name)
	case ir.OpParamLen:
		return symbolForm("len(" + ix.k.Params[in.Aux].Name + ")")
	case ir.OpAdd:
		if t.IsInteger() {
			return arg(0).add(arg(1))
		}
	case ir.OpSub:
		if t.IsInteger() {
			return arg(0).sub(arg(1))
		}
	case ir.OpNeg:
		if t.IsInteger() {
			return arg(0).scale(-1)
		}
	case ir.OpMul:
		if t.IsInteger() {
			if f := arg(0).mul(arg(1)); f != nil {
				return f
			}
		}
	case ir.OpShl:
		if c, ok := arg(1).constant(); ok && c >= 0 && c < 32 {
			return arg(0).scale(1 << c)
		}
	case ir.OpConvert:
		// Widening keeps an index's value; so does a change of signedness,
		// since indexes are not negative.
		if t.IsInteger() && in.From.IsInteger() && in.From.Size() <= t.Size() {
			return arg(0)
		}
	}
	return ix.opaque(r, in)
}

// opaque names the value of an instruction the forms cannot follow: by
// what it computes when that is the same in every iteration, and as
// varying otherwise.
func (ix *indexer) opaque(r ir.Reg, in *ir.Instr) form {
	info := in.Op.Info()
	name := in.Op.String() + "." + in.Type.String()
	switch {
	case in.Op == ir.OpLoad && in.Space == ir.Global:
		p, index, ok := ix.trace(in.Args[0])
		if !ok || !index.invariant() {
			return varying(r)
		}
		return symbolForm(fmt.Sprintf("%s(%s[%s])", name, ix.k.Params[p].Name, index))
	case !info.Pure || in.Op == ir.OpElemAddr:
		return varying(r)
	}
	if info.From != 0 {
		name += "." + in.From.String()
	}
	name += "("
	types := in.ArgTypes()
	for i, a := range in.Args {
		f := ix.formOfArg(a, types[i])
		if !f.invariant() {
			return varying(r)
		}
		if i > 0 {
			name += ","
		}
		name += f.String()
	}
	return symbolForm(name + ")")
}

// counter recognizes r as the counter of an inner loop, a basic induction
// variable of the loop analysis that starts outside the loop, steps by 1
// and leaves the loop when the counter (or the counter plus 1) reaches a
// bound the loop does not change. It returns init+#r, where #r counts the
// iterations from 0 and has bound-init values.
func (ix *indexer) counter(r ir.Reg) (form, bool) {
	for i := len(ix.an.Loops) - 1; i >= 0; i-- { // inner loops after outer ones
		lp := ix.an.Loops[i]
		iv := lp.IndVar(r)
		if iv == nil {
			continue
		}
		step, ok := iv.Step.IsConst()
		exit := iv.Exit
		// j < bound, or j <= bound where the counter cannot wrap: then
		// it stays below bound+1.
		if !ok || step != 1 || exit == nil || !exit.Type.IsInteger() ||
			exit.Op != ir.OpLt && (exit.Op != ir.OpLe || !iv.NoWrap) {
			return nil, false
		}
		if offset, ok := exit.ConstOffset(); !ok || offset != 0 && offset != 1 {
			return nil, false
		}
		var outside []def
		for _, d := range ix.defs[r] {
			if !lp.Has(d.block) {
				outside = append(outside, d)
			}
		}
		if len(outside) == 0 {
			return nil, false
		}
		for _, d := range outside[1:] {
			if !sameInstr(d.in, outside[0].in) {
				return nil, false
			}
		}
		bound := ix.formOfArg(exit.BoundArg, exit.Type)
		if exit.Op == ir.OpLe {
			bound = bound.add(constForm(1))
		}
		init := ix.formOfInstr(r, outside[0].in)
		if init.has(func(s string) bool { return ix.definedIn(s, lp) }) {
			return nil, false
		}
		sym := fmt.Sprintf("%cr%d", counterPrefix, r)
		ix.widths[sym] = bound.sub(init)
		ix.ranges[sym] = counterRange{init, bound}
		return init.add(symbolForm(sym)), true
	}
	return nil, false
}

// definedIn reports whether a symbol names a register some definition of
// which lies in lp.
func (ix *indexer) definedIn(sym string, lp *analysis.Loop) bool {
	r, ok := regOf(sym)
	if !ok {
		return false
	}
	for _, d := range ix.defs[r] {
		if lp.Has(d.block) {
			return true
		}
	}
	return false
}

// trace follows an address to the slice parameter it points into and the
// index of its element there.
func (ix *indexer) trace(a ir.Arg) (param int, index form, ok bool) {
	if a.Imm {
		return 0, nil, false
	}
	in := ix.single(a.Reg)
	if in == nil {
		return 0, nil, false
	}
	switch in.Op {
	case ir.OpParamBase:
		return int(in.Aux), form{}, true
	case ir.OpMove:
		return ix.trace(in.Args[0])
	case ir.OpElemAddr:
		p, base, ok := ix.trace(in.Args[0])
		if !ok || in.Aux != int64(ix.k.Params[p].ElemBytes()) {
			return 0, nil, false
		}
		return p, base.add(ix.formOfArg(in.Args[1], ir.Int64)), true
	}
	return 0, nil, false
}

// accesses lists the task's accesses of slice parameters. An address the
// forms cannot follow gives an access of unknown index for each parameter
// it may point into.
func (ix *indexer) accesses() []access {
	from := pointsTo(ix.k, ix.t)
	iters := ix.iterations()
	var as []access
	for _, b := range ix.t.Blocks {
		if iters[b.Index].empty() {
			continue // no iteration runs it
		}
		for i := range b.Instrs {
			in := &b.Instrs[i]
			info := in.Op.Info()
			if info.Memory == ir.MemNone || in.Space != ir.Global {
				continue
			}
			a := access{task: ix.t, in: in, block: b.Index, read: info.Memory.Reads(), write: info.Memory.Writes(),
				atomic: info.Atomic, iters: iters[b.Index]}
			if p, index, ok := ix.trace(in.Args[0]); ok {
				a.param, a.index = p, index
				as = append(as, a)
				continue
			}
			if r := in.Args[0]; !r.Imm && from[r.Reg] != nil {
				for p, ok := range from[r.Reg] {
					if ok {
						a.param = p
						as = append(as, a)
					}
				}
			}
		}
	}
	return as
}

// pointsTo returns, for each address register of a task, the slice
// parameters it may point into, following addresses from each
// parameter's base through the task.
func pointsTo(k *ir.Kernel, t *ir.Task) [][]bool {
	n := len(k.Params)
	from := make([][]bool, len(t.Regs))
	mark := func(r ir.Reg, p int) bool {
		if from[r] == nil {
			from[r] = make([]bool, n)
		}
		changed := !from[r][p]
		from[r][p] = true
		return changed
	}
	for changed := true; changed; {
		changed = false
		for _, b := range t.Blocks {
			for _, in := range b.Instrs {
				switch {
				case in.Op == ir.OpParamBase:
					changed = mark(in.Dst, int(in.Aux)) || changed
				case in.Op == ir.OpElemAddr || in.Op == ir.OpMove && t.Regs[in.Dst] == ir.Ptr:
					if a := in.Args[0]; !a.Imm && from[a.Reg] != nil {
						for p, ok := range from[a.Reg] {
							if ok {
								changed = mark(in.Dst, p) || changed
							}
						}
					}
				}
			}
		}
	}
	return from
}

// interval is a range of loop index values, [lo, hi]; the extreme int64
// values stand for no bound. A pinned interval holds one value at most,
// which may not be known: that of i in "if i == n-1".
type interval struct {
	lo, hi int64
	pinned bool
}

var everything = interval{lo: math.MinInt64, hi: math.MaxInt64}

func (v interval) empty() bool  { return v.lo > v.hi }
func (v interval) single() bool { return v.lo == v.hi || v.pinned }

func (v interval) meet(w interval) interval {
	return interval{max(v.lo, w.lo), min(v.hi, w.hi), v.pinned || w.pinned}
}

// iterations bounds the loop index in the iterations that run each block,
// from the loop's range and the conditions on the index that lead to the
// block.
func (ix *indexer) iterations() []interval {
	n := len(ix.t.Blocks)
	out := make([]interval, n)
	for i := range out {
		out[i] = everything
	}
	if ix.loop == nil {
		return out
	}
	domain := everything
	if c, ok := ix.formOfArg(ix.loop.Init, ix.loop.Wide).constant(); ok {
		domain.lo = c
	}
	if c, ok := ix.formOfArg(ix.loop.Bound, ix.loop.Wide).constant(); ok {
		domain.hi = c - ix.loop.Delta - 1
	}
	guards := ix.guards()
	for bi := range out {
		out[bi] = domain
		for _, g := range guards[bi] {
			out[bi] = out[bi].meet(ix.condition(g.cond, g.truth))
		}
	}
	return out
}

// guard is a condition a block runs under: register cond has the value
// truth.
type guard struct {
	cond  ir.Reg
	truth bool
}

// guards returns the conditions each block runs under: the branches whose
// one successor, reached only from the branch, dominates the block.
func (ix *indexer) guards() [][]guard {
	if ix.guarded != nil {
		return ix.guarded
	}
	n := len(ix.t.Blocks)
	ix.guarded = make([][]guard, n)
	dom := ix.t.Dominators()
	preds := ix.t.Preds()
	for bi := range n {
		for d := range n {
			term := &ix.t.Blocks[d].Term
			if d == bi || !dom[bi].Has(d) || term.Kind != ir.Branch || term.Cond.Imm || term.Succs[0] == term.Succs[1] {
				continue
			}
			for k, s := range term.Succs {
				if dom[bi].Has(s) && len(preds[s]) == 1 {
					ix.guarded[bi] = append(ix.guarded[bi], guard{term.Cond.Reg, k == 0})
				}
			}
		}
	}
	return ix.guarded
}

// condition returns the loop index values for which the comparison in
// register c has the value truth, when it compares a multiple of the index
// with a constant.
func (ix *indexer) condition(c ir.Reg, truth bool) interval {
	in := ix.single(c)
	if in == nil || !in.Type.IsInteger() || len(in.Args) != 2 {
		return everything
	}
	op := in.Op
	if !truth {
		op = map[ir.Op]ir.Op{ir.OpEq: ir.OpNe, ir.OpNe: ir.OpEq, ir.OpLt: ir.OpGe, ir.OpGe: ir.OpLt, ir.OpLe: ir.OpGt, ir.OpGt: ir.OpLe}[op]
	}
	diff := ix.formOfArg(in.Args[0], in.Type).sub(ix.formOfArg(in.Args[1], in.Type))
	coeff, rest, ok := diff.split(indexSymbol)
	a, ok1 := coeff.constant()
	c0, ok2 := rest.constant()
	if ok && ok1 && a != 0 && !ok2 && op == ir.OpEq && rest.invariant() {
		return interval{lo: math.MinInt64, hi: math.MaxInt64, pinned: true}
	}
	if !ok || !ok1 || !ok2 || a == 0 {
		return everything
	}
	// a·i + c0 compared with 0: bound a·i from above by m or from below.
	atMost := func(m int64) interval {
		if a > 0 {
			return interval{lo: math.MinInt64, hi: floorDiv(m-c0, a)}
		}
		return interval{lo: ceilDiv(m-c0, a), hi: math.MaxInt64}
	}
	atLeast := func(m int64) interval {
		if a > 0 {
			return interval{lo: ceilDiv(m-c0, a), hi: math.MaxInt64}
		}
		return interval{lo: math.MinInt64, hi: floorDiv(m-c0, a)}
	}
	switch op {
	case ir.OpLt:
		return atMost(-1)
	case ir.OpLe:
		return atMost(0)
	case ir.OpGt:
		return atLeast(1)
	case ir.OpGe:
		return atLeast(0)
	case ir.OpEq:
		if c0%a != 0 {
			return interval{lo: 1, hi: 0}
		}
		return interval{lo: -c0 / a, hi: -c0 / a}
	}
	return everything
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// footprint bounds the indexes an access may touch over all the
// iterations that run it: [lo, hi], forms the same in every iteration,
// or nil when the index is not a sum of constant multiples of the loop
// index and counters.
func (ix *indexer) footprint(a *access) (lo, hi form) {
	if a.index == nil || a.index.has(isVarying) {
		return nil, nil
	}
	vars := []string{}
	a.index.symbols(func(s string) bool {
		if (isIndex(s) || isCounter(s)) && !slices.Contains(vars, s) {
			vars = append(vars, s)
		}
		return true
	})
	rest := a.index
	lo, hi = form{}, form{}
	for _, v := range vars {
		coeff, r, ok := rest.split(v)
		c, isConst := coeff.constant()
		if !ok || !isConst {
			return nil, nil
		}
		vlo, vhi := ix.valueRange(v, a.iters)
		if vlo == nil {
			return nil, nil
		}
		if c < 0 {
			vlo, vhi = vhi, vlo
		}
		lo, hi = lo.add(vlo.scale(c)), hi.add(vhi.scale(c))
		rest = r
	}
	lo, hi = lo.add(rest), hi.add(rest)
	if !lo.invariant() || !hi.invariant() {
		return nil, nil
	}
	return lo, hi
}

// valueRange bounds a variable of an index: the loop index over the
// iterations iters, within the loop's range, or a counter.
func (ix *indexer) valueRange(v string, iters interval) (lo, hi form) {
	if isCounter(v) {
		w := ix.widths[v]
		if w == nil {
			return nil, nil
		}
		return form{}, w.sub(constForm(1))
	}
	if ix.loop == nil {
		return nil, nil
	}
	lo = ix.formOfArg(ix.loop.Init, ix.loop.Wide)
	hi = ix.formOfArg(ix.loop.Bound, ix.loop.Wide).sub(constForm(ix.loop.Delta + 1))
	if c, ok := lo.constant(); iters.lo != math.MinInt64 && (!ok || iters.lo > c) {
		lo = constForm(iters.lo)
	}
	if c, ok := hi.constant(); iters.hi != math.MaxInt64 && (!ok || iters.hi < c) {
		hi = constForm(iters.hi)
	}
	return lo, hi
}

// readFromMemory reports whether index f depends on a value loaded from
// memory in the iteration, as dst[idx[i]] does.
func (ix *indexer) readFromMemory(f form) bool {
	return f.has(func(s string) bool {
		r, ok := regOf(s)
		if !ok || !isVarying(s) {
			return false
		}
		for in := ix.single(r); in != nil; in = ix.single(in.Args[0].Reg) {
			switch {
			case in.Op == ir.OpLoad || in.Op == ir.OpAtomicLoad:
				return true
			case in.Op != ir.OpConvert && in.Op != ir.OpMove || in.Args[0].Imm:
				return false
			}
		}
		return false
	})
}

// adds reports whether the write w stores a sum or difference: an update
// that an atomic add can make.
func (ix *indexer) adds(w *access) bool {
	if w.in.Op != ir.OpStore || w.in.Args[1].Imm {
		return false
	}
	in := ix.single(w.in.Args[1].Reg)
	return in != nil && (in.Op == ir.OpAdd || in.Op == ir.OpSub)
}
