// Package lower translates the go/ssa form of a //qd:kernel function into the
// kernel IR of package ir. Package opt optimizes what it produces.
//
// The kernel's control-flow graph is cut into tasks. A top-level counted loop
// (for i := range n, for i := range s, for i := a; i < b; i++) becomes a
// parallel task whose iterations are shared by the threads of a grid. The
// code between such loops becomes serial tasks that run on one thread. Tasks
// run in program order on one stream, so each sees what the earlier ones
// wrote. Calls to helper functions are inlined, or become calls of device
// functions when inlining would copy too much code (funcs.go); phis become
// moves. A variable a parallel loop combines over its iterations, a
// reduction (reduce.go), adds a task that combines the blocks' results;
// indices, slice expressions and divisions get Go's run-time checks
// (fault.go).
//
// Everything the lowering cannot translate is reported as a Diagnostic with
// the position of the offending construct; the analyzer reports the same
// diagnostics in editors and go vet.
package lower

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"github.com/qdgo/qd/check"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// QDPath is the import path of the package kernels import for in-kernel
// markers such as qd.StreamParallel.
const QDPath = "github.com/qdgo/qd"

// A Diagnostic is a positioned message about a kernel.
type Diagnostic struct {
	Pos     token.Pos
	Message string
}

// Config adjusts the lowering.
type Config struct {
	// CheckOnly lowers for diagnostics alone: calls to functions whose
	// bodies are not available are accepted when External allows them, and
	// the IR is not checked. The analyzer works this way, one package at a
	// time.
	CheckOnly bool
	// External decides whether a function of another package, whose body is
	// not loaded, may be called from a kernel: it returns nil to allow the
	// call, or the reason it is not allowed, and whether the function is
	// pure (reads and writes no memory).
	External func(fn *ssa.Function) (pure bool, err error)
	// Note, if set, receives informational diagnostics: where the
	// lowering keeps serial a loop that a reader may expect to run in
	// parallel, and why. They are not errors; qdgen -v prints them.
	Note func(Diagnostic)
	// Warn, if set, receives warnings: code that works as Go does but
	// most likely not as its writer meant, such as a loop that runs on one
	// GPU thread because it is inside a top-level if. They are not errors;
	// qdgen prints them always, the analyzer as diagnostics of category
	// "warning".
	Warn func(Diagnostic)
	// SkipDependenceCheck accepts parallel loops whose iterations conflict
	// through memory, for the tests that show the CPU race mode finding
	// such conflicts at run time.
	SkipDependenceCheck bool
	// CalledOnce names the shared functions (libfuncs.go) that the
	// module's code calls from one place only (ModuleCalledOnce of its
	// kernels lowered and optimized without it): each is inlined where
	// it is called, which removes its call and copies no code.
	CalledOnce map[string]bool
}

// Kernel lowers the kernel function fn to checked, unoptimized IR.
func Kernel(fn *ssa.Function, cfg *Config) (*ir.Kernel, []Diagnostic) {
	if cfg == nil {
		cfg = &Config{}
	}
	l := newLowerer(cfg, fn)
	k := l.kernel()
	if len(l.diags) > 0 {
		return nil, l.sortedDiags()
	}
	if cfg.CheckOnly {
		return k, nil
	}
	if err := k.Check(); err != nil {
		return nil, []Diagnostic{{fn.Pos(), fmt.Sprintf("internal error: lowering produced invalid IR: %v", err)}}
	}
	return k, nil
}

// CheckHelper reports why fn cannot be called from a kernel, if it cannot:
// its signature or body uses something the GPU does not support. The
// analyzer uses it to tell other packages which of their functions kernels
// may call.
func CheckHelper(fn *ssa.Function, cfg *Config) []Diagnostic {
	if cfg == nil {
		cfg = &Config{CheckOnly: true}
	}
	l := newLowerer(cfg, fn)
	l.checkHelper(fn)
	return l.sortedDiags()
}

// lowerer holds the state of one kernel's lowering.
type lowerer struct {
	cfg    *Config
	fn     *ssa.Function
	fset   *token.FileSet
	k      *ir.Kernel
	diags  []Diagnostic
	seen   map[diagKey]bool
	noted  map[diagKey]bool
	warned map[diagKey]bool

	params     map[*ssa.Parameter]int // kernel parameter → ir.Kernel.Params index
	taskSerial int                    // for task names
	pure       map[ssa.Value]bool     // memo of isPure
	// Stream-parallel blocks: the cells of captured variables and the value
	// each stands for, the blocks' free variables and the values they
	// capture, the closures that are blocks, and each block's position.
	cells         map[*ssa.Alloc]ssa.Value
	captured      map[*ssa.FreeVar]ssa.Value
	freeVars      map[*ssa.FreeVar]*ssa.Alloc // structs and arrays blocks rebuild
	blockClosures map[*ssa.MakeClosure]bool
	notLiteral    map[*ssa.Call]bool
	blocks        []token.Pos
	// failed holds the values reported as unsupported; what uses them is
	// not reported again.
	failed map[ssa.Value]bool
	// tables maps the package-level variables the kernel reads to their
	// constant tables in Kernel.Data.
	tables map[*ssa.Global]int
	// Helpers planned as bodies (inlineplan.go): what their parameters
	// stand for while one of their tasks is planned or built, and the
	// helpers being planned.
	bound    map[*ssa.Parameter]ssa.Value
	planning []*ssa.Function
	// replays holds, for each local variable later tasks rebuild, the
	// instructions that build it (replay.go); nil for one they cannot.
	replays map[*ssa.Alloc]map[ssa.Instruction]bool
	// replayFailure says why the last variable found not replayable is
	// not, for its diagnostic.
	replayFailure string
	// recursive is the memo of mayRecurse.
	recursive map[*ssa.Function]bool
	reach     map[[2]*ssa.Function]bool // reaches
	// endless says of each function checked for loops that never end
	// whether it has one.
	endless map[*ssa.Function]bool
	// Device functions (funcs.go): the size of each helper inlined, the
	// calls of each function, the index of each function in the kernel's
	// Funcs (-1 while it is being lowered), and the names taken.
	sizes     map[*ssa.Function]int
	calls     map[*ssa.Function]int
	checked   map[*ssa.Function]bool // whether a helper may get checks
	inlined   int                    // instructions inlined so far
	tooLarge  bool                   // reported that they are too many
	funcIndex map[*ssa.Function]int
	funcNames map[string]bool

	// Checks: the kernel's fault sites, whether it checks no bounds
	// (//qd:kernel nobounds), and the ranges its loops keep indices in.
	sites    map[ir.Site]int
	noBounds bool
	// rounded holds, per function, the multiplies whose products an
	// explicit conversion rounds, for fma kernels (fma.go).
	rounded map[*ssa.Function]map[token.Pos]bool
	facts   map[*ssa.Function]map[ssa.Value][]rangeFact

	// results maps the value of each reduction after its loop to it.
	results map[ssa.Value]*reduction

	// loopIndexes describes the loop of each parallel task, for the
	// dependence check; syntax holds the kernel's syntax and that of the
	// functions inlined into it, where diagnostics find accesses' source.
	loopIndexes map[*ir.Task]*check.Loop
	nestIndexes map[*ir.Task][]*check.Loop
	// serialSwitches says where each parallel loop task can switch to
	// running on one thread (version.go).
	serialSwitches map[*ir.Task]*serialSwitch // each level of a loop nest's task
	syntax         []ast.Node
	// Block-level kernels (blocks.go): the qd.Blocks and qd.Threads calls
	// that bound loops planned as such, and the shared variables of the
	// task being built.
	markers      map[*ssa.Call]bool
	sharedAllocs map[*ssa.Alloc]bool
	sharedNoZero map[*ssa.Alloc]bool // stored all over before any use
	sharedNoWait map[*ssa.Alloc]bool // zeroes first used by the threads that stored them
	threadAllocs map[*ssa.Alloc]types.Type
	threadOwn    map[*ssa.IndexAddr]bool
	collectives  map[*ssa.Call]bool // the block collectives placed in a qd.Blocks loop's body
	// threadIndexes describes the thread loops of each block-level task
	// for the dependence check.
	threadIndexes map[*ir.Task][]*check.Loop
}

type diagKey struct {
	pos token.Pos
	msg string
}

func (l *lowerer) errorf(pos token.Pos, format string, args ...any) {
	for i, a := range args {
		if t, ok := a.(types.Type); ok {
			args[i] = types.TypeString(t, l.qualifier) // as the user writes it
		}
	}
	msg := fmt.Sprintf(format, args...)
	if l.seen == nil {
		l.seen = make(map[diagKey]bool)
	}
	if l.seen[diagKey{pos, msg}] {
		return
	}
	l.seen[diagKey{pos, msg}] = true
	l.diags = append(l.diags, Diagnostic{pos, msg})
}

// note passes an informational diagnostic to Config.Note, once: a helper
// planned in several places notes its loops once.
func (l *lowerer) note(pos token.Pos, format string, args ...any) {
	if l.cfg.Note == nil {
		return
	}
	key := diagKey{pos, fmt.Sprintf(format, args...)}
	if l.noted[key] {
		return
	}
	if l.noted == nil {
		l.noted = make(map[diagKey]bool)
	}
	l.noted[key] = true
	l.cfg.Note(Diagnostic{key.pos, key.msg})
}

// warn passes a warning to the configuration's Warn, once per position
// and message.
func (l *lowerer) warn(pos token.Pos, format string, args ...any) {
	if l.cfg.Warn == nil {
		return
	}
	key := diagKey{pos, fmt.Sprintf(format, args...)}
	if l.warned[key] {
		return
	}
	if l.warned == nil {
		l.warned = make(map[diagKey]bool)
	}
	l.warned[key] = true
	l.cfg.Warn(Diagnostic{key.pos, key.msg})
}

// qualifier names packages in types as code of the kernel's package
// does: its own types unqualified, others by package name.
func (l *lowerer) qualifier(p *types.Package) string {
	if l.fn != nil && l.fn.Pkg != nil && p == l.fn.Pkg.Pkg {
		return ""
	}
	return p.Name()
}

func (l *lowerer) sortedDiags() []Diagnostic {
	sort.SliceStable(l.diags, func(i, j int) bool { return l.diags[i].Pos < l.diags[j].Pos })
	return l.diags
}

func newLowerer(cfg *Config, fn *ssa.Function) *lowerer {
	return &lowerer{cfg: cfg, fn: fn, fset: fn.Prog.Fset, failed: make(map[ssa.Value]bool), pure: make(map[ssa.Value]bool),
		results: make(map[ssa.Value]*reduction), loopIndexes: make(map[*ir.Task]*check.Loop), nestIndexes: make(map[*ir.Task][]*check.Loop),
		serialSwitches: make(map[*ir.Task]*serialSwitch), markers: make(map[*ssa.Call]bool), collectives: make(map[*ssa.Call]bool),
		threadIndexes: make(map[*ir.Task][]*check.Loop)}
}

// kernel lowers l.fn.
func (l *lowerer) kernel() *ir.Kernel {
	fn := l.fn
	l.k = &ir.Kernel{Name: fn.Name(), Pos: fn.Pos(), Source: l.fset}
	sig := fn.Signature
	if sig.Recv() != nil {
		l.errorf(fn.Pos(), "kernel %s is a method: a kernel must be a plain function", fn.Name())
		return l.k
	}
	if fn.TypeParams().Len() > 0 || len(fn.TypeArgs()) > 0 {
		l.errorf(fn.Pos(), "kernel %s is generic: a kernel must be a plain, non-generic function", fn.Name())
	}
	if sig.Results().Len() > 0 {
		l.errorf(fn.Pos(), "kernel %s returns results: kernels return nothing; write results into a slice parameter", fn.Name())
	}
	if sig.Variadic() {
		l.errorf(fn.Pos(), "kernel %s is variadic: pass a slice parameter instead", fn.Name())
	}
	l.params = make(map[*ssa.Parameter]int)
	for _, p := range fn.Params {
		params, ok := l.kernelParam(p)
		if !ok {
			continue
		}
		l.params[p] = len(l.k.Params)
		l.k.Params = append(l.k.Params, params...)
		if _, size := l.k.ArgSlots(); size > ir.MaxArgBytes {
			l.errorf(p.Pos(), "kernel %s's parameters up to %s take %d bytes, more than the %d bytes a GPU launch can pass (a slice takes 16): pass fewer parameters, for example several arrays in one slice", fn.Name(), p.Name(), size, ir.MaxArgBytes)
			return l.k
		}
	}
	if len(l.diags) > 0 {
		return l.k
	}
	if fn.Blocks == nil {
		l.errorf(fn.Pos(), "kernel %s has no body", fn.Name())
		return l.k
	}
	l.kernelOptions(fn)
	l.syntax = append(l.syntax, fn.Syntax())
	l.lowerBody()
	return l.k
}

// kernelParam maps a kernel parameter to its IR description.
func (l *lowerer) kernelParam(p *ssa.Parameter) ([]ir.Param, bool) {
	t := p.Type()
	if passedFlat(t) {
		return l.aggregateParams(p)
	}
	if s, ok := t.Underlying().(*types.Slice); ok {
		if _, err := leaves(s.Elem()); err != nil {
			l.errorf(p.Pos(), "kernel parameter %s has type %s: %v; slice parameters hold numbers, bools, complex numbers, and structs and arrays of these", p.Name(), t, err)
			return nil, false
		}
		if et, ok := basicType(s.Elem()); ok {
			return []ir.Param{{Name: p.Name(), Slice: true, Type: et}}, true
		}
		return []ir.Param{{Name: p.Name(), Slice: true, ElemSize: int(elemSize(s.Elem()))}}, true
	}
	bt, ok := basicType(t)
	if !ok {
		l.errorf(p.Pos(), "kernel parameter %s has type %s: kernel parameters must be slices, numbers, bools, or structs and arrays of numbers and bools; pass a complex value as its real and imaginary parts, or in a slice of one element", p.Name(), t)
		return nil, false
	}
	return []ir.Param{{Name: p.Name(), Type: bt}}, true
}

// IsPureFunction reports whether fn reads and writes no memory, so that a
// value it returns can be recomputed in any task.
func IsPureFunction(fn *ssa.Function, cfg *Config) bool {
	if cfg == nil {
		cfg = &Config{}
	}
	return newLowerer(cfg, fn).pureFunction(fn)
}
