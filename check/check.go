// Package check finds the memory conflicts of a lowered kernel that
// would make its GPU run differ from Go's: iterations of a parallel loop
// that touch one slice element when one of them writes it (depend.go),
// and qd.StreamParallel blocks of a group that do (blocks.go).
//
// It reads the kernel's IR as lowering leaves it, before optimization,
// and a description of each parallel task's loop (Loop), so that it
// depends on nothing of how the kernel was lowered. Its findings are
// diagnostics, which a Source places in the program's text, and launch
// conditions: facts on parameters and lengths under which a loop's
// iterations are distinct, which the kernel tests before it runs them.
package check

import (
	"go/token"

	"github.com/qdgo/qd/ir"
)

// Loop describes the parallel loop of a task: the register of its index,
// which iteration k sets to Init+k, and the iterations that run, those
// with index+Delta < Bound.
type Loop struct {
	Index       ir.Reg
	Init, Bound ir.Arg // of type Wide
	Wide        ir.Type
	Delta       int64
	// A loop nest that runs as one parallel loop is checked once per
	// level, as the loop of that level's index: the indexes of the levels
	// outside it (Fixed) are then the same in the two iterations compared,
	// and those of the levels inside it (Counters) count like inner loops'
	// counters.
	Fixed    map[ir.Reg]bool
	Counters map[ir.Reg]Counter
	// Versioned says that the task can run its iterations one after the
	// other on one thread, when a condition tested at launch fails: the
	// check may then accept iterations that are distinct under such a
	// condition (Result.Conditions).
	Versioned bool
	// Within, for a thread loop of a block-level task (ThreadLoops),
	// marks the task's blocks that run its iterations.
	Within []bool
}

func (lp *Loop) counter(r ir.Reg) (Counter, bool) {
	if lp == nil {
		return Counter{}, false
	}
	c, ok := lp.Counters[r]
	return c, ok
}

// Counter is the index of an inner level of a loop nest: Init+k for k
// from 0 to Count-1.
type Counter struct {
	Init  ir.Arg // of type Wide
	Wide  ir.Type
	Count ir.Arg // of type u64
}

// Source places accesses in the program's text for the diagnostics.
type Source interface {
	// Describe returns where an access of slice parameter param is and how
	// the source writes it ("x[i+1]").
	Describe(in *ir.Instr, param int) (token.Pos, string)
	// Where formats a position inside a message: file:line:column.
	Where(pos token.Pos) string
}

// Diagnostic is a conflict found, at the access it concerns.
type Diagnostic struct {
	Pos     token.Pos
	Message string
}

// checker collects the diagnostics of one kernel.
type checker struct {
	k     *ir.Kernel
	src   Source
	diags []Diagnostic
}

func (c *checker) errorf(pos token.Pos, message string) {
	c.diags = append(c.diags, Diagnostic{pos, message})
}
