// Package analysis is the one loop, induction-variable, affine-form and
// range analysis of the IR, which the passes and the checks read instead
// of recognizing loops for themselves.
//
// New(t) analyses a task as it is; a pass that changes the task makes a
// new Analysis. The IR is not SSA (ir.Task): a loop carries its counter
// in a register it reassigns, so what a register holds at a Site is
// worked out from the assignments that reach the site.
//
// # Loops
//
// Analysis.Loops lists the natural loops (ir.NaturalLoops over the
// task's dominators), outer loops first. Each Loop has its Header,
// Latches, Blocks, Exits (edges out of it), Preheader (or -1), Parent,
// Children and Depth. LoopOf(b) is the innermost loop holding block b,
// LoopAt(h) the loop headed by h, Innermost() the loops holding no other.
//
// # Induction variables
//
// Loop.IndVars are the basic induction variables: a register the loop
// assigns once per iteration (in a block of no inner loop that dominates
// every latch) with itself plus or minus an invariant Step, directly
// ("i = add i, 1") or through a register ("t = add i, s; i = move t").
// The step may be a constant of either sign or a value known before the
// loop, such as the thread count of a grid-stride loop. Each has its
// Start (or, for a counter that goes up from where other loops left it,
// Least: a form no value on entry is below), its ExitTest (counter +
// Offset Op Bound, for lt, le, gt, ge and ne), whether it provably never wraps (NoWrap), and then its symbolic
// TripCount. Reach bounds every value a counter takes by its exit test
// (i < n stepping by 4 stays at most n + 3), and ClimbsBelow tells a
// counter that cannot wrap while its start and bound are at most a value,
// which a test before the loop may show. Loop.Derived are the registers the loop assigns an affine
// function of its counters; Loop.IndVar(r) finds a basic one.
// GridShared(lp) tells a loop whose iterations the grid's threads share:
// one that steps a register by a value computed from the thread count, a
// grid-stride loop's index or a collapsed nest's carried indices.
//
// # Affine forms
//
// AffineOf(arg, site) gives an Affine: Σ Coeff·Factors + Const over
// 64-bit integers with wraparound, exactly what the IR's 64-bit integer
// arithmetic computes, so equal forms are equal values whatever
// overflows. Atoms are loop counters (Counter, a basic induction
// variable's value at the start of the iteration), scalar parameters
// (Param), slice lengths (Len), ThreadIndex, ThreadCount, and Value: what
// one instruction assigned, for values that are not affine (a load, a
// mask). Forms of narrower types stand only where their range proves
// that the IR's arithmetic in that type does not wrap. Affine has Add,
// Sub, Scale, Mul, Split (coeff·x + rest), Coeff, IsConst and Equal.
// Invariant(f, lp) tells a form the same in every iteration of lp: one
// that holds no counter of lp or of a loop in it, and no value lp
// assigns, as the coefficient and the rest of an index split by lp's
// counter must be for a pass to bound the index before the loop.
//
// # Ranges
//
// RangeOf(arg, site) and FormRange(form, site) give a Range: numeric
// bounds [Min, Max] and symbolic Lower and Upper bounds, affine forms of
// outer counters, parameters and lengths (a triangular j := i+1; j < n
// gets i+1 <= j <= n-1). They come from the comparisons that dominate the
// site (Facts: branch conditions, and index and slice checks that passed;
// x != e moves a bound that is e past it, i >= 1 in the else of i == 0),
// from counters' starts, from min and max, masks, shifts, remainders,
// xor and or of values of known width, conversions, and from the
// hardware's limits on values known at launch (MaxLen, MaxThreads).
//
// # Printing
//
// Print(w, kernel) and String write a stable text form, which the golden
// tests testdata/X.ir → X.analysis check (go test ./ir/analysis -update
// rewrites them).
package analysis
