package opt

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/analysis"
)

// The IR is not SSA, so what a register holds at a site of a loop is
// worked out here from the instructions that assign it, as an expression
// of the loop's counter (its value at the start of the iteration) and of
// values the loop does not change. Passes that reason about all the
// iterations of a loop at once read indices and bounds this way.

// expr is an expression tree of what a register holds at a site (a site
// at a block's number of instructions is its terminator).
type expr struct {
	op       ir.Op // OpInvalid: a leaf
	typ      ir.Type
	from     ir.Type
	aux      int64
	args     []*expr
	leaf     ir.Arg // a leaf: a register the loop does not assign, or an immediate
	counter  bool   // a leaf: the loop's counter at the start of the iteration
	unknown  bool   // a leaf: a value not followed, such as a load's
	key      string // equal keys, equal values in one iteration
	variant  bool   // depends on the counter
	opaque   bool   // holds an unknown leaf: it cannot be computed elsewhere
	constant bool   // an immediate
	// origin is the instruction that assigned the value, when it is the
	// only assignment of its register in the loop: ir/analysis bounds the
	// value there (spanOf).
	origin *site
	// division is, for an unknown leaf that a division or remainder by a
	// variable assigned, that operation: never computed elsewhere, but
	// bounded through its operands (quotientSpan).
	division *expr
}

// loopValues resolves the registers read in one loop.
type loopValues struct {
	t       *ir.Task
	lp      *ir.Loop
	dom     []ir.BlockSet
	latch   int // the loop's only latch
	defs    map[ir.Reg][]site
	counter ir.Reg // NoReg when the loop has none
	step    ir.Arg // what the counter advances by in each iteration: positive
	advance site   // from here on the counter holds the next iteration's value
	memo    map[site]*expr
	busy    map[site]bool
	unknown int
	facts   *analysis.Analysis // made when first asked for (analysed)
	below   *limit             // the counter's limit where a span is asked for (spanned)
	// checkAt is the check whose index spanOf bounds, when it bounds one:
	// the comparisons that dominate the check bound the index's parts
	// there (analysed).
	checkAt *site
	// divide lets spanOf bound quotients and remainders by values the
	// loop does not change, at the cost of a division before it.
	divide bool
}

// newLoopValues takes lp's counter from ir/analysis: a 64-bit induction
// variable that lp's only latch advances by a positive step, a constant
// up to 2^32 or the grid's thread count, with "i = add i, s" or through a
// register that holds the sum.
func newLoopValues(t *ir.Task, lp *ir.Loop, dom []ir.BlockSet) *loopValues {
	lv := &loopValues{t: t, lp: lp, dom: dom, latch: -1, counter: ir.NoReg,
		defs: map[ir.Reg][]site{}, memo: map[site]*expr{}, busy: map[site]bool{}}
	if len(lp.Latches) != 1 {
		return lv
	}
	lv.latch = lp.Latches[0]
	for _, bi := range lp.Blocks() {
		for i := range t.Blocks[bi].Instrs {
			lv.addDefs(site{bi, i})
		}
	}
	an := analysis.New(t)
	l := an.LoopAt(lp.Header)
	if l == nil {
		return lv
	}
	var counter *analysis.IndVar
	for _, iv := range l.IndVars {
		sum := an.Instr(iv.Sum)
		step, isConst := iv.Step.IsConst()
		switch {
		case iv.Update.Block != lv.latch || iv.Type != ir.Int64 || sum.Op != ir.OpAdd:
		case isConst && (step <= 0 || step > 1<<32), !isConst && !iv.GridStride():
		case counter == nil || iv.Update.At < counter.Update.At:
			counter = iv
		}
	}
	if counter == nil {
		return lv
	}
	lv.counter, lv.advance, lv.step = counter.Reg, site{lv.latch, counter.Update.At + 1}, counter.StepArg
	return lv
}

// newTaskValues resolves registers anywhere in t, as if t were one loop
// without a counter.
func newTaskValues(t *ir.Task) *loopValues {
	whole := &ir.Loop{In: make([]bool, len(t.Blocks))}
	lv := &loopValues{t: t, lp: whole, dom: t.Dominators(), latch: -1, counter: ir.NoReg,
		defs: map[ir.Reg][]site{}, memo: map[site]*expr{}, busy: map[site]bool{}}
	for bi, b := range t.Blocks {
		whole.In[bi] = true
		for i := range b.Instrs {
			lv.addDefs(site{bi, i})
		}
	}
	return lv
}

// addDefs records the registers the instruction at p assigns: a call's
// results too, which a register the loop assigns nowhere else would
// otherwise pass for a value from before the loop, computed there.
func (lv *loopValues) addDefs(p site) {
	for _, r := range lv.instr(p).Defs() {
		lv.defs[r] = append(lv.defs[r], p)
	}
}

func (lv *loopValues) instr(p site) *ir.Instr { return &lv.t.Blocks[p.block].Instrs[p.at] }

// resolve returns what a holds at p, a site in the loop.
func (lv *loopValues) resolve(a ir.Arg, p site) *expr {
	if a.Imm {
		return &expr{leaf: a, key: fmt.Sprintf("#%d", int64(a.Bits)), constant: true}
	}
	r := a.Reg
	if r == lv.counter {
		c := &expr{counter: true, key: "counter", variant: true}
		if p.block == lv.advance.block && p.at >= lv.advance.at {
			return lv.node(ir.OpAdd, ir.Int64, ir.Invalid, 0, c, lv.resolve(lv.step, p))
		}
		return c
	}
	defs := lv.defs[r]
	if len(defs) == 0 {
		return &expr{leaf: a, key: fmt.Sprintf("r%d", r)}
	}
	reaching := false
	for _, d := range defs {
		reaching = reaching || dominates(lv.dom, d, p)
	}
	if !reaching {
		return lv.opaque()
	}
	// Assignments that all compute the same value, one of them in every
	// iteration before p, leave that value at p.
	v := lv.assigned(defs[0])
	for _, d := range defs[1:] {
		if w := lv.assigned(d); w.key != v.key || w.opaque {
			return lv.opaque()
		}
	}
	if len(defs) > 1 && v.origin != nil {
		copied := *v
		copied.origin = nil
		return &copied
	}
	return v
}

// assigned returns the value the instruction at d assigns.
func (lv *loopValues) assigned(d site) *expr {
	if v, ok := lv.memo[d]; ok {
		return v
	}
	if lv.busy[d] {
		return lv.opaque() // a value carried from an earlier iteration
	}
	lv.busy[d] = true
	defer delete(lv.busy, d)
	in := lv.instr(d)
	var v *expr
	switch {
	case (in.Op == ir.OpDiv || in.Op == ir.OpRem) && in.Type.IsInteger() && (!in.Args[1].Imm || in.Args[1].Bits == 0):
		v = lv.opaque() // computed elsewhere, it could divide by zero where Go does not
		if !in.Args[1].Imm {
			v.division = lv.node(in.Op, in.Type, in.From, in.Aux, lv.resolve(in.Args[0], d), lv.resolve(in.Args[1], d))
		}
	case in.Op.Info().Pure:
		args := make([]*expr, len(in.Args))
		for i, a := range in.Args {
			args[i] = lv.resolve(a, d)
		}
		v = lv.node(in.Op, in.Type, in.From, in.Aux, args...)
	case in.Op == ir.OpParam, in.Op == ir.OpParamLen, in.Op == ir.OpParamBase, in.Op == ir.OpThreadCount:
		v = lv.node(in.Op, in.Type, in.From, in.Aux)
	default:
		v = lv.opaque()
	}
	v.origin = &d
	lv.memo[d] = v
	return v
}

func (lv *loopValues) opaque() *expr {
	lv.unknown++
	return &expr{unknown: true, opaque: true, key: fmt.Sprintf("?%d", lv.unknown)}
}

func (lv *loopValues) node(op ir.Op, typ, from ir.Type, aux int64, args ...*expr) *expr {
	v := &expr{op: op, typ: typ, from: from, aux: aux, args: args}
	keys := make([]string, len(args))
	for i, a := range args {
		keys[i] = a.key
		v.variant = v.variant || a.variant
		v.opaque = v.opaque || a.opaque
	}
	v.key = fmt.Sprintf("%s.%s.%s.%d(%s)", op, typ, from, aux, strings.Join(keys, ","))
	return v
}

// invariant reports whether v is the same in every iteration and can be
// computed before the loop.
func (v *expr) invariant() bool { return !v.variant && !v.opaque }
