package check

import (
	"fmt"
	"sort"

	"github.com/qdgo/qd/ir"
)

// This file checks the qd.StreamParallel blocks of a group, which run at
// the same time on their own streams: two of them must not touch one
// element of a slice parameter when either writes it, unless both use
// atomics. Blocks may touch different parts of one slice, so each access
// is bounded by the elements it may touch over its whole task.

// Blocks checks the blocks of each group of k (tasks with StreamBlock and
// Group set), with the loops of their parallel tasks, and returns the
// races found and the pairs of different slice parameters, ordered, that
// two blocks of a group use so that one writes one of them: those must not
// overlap at launch.
func Blocks(k *ir.Kernel, loops map[*ir.Task]*Loop, src Source) ([]Diagnostic, [][2]int) {
	c := &checker{k: k, src: src}
	type blockSummary struct {
		reads, writes []bool
		accesses      []blockAccess
	}
	byBlock := map[int]*blockSummary{}
	groups := map[int][]int{}
	last := 0
	for _, t := range k.Tasks {
		if t.StreamBlock == 0 {
			continue
		}
		a := byBlock[t.StreamBlock]
		if a == nil {
			a = &blockSummary{reads: make([]bool, len(k.Params)), writes: make([]bool, len(k.Params))}
			byBlock[t.StreamBlock] = a
			groups[t.Group] = append(groups[t.Group], t.StreamBlock)
			last = max(last, t.Group)
		}
		reads, writes := paramAccess(k, t)
		for p := range k.Params {
			a.reads[p] = a.reads[p] || reads[p]
			a.writes[p] = a.writes[p] || writes[p]
		}
		a.accesses = append(a.accesses, blockAccesses(k, t, loops[t])...)
	}
	conflicts := map[[2]int]bool{}
	raced := map[*ir.Instr]bool{}
	for g := 1; g <= last; g++ {
		blocks := groups[g]
		for i, b1 := range blocks {
			for _, b2 := range blocks[i+1:] {
				a1, a2 := byBlock[b1], byBlock[b2]
				for p := range k.Params {
					for q := range k.Params {
						if p != q && (a1.writes[p] && (a2.reads[q] || a2.writes[q]) || a2.writes[p] && a1.reads[q]) {
							conflicts[[2]int{min(p, q), max(p, q)}] = true
						}
					}
					c.blockRace(p, a1.accesses, a2.accesses, raced)
				}
			}
		}
	}
	var pairs [][2]int
	for c := range conflicts {
		pairs = append(pairs, c)
	}
	sort.Slice(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
	return c.diags, pairs
}

// blockAccess is an access of a qd.StreamParallel block's task with the
// range of elements it may touch, [lo, hi]; nil bounds mean any element.
type blockAccess struct {
	access
	lo, hi form
}

func blockAccesses(k *ir.Kernel, t *ir.Task, lp *Loop) []blockAccess {
	ix := newIndexer(k, t, lp)
	var bas []blockAccess
	for _, a := range ix.accesses() {
		lo, hi := ix.footprint(&a)
		bas = append(bas, blockAccess{a, lo, hi})
	}
	return bas
}

// blockRace reports the first pair of accesses of parameter p by two
// blocks of a group that may touch one element, one of them writing it.
// Atomics do not race with each other. An access reported once (raced) is
// not reported with another block.
func (c *checker) blockRace(p int, first, second []blockAccess, raced map[*ir.Instr]bool) {
	// Writes first: x[i] += 1 is reported as the write it ends with.
	var ys []blockAccess
	for _, write := range []bool{true, false} {
		for _, y := range second {
			if y.param == p && y.write == write {
				ys = append(ys, y)
			}
		}
	}
	for _, y := range ys {
		if raced[y.in] {
			return // reported with another block
		}
		for _, x := range first {
			if x.param != p || !x.write && !y.write || x.atomic && y.atomic || disjoint(&x, &y) {
				continue
			}
			raced[y.in] = true
			verb := func(a *blockAccess) string {
				if a.write {
					return "writes"
				}
				return "reads"
			}
			pos, text := c.describe(&y.access)
			xpos, xtext := c.describe(&x.access)
			c.errorf(pos, fmt.Sprintf("data race on %s between qd.StreamParallel blocks: %s %s elements that %s (at %s) %s in a block that runs at the same time; put a plain statement between the two blocks to order them, or give them different slices or elements",
				c.k.Params[p].Name, text, verb(&y), xtext, c.src.Where(xpos), verb(&x)))
			return
		}
	}
}

// disjoint reports whether two accesses' ranges of elements cannot meet.
func disjoint(x, y *blockAccess) bool {
	if x.lo == nil || y.lo == nil {
		return false
	}
	below := func(hi, lo form) bool {
		d, ok := hi.sub(lo).constant()
		return ok && d < 0
	}
	return below(x.hi, y.lo) || below(y.hi, x.lo)
}

// paramAccess returns which slice parameters a task reads and writes,
// following addresses from each parameter's base through the task.
func paramAccess(k *ir.Kernel, t *ir.Task) (reads, writes []bool) {
	n := len(k.Params)
	from := pointsTo(k, t)
	reads, writes = make([]bool, n), make([]bool, n)
	for _, b := range t.Blocks {
		for _, in := range b.Instrs {
			// The op table says which ops touch memory, so that an op added
			// later (an atomic, which reads and writes) is not missed here.
			mem := in.Op.Info().Memory
			if mem == ir.MemNone {
				continue
			}
			if a := in.Args[0]; !a.Imm && from[a.Reg] != nil {
				for p, ok := range from[a.Reg] {
					reads[p] = reads[p] || ok && mem.Reads()
					writes[p] = writes[p] || ok && mem.Writes()
				}
			}
		}
	}
	return reads, writes
}
