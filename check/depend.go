package check

import (
	"math"

	"github.com/qdgo/qd/ir"
)

// This file is the dependence check of parallel loops. The iterations of
// a top-level loop run at the same time on the GPU, in no order, so two
// iterations must not touch one slice element when either writes it
// without an atomic. The check reports what it can show to be such a
// conflict, at the access, with the other access's position:
//
//   - a write to an element every iteration addresses: out[0] += x[i];
//   - a read-modify-write at an index that is not distinct per iteration:
//     bins[b]++;
//   - a read, or a write, of an element another iteration writes:
//     x[i] += x[i-1];
//   - a plain access of an element other iterations update atomically.
//
// What it cannot decide it accepts: a write through an index read from
// memory (dst[idx[i]] = src[i]) is a permutation's scatter, and the CPU
// race mode finds the rest dynamically.

// Result is what the dependence check finds in a kernel.
type Result struct {
	Diagnostics []Diagnostic
	// Conditions holds, for a task whose iterations are distinct only
	// under conditions on parameters and lengths, those conditions: the
	// task runs in parallel when all hold, and otherwise on one thread,
	// iteration after iteration, as Go does.
	Conditions map[*ir.Task][]Condition
}

// Condition is a fact the kernel tests at launch: Test, a bool
// expression, and Text, the same as Go source writes it ("stride != 0").
type Condition struct {
	Test *ir.Expr
	Text string
}

// Dependences checks the parallel tasks of k, each with its loop in
// loops (serial tasks have none there).
func Dependences(k *ir.Kernel, loops map[*ir.Task]*Loop, src Source) Result {
	c := &checker{k: k, src: src}
	r := Result{Conditions: map[*ir.Task][]Condition{}}
	for _, t := range k.Tasks {
		if lp := loops[t]; lp != nil {
			ix := newIndexer(k, t, lp)
			c.checkLoop(ix, ix.accesses())
			if len(ix.conditions) > 0 {
				r.Conditions[t] = ix.conditions
			}
		}
	}
	r.Diagnostics = c.diags
	return r
}

// Conflicts reports whether iterations of loop lp of task t conflict,
// without saying how: a nest whose inner level's iterations do runs that
// level serially instead.
func Conflicts(k *ir.Kernel, t *ir.Task, lp *Loop) bool {
	c := &checker{k: k, src: silent{}}
	ix := newIndexer(k, t, lp)
	c.checkLoop(ix, ix.accesses())
	return len(c.diags) > 0
}

// NeedsConditions reports whether the iterations of loop lp of task t
// are distinct only under launch conditions, which a task that cannot run
// serially (lp not Versioned) cannot test: a nest is then built as a loop
// whose inner levels run in each iteration, which can.
func NeedsConditions(k *ir.Kernel, t *ir.Task, lp *Loop) bool {
	versioned := *lp
	versioned.Versioned = true
	c := &checker{k: k, src: silent{}}
	ix := newIndexer(k, t, &versioned)
	c.checkLoop(ix, ix.accesses())
	return len(c.diags) == 0 && len(ix.conditions) > 0
}

func (c *checker) checkLoop(ix *indexer, as []access) {
	plainWrite := func(a *access) bool { return a.write && !a.atomic && a.index != nil }
	plainRead := func(a *access) bool { return a.read && !a.atomic && a.index != nil }
	done := map[*ir.Instr]bool{}
	// Elements each iteration owns as one of a pair (a[i], a[i^j]).
	for _, a := range ix.pairedAccesses(as) {
		done[a] = true
	}
	// An element every iteration writes.
	for i := range as {
		w := &as[i]
		if plainWrite(w) && !w.index.has(isIndex) && !w.index.has(isVarying) && !w.iters.single() {
			c.everyIteration(w)
			done[w.in] = true
			for j := range as {
				if r := &as[j]; plainRead(r) && r.param == w.param && r.index.equal(w.index) {
					done[r.in] = true // the same element: its write is reported
				}
			}
		}
	}
	// Read-modify-writes of elements that other iterations may update.
	for i := range as {
		w := &as[i]
		if !plainWrite(w) || done[w.in] || w.iters.single() {
			continue
		}
		for j := range as {
			r := &as[j]
			if !plainRead(r) || r.param != w.param || !r.index.equal(w.index) {
				continue
			}
			if ok, conds := ix.distinct(w.index); ok && (len(conds) == 0 || ix.assume(conds)) {
				break
			}
			c.lostUpdates(ix, w)
			done[w.in], done[r.in] = true, true
			break
		}
	}
	// Accesses of elements another iteration writes.
	for j := range as {
		y := &as[j]
		if y.index == nil || done[y.in] {
			continue
		}
		for i := range as {
			x := &as[i]
			if i == j || x.param != y.param || x.index == nil || done[x.in] {
				continue
			}
			var why string
			switch {
			case plainWrite(x) && plainRead(y) && !y.write:
				why = "reads an element that another iteration writes"
			case plainWrite(x) && plainWrite(y) && i < j:
				why = "writes an element that another iteration writes"
			case x.atomic && !y.atomic:
				why = "is not atomic, but other iterations update the element atomically"
			default:
				continue
			}
			if ix.conflict(x, y) {
				c.conflict(y, x, why)
				done[y.in] = true
				break
			}
		}
	}
}

// conflict reports whether x, in one iteration, and y, in another, can be
// shown to touch the same element: for iterations i and j, where each
// runs its access, x.index(i) = y.index(j) for counters equal in both.
func (ix *indexer) conflict(x, y *access) bool {
	f, g := x.index, y.index
	if f.has(isVarying) || g.has(isVarying) {
		return false
	}
	a, rf, ok1 := f.split(indexSymbol)
	b, rg, ok2 := g.split(indexSymbol)
	if !ok1 || !ok2 || !a.invariant() || !b.invariant() {
		return false
	}
	// Counters the two indexes share cancel when both iterations are at the
	// same count, which both reach unless their loop's length depends on
	// the iteration.
	for _, r := range []form{rf, rg} {
		if r.has(func(s string) bool { return isCounter(s) && ix.widths[s].has(isIndex) }) {
			return false
		}
	}
	// a·i + rf = b·j + rg, so a·i - b·j = d.
	d := rg.sub(rf)
	if d.has(isCounter) {
		return false
	}
	if x.iters.pinned || y.iters.pinned {
		// One iteration of unknown index: only a conflict with every other
		// iteration is certain.
		return len(a) == 0 && len(b) == 0 && len(d) == 0 && !(x.iters.single() && y.iters.single())
	}
	switch {
	case len(a) > 0 && a.equal(b):
		// i = j + k.
		k, ok := d.ratio(a)
		if len(d) == 0 || !ok {
			return false
		}
		return !x.iters.meet(y.iters.shift(k)).empty()
	case len(b) == 0 && len(a) == 0:
		// One element for both: another iteration must make the other access.
		return len(d) == 0 && !x.iters.empty() && !y.iters.empty() &&
			!(x.iters.single() && y.iters.single() && x.iters.lo == y.iters.lo)
	}
	ac, ok1 := a.constant()
	bc, ok2 := b.constant()
	dc, ok3 := d.constant()
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	return solve(ac, bc, dc, x.iters, y.iters)
}

// shift adds k to the interval's bounds.
func (v interval) shift(k int64) interval {
	add := func(b int64) int64 {
		switch {
		case b == math.MinInt64 || b == math.MaxInt64:
			return b
		case k > 0 && b > math.MaxInt64-k:
			return math.MaxInt64
		case k < 0 && b < math.MinInt64-k:
			return math.MinInt64
		}
		return b + k
	}
	return interval{add(v.lo), add(v.hi), v.pinned}
}

// solve searches for iterations i in vi and j in vj, i ≠ j, with
// a·i - b·j = d, among the first values of each range.
func solve(a, b, d int64, vi, vj interval) bool {
	const window = 256
	start := func(v interval) (int64, int64) {
		lo := v.lo
		if lo == math.MinInt64 {
			lo = min(-window/2, v.hi-window)
		}
		return lo, min(v.hi, lo+window)
	}
	lo, hi := start(vi)
	for i := lo; i <= hi; i++ {
		if b == 0 {
			if a*i == d {
				return vj.lo < vj.hi || vj.lo != i
			}
			continue
		}
		if (a*i-d)%b != 0 {
			continue
		}
		if j := (a*i - d) / b; j != i && j >= vj.lo && j <= vj.hi {
			return true
		}
	}
	return false
}
