package ptx

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/ir"
)

// Every return of a task branches to one exit block at the end of its
// entry, which ends in a global store that never runs: it is guarded by
// %ntid.x == 0, false in every launched block, which ptxas cannot know.
//
// Why: when a kernel ends right after its last loop (threads with no
// iterations leave before it, the others when it ends), ptxas for sm_90
// keeps the global-memory descriptor in ordinary registers and moves it
// into uniform ones (R2UR) before every global access in the loop, as if
// it could not keep it live across the loop. A global access after the
// loop keeps the descriptor live there, and ptxas loads it once into
// uniform registers before the loop (ULDC.64), as nvcc's code does. The
// guard costs a thread a few instructions once, at its end; RATIONALE.md
// has the measurements.

// exitSink is the word the never-taken store writes.
const exitSink = "qd_exit_sink"

// exitLabel is the entry's exit block.
const exitLabel = "$Lexit"

// declareExitSink declares the sink word when the module has a task.
func declareExitSink(b *strings.Builder, kernels []*ir.Kernel) {
	for _, k := range kernels {
		if len(k.Tasks) > 0 {
			fmt.Fprintf(b, "\n.global .align 4 .u32 %s;\n", exitSink)
			return
		}
	}
}

// writeExit appends a task's exit block to the entry's body.
func (e *entry) writeExit() {
	e.body.WriteString(exitLabel + ":\n")
	n, never := e.temp(ir.Uint32), e.temp(ir.Bool)
	e.emit("mov.u32 %s, %%ntid.x", n)
	e.emit("setp.eq.u32 %s, %s, 0", never, n)
	e.emit("@%s st.global.u32 [%s], 0", never, exitSink)
	e.emit("ret")
}
