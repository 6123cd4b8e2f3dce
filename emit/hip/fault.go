package hip

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
)

// A check that fails goes to the function's fault path with the site and
// the two values to record. The record is the module's, in page-locked
// host memory that the runtime passes as the last argument (rt's
// faultRecord), laid out as the PTX emitter writes it: 32 bits the host
// acknowledges faults with, 32 bits the device counts them with, then
// where, the site and the two values. A thread claims it by moving the
// module's claim word from the number the host has acknowledged to the
// next, so only the first fault after an acknowledgement is written; it
// then stores the fault and, last, the new count, which tells the host a
// fault is there. The thread ends either way.

// claimSymbol is the module's claim word.
const claimSymbol = "qd_fault_claim"

// declareClaim declares the claim word when a kernel has fault sites.
func declareClaim(b *strings.Builder, kernels []*ir.Kernel) {
	for _, k := range kernels {
		if len(k.Sites) > 0 {
			fmt.Fprintf(b, "\n__device__ u32 %s;\n", claimSymbol)
			return
		}
	}
}

// hasChecks reports whether the task checks anything.
func hasChecks(t *ir.Task) bool {
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			if b.Instrs[i].Op.Info().Checks {
				return true
			}
		}
	}
	return false
}

func (f *function) check(in *ir.Instr) {
	switch in.Op {
	case ir.OpCheckIndex, ir.OpCheckSlice:
		cmp := ">="
		if in.Op == ir.OpCheckSlice {
			cmp = ">"
		}
		x, y := f.arg(in.Args[0], ir.Int64), f.arg(in.Args[1], ir.Int64)
		f.line("if ((u64)%s %s (u64)%s) { qd_site = %d; qd_x = %s; qd_y = %s; goto qd_fault; }", x, cmp, y, in.Aux, x, y)
	case ir.OpCheckDivide:
		f.line("if (%s == 0) { qd_site = %d; qd_x = 0; qd_y = 0; goto qd_fault; }", f.arg(in.Args[0], in.Type), in.Aux)
	}
}

// writeFault appends the fault path, which records the fault in the
// record of the module's first fault (the last argument) and ends the
// thread.
func (f *function) writeFault() {
	if !f.checks {
		return
	}
	rec := f.param(-1, ir.SlotFault)
	f.atKnown = false
	f.raw("qd_fault: {\n")
	for _, line := range []string{
		fmt.Sprintf("u32 *rec = (u32 *)%s, ack = *(volatile u32 *)rec;", rec),
		fmt.Sprintf("if (atomicCAS(&%s, ack, ack + 1) != ack) return;", claimSymbol),
		fmt.Sprintf("rec[2] = %du;", f.where),
		"rec[3] = qd_site;",
		"*(i64 *)(rec + 4) = qd_x;",
		"*(i64 *)(rec + 6) = qd_y;",
		"__threadfence_system();",
		"*(volatile u32 *)(rec + 1) = ack + 1;",
		"return;",
	} {
		f.line("%s", line)
	}
	f.raw("}\n")
}
