package check

import "github.com/qdgo/qd/ir"

// ThreadLoops checks the thread loops of a block-level task t, each
// described by a Loop whose Within marks the task's blocks that belong to
// it: the threads of a block run a thread loop's iterations at the same
// time, so two of them must not touch one slice element when either
// writes it, as for the iterations of a parallel loop. Thread loops that
// follow each other are ordered by the barrier between them.
func ThreadLoops(k *ir.Kernel, t *ir.Task, loops []*Loop, src Source) []Diagnostic {
	c := &checker{k: k, src: src}
	for _, lp := range loops {
		ix := newIndexer(k, t, lp)
		var as []access
		for _, a := range ix.accesses() {
			if lp.Within[a.block] {
				as = append(as, a)
			}
		}
		c.checkLoop(ix, as)
	}
	return c.diags
}
