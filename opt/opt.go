// Package opt transforms kernel IR into faster kernel IR with the same
// results. It depends on the IR alone, not on go/ssa or on any backend.
//
// Passes are functions over one task or one kernel, each in a file of its
// own, and run in the order a Pipeline declares. The IR's sanity checker
// runs after every pass, so a pass that breaks an invariant is named at
// once instead of showing up as wrong code three stages later. Each pass
// has golden tests of its own: testdata/<pass>/X.ir, run through the pass
// alone, must print as X.out.ir.
package opt

import (
	"fmt"

	"github.com/qdgo/qd/ir"
)

// A Pass is one transformation. Exactly one of Task and Kernel is set:
// most passes work on one task at a time, and on each of the kernel's
// functions the same way.
type Pass struct {
	Name   string
	Task   func(*ir.Task)
	Kernel func(*ir.Kernel)
}

// A Pipeline is an ordered list of passes.
type Pipeline []Pass

// Default is the pipeline every backend uses today. A backend may declare
// its own from the same passes.
var Default = Pipeline{
	{Name: "commute", Task: CommuteImmediates},
	{Name: "checks", Task: RemoveRepeatedChecks},
	{Name: "promote", Task: PromoteLocals},
	{Name: "tables", Kernel: FoldTableLoads},
	{Name: "recipdiv", Task: MultiplyByReciprocals},
	{Name: "deadcode", Task: RemoveDeadCode},
	{Name: "simplifycfg", Task: SimplifyCFG},
	{Name: "fullunroll", Task: FullyUnrollLoops},
	{Name: "constprop", Task: PropagateConstants},
	{Name: "promote", Task: PromoteLocals},
	// Before divisions by constants become multiplications, whose
	// results the range analysis cannot bound: tile[e/w][e%w] in a loop
	// of e < w*w needs no checks.
	{Name: "provenchecks", Task: RemoveProvenChecks},
	// After full unrolling, where sums of a few small values are known
	// to fit in 32 bits, and divisors that became constants are.
	{Name: "divconst", Task: DivideByConstants},
	{Name: "tables", Kernel: FoldTableLoads},
	{Name: "deadcode", Task: RemoveDeadCode},
	{Name: "simplifycfg", Task: SimplifyCFG},
	// Again, where promoting a thread's locals to registers left loops
	// of a block-level task small enough.
	{Name: "fullunroll", Task: FullyUnrollLoops},
	{Name: "promote", Task: PromoteLocals},
	{Name: "gridstride", Task: DropGridStrideTests},
	{Name: "provenchecks", Task: RemoveProvenChecks},
	{Name: "privatize", Task: PrivatizeAtomics},
	{Name: "hoistchecks", Task: HoistChecks},
	{Name: "gridunroll", Task: UnrollGridStride},
	{Name: "proventests", Task: RemoveProvenTests},
	{Name: "cse", Task: EliminateCommonSubexpressions},
	{Name: "offsets", Task: SplitAddressOffsets},
	{Name: "cse", Task: EliminateCommonSubexpressions},
	{Name: "licm", Task: HoistInvariants},
	{Name: "strength", Task: ReduceStrength},
	// While HoistChecks' copies with checks are known, which the test of
	// a stride falls back to.
	{Name: "steps32", Task: NarrowPointerSteps},
	{Name: "narrow", Task: NarrowCounters},
	{Name: "index32", Task: NarrowIndices},
	{Name: "fma", Kernel: FuseMultiplyAdds},
	{Name: "constprop", Task: PropagateConstants},
	{Name: "deadcode", Task: RemoveDeadCode},
	{Name: "simplifycfg", Task: SimplifyCFG},
	{Name: "divrem", Task: FuseDivRem},
	{Name: "licm", Task: HoistInvariants},
	{Name: "cse", Task: EliminateCommonSubexpressions},
	// After the checks left loops and their addresses were hoisted.
	{Name: "accumulators", Kernel: KeepAccumulatorsInRegisters},
	{Name: "invdiv", Task: DivideByInvariants},
	// Before unrolling copies the loops' exits.
	{Name: "uneven", Task: MarkUnevenIterations},
	{Name: "unroll", Task: UnrollLoops},
	{Name: "promote", Task: PromoteLocals},
	{Name: "shrink", Task: ShrinkLiveRanges},
	{Name: "sink", Task: SinkToUses},
	// After sink, which would move the addresses back down.
	{Name: "speculate", Task: SpeculateGuardedStores},
	{Name: "deadcode", Task: RemoveDeadCode},
	{Name: "simplifycfg", Task: SimplifyCFG},
	// Last, on the loops as they will run: it copies a block loop's test.
	{Name: "lastbarrier", Task: WaitOnlyForNextBlock},
	{Name: "droptasks", Kernel: DropEmptyTasks},
}

// Run applies the passes to k in order and checks the IR after each one.
func (p Pipeline) Run(k *ir.Kernel) error {
	for _, pass := range p {
		if pass.Kernel != nil {
			pass.Kernel(k)
		} else {
			for _, t := range k.Bodies() {
				pass.Task(t)
			}
		}
		if err := k.Check(); err != nil {
			return fmt.Errorf("after pass %s: %w", pass.Name, err)
		}
	}
	return nil
}

// Lookup returns the pass of the given name in p.
func (p Pipeline) Lookup(name string) (Pass, bool) {
	for _, pass := range p {
		if pass.Name == name {
			return pass, true
		}
	}
	return Pass{}, false
}
