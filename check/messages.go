package check

import (
	"fmt"
	"go/token"

	"github.com/qdgo/qd/ir"
)

// This file writes the dependence check's diagnostics. Each names the
// access as the source writes it, and the way out.

const loopAdvice = "accumulate in a variable declared before the loop instead (a reduction, such as sum += x[i]), use an atomic (atomic.AddInt32, qd.AtomicAdd, qd.AtomicMax, ...), or give each iteration its own element"

func (c *checker) everyIteration(w *access) {
	pos, text := c.describe(w)
	c.errorf(pos, fmt.Sprintf("every iteration of this parallel loop writes %s: iterations run at the same time, so their updates race and all but one are lost; %s", text, loopAdvice))
}

func (c *checker) lostUpdates(ix *indexer, w *access) {
	pos, text := c.describe(w)
	if !ix.readFromMemory(w.index) {
		c.errorf(pos, fmt.Sprintf("%s is read, changed and written back by iterations of this parallel loop that run at the same time and may use the same index, so updates would be lost; use an atomic instead: %s", text, atomicAdvice(w)))
		return
	}
	// A scatter: the indexes may well be distinct (a permutation), but
	// nothing in the kernel says so.
	way := "use an atomic where one makes this update (" + atomicAdvice(w) + "), or loop over the elements written, so that each iteration owns its element"
	if ix.adds(w) {
		way = fmt.Sprintf("add with qd.AtomicAdd(&%s, ...) instead, which is exact even where indexes repeat", text)
		if name := atomicName(w.in.Type); name != "" {
			way += fmt.Sprintf(" (or atomic.%s)", name)
		}
	}
	c.errorf(pos, fmt.Sprintf("%s is read, changed and written back by iterations of this parallel loop that run at the same time, at an index read from memory: the check cannot prove that two iterations never use the same index, and where they do, updates would be lost; %s", text, way))
}

// atomicAdvice names the atomic that adds to an element of the access's
// type.
func atomicAdvice(a *access) string {
	if name := atomicName(a.in.Type); name != "" {
		return "atomic." + name + ", or qd.AtomicAdd, qd.AtomicMin and qd.AtomicMax"
	}
	return "qd.AtomicAdd, qd.AtomicMin or qd.AtomicMax"
}

// atomicName names the function of sync/atomic that adds to a value of
// type t, if there is one.
func atomicName(t ir.Type) string {
	return map[ir.Type]string{ir.Int32: "AddInt32", ir.Int64: "AddInt64", ir.Uint32: "AddUint32", ir.Uint64: "AddUint64"}[t]
}

func (c *checker) conflict(y, x *access, why string) {
	pos, text := c.describe(y)
	xpos, xtext := c.describe(x)
	advice := "iterations run at the same time, in no order, so it may see the element before or after that write; read from a second slice, or write in one loop and read in a later one"
	switch {
	case x.atomic:
		advice = "use atomics for every access of the element in the loop (atomic.Load and atomic.Store), or read it in a later loop"
	case y.write:
		advice = "iterations run at the same time, in no order, so which write remains is not defined; give each iteration its own elements"
	}
	c.errorf(pos, fmt.Sprintf("%s %s (%s at %s): %s", text, why, xtext, c.src.Where(xpos), advice))
}

// describe places an access with the Source, or, where its instruction
// has no position, at the loop or statement its task comes from, so that
// no diagnostic goes without one.
func (c *checker) describe(a *access) (token.Pos, string) {
	pos, text := c.src.Describe(a.in, a.param)
	if !pos.IsValid() {
		pos = a.task.Pos
	}
	return pos, text
}

// silent is the Source of a check whose diagnostics are not shown.
type silent struct{}

func (silent) Describe(*ir.Instr, int) (token.Pos, string) { return token.NoPos, "" }
func (silent) Where(token.Pos) string                      { return "" }
