package ptx

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
)

// A check compares and branches to a path of its own, out of the way of
// the code that passes it: there the values to record are moved into the
// entry's fault registers, and all paths go on to one record of the fault.
//
// The record is the module's, in page-locked host memory that the runtime
// passes as the last argument (rt's faultRecord): 32 bits the host
// acknowledges faults with, 32 bits the device counts them with, then
// where, the site and the two values. A thread claims it by moving the
// module's claim word in device memory from the number the host has
// acknowledged to the next, so only the first fault after an
// acknowledgement is written; it then stores the fault and, last, the new
// count, which tells the host a fault is there. The thread ends either
// way.

// claimSymbol is the module's claim word.
const claimSymbol = "qd_fault_claim"

// declareClaim declares the claim word when a kernel has fault sites.
func declareClaim(b *strings.Builder, kernels []*ir.Kernel) {
	for _, k := range kernels {
		if len(k.Sites) > 0 {
			fmt.Fprintf(b, "\n.global .align 4 .u32 %s;\n", claimSymbol)
			return
		}
	}
}

// faultRegs are the registers the check paths fill for the record.
type faultRegs struct {
	site, x, y string
}

func (e *entry) check(in *ir.Instr) {
	var cond, x, y string
	switch in.Op {
	case ir.OpCheckIndex, ir.OpCheckSlice:
		cond = "ge"
		if in.Op == ir.OpCheckSlice {
			cond = "gt"
		}
		x, y = e.arg(in.Args[0], ir.Int64), e.arg(in.Args[1], ir.Int64)
		p := e.temp(ir.Bool)
		e.emit("setp.%s.u64 %s, %s, %s", cond, p, e.regArg(in.Args[0], ir.Int64), y)
		e.failIf(p, in.Aux, x, y)
	case ir.OpCheckDivide:
		p := e.temp(ir.Bool)
		e.emit("setp.eq.%s %s, %s, 0", opType(in.Type), p, e.regArg(in.Args[0], in.Type))
		e.failIf(p, in.Aux, "0", "0")
	}
}

// failIf branches to a new fault path when p is set.
func (e *entry) failIf(p string, site int64, x, y string) {
	if e.fault == nil {
		e.fault = &faultRegs{site: e.temp(ir.Uint32), x: e.temp(ir.Int64), y: e.temp(ir.Int64)}
	}
	label := fmt.Sprintf("$Lfault_%d", e.checks)
	e.checks++
	e.emit("@%s bra %s", p, label)
	fmt.Fprintf(&e.faults, "%s:\n", label)
	for _, line := range []string{
		fmt.Sprintf("mov.u32 %s, %d", e.fault.site, site),
		fmt.Sprintf("mov.b64 %s, %s", e.fault.x, x),
		fmt.Sprintf("mov.b64 %s, %s", e.fault.y, y),
		"bra.uni $Lfault",
	} {
		fmt.Fprintf(&e.faults, "\t%s;\n", line)
	}
}

// writeFaults appends the check paths and the record of the fault to the
// entry's body.
func (e *entry) writeFaults() {
	if e.fault == nil {
		return
	}
	e.body.WriteString(e.faults.String())
	e.body.WriteString("$Lfault:\n")
	rec, ack, next, old, lost := e.temp(ir.Uint64), e.temp(ir.Uint32), e.temp(ir.Uint32), e.temp(ir.Uint32), e.temp(ir.Bool)
	e.emit("ld.param.u64 %s, [%s]", rec, e.paramName(e.slot(-1, ir.SlotFault)))
	e.emit("cvta.to.global.u64 %s, %s", rec, rec)
	e.emit("ld.relaxed.sys.global.u32 %s, [%s]", ack, rec)
	e.emit("add.u32 %s, %s, 1", next, ack)
	e.emit("atom.global.cas.b32 %s, [%s], %s, %s", old, claimSymbol, ack, next)
	e.emit("setp.ne.u32 %s, %s, %s", lost, old, ack)
	e.emit("@%s exit", lost)
	e.emit("st.global.u32 [%s+8], %d", rec, e.where)
	e.emit("st.global.u32 [%s+12], %s", rec, e.fault.site)
	e.emit("st.global.u64 [%s+16], %s", rec, e.fault.x)
	e.emit("st.global.u64 [%s+24], %s", rec, e.fault.y)
	e.emit("membar.sys")
	e.emit("st.volatile.global.u32 [%s+4], %s", rec, next)
	e.emit("exit")
}
