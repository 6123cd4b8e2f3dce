package ir

// The op table holds every fact about an op that more than one place needs:
// the printer and the parser, the sanity checker, the passes, the lowering
// and host expressions all read it, so a new op is one row here (and one
// case in evalPure or the interpreter, and one per emitter).

// OpInfo is the row of one op in the op table.
type OpInfo struct {
	// Name is the op's name in the printed form.
	Name string
	// Types are the types the instruction's Type may have. An op with none
	// is untyped: it is printed without a type, and its Type is its result
	// type.
	Types TypeSet
	// From are the types the instruction's From may have, for the ops that
	// read From, which is printed after Type: "convert.f32.i64".
	From TypeSet
	// Result is the type of the result; NoResult for none.
	Result TypeRule
	// Operands gives the type of each operand.
	Operands []TypeRule
	// Aux says what the instruction's Aux holds.
	Aux AuxKind
	// Memory is how the op touches device memory. An op that touches it
	// takes the address as its first operand, so that the block race check
	// in package lower can follow every address to its parameter.
	Memory MemoryEffect
	// SideEffects marks ops that must be kept when their result is unused.
	SideEffects bool
	// Commutative ops give the same result with their operands swapped.
	Commutative bool
	// Mirror is the op that gives the same result as this one with the
	// operands swapped, for the ordered comparisons: lt and gt, le and ge.
	Mirror Op
	// Expr marks the ops that host expressions (Expr) may use.
	Expr bool
	// Pure marks the ops evalPure computes: their result depends on their
	// operands alone, so they may be folded.
	Pure bool
	// Parallel marks the ops that only parallel tasks may use.
	Parallel bool
	// SameSize marks the ops whose Type and From must have the same size:
	// they reinterpret bits.
	SameSize bool
	// Spaces marks the ops whose address may point into any memory space,
	// which Instr.Space names.
	Spaces bool
	// Checks marks the ops that may end the thread with a fault. Passes
	// must not move memory accesses across them.
	Checks bool
	// Atomic marks the ops that touch memory in one indivisible step:
	// threads running them on one element at the same time do not race.
	Atomic bool
}

// TypeSet is a set of types.
type TypeSet uint16

// Sets of types the op table uses.
const (
	Integers TypeSet = 1<<Int8 | 1<<Int16 | 1<<Int32 | 1<<Int64 | Unsigned
	Unsigned TypeSet = 1<<Uint8 | 1<<Uint16 | 1<<Uint32 | 1<<Uint64
	Floats   TypeSet = 1<<Float32 | 1<<Float64
	Numeric          = Integers | Floats
	// Words are the integer types every GPU updates atomically in one
	// instruction.
	Words = 1<<Int32 | 1<<Int64 | 1<<Uint32 | 1<<Uint64
	// Scalars are the types a scalar kernel parameter may have.
	Scalars = Numeric | 1<<Bool
)

// Has reports whether t is in s.
func (s TypeSet) Has(t Type) bool { return t < 16 && s&(1<<t) != 0 }

// List returns the types of s in order.
func (s TypeSet) List() []Type {
	var ts []Type
	for t := range Type(16) {
		if s.Has(t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// TypeRule gives the type of a result or an operand: the instruction's
// Type, its From, or a fixed type.
type TypeRule uint8

const (
	// NoResult is the rule of an op without a result.
	NoResult TypeRule = TypeRule(Invalid)
	// OfType is the instruction's Type.
	OfType TypeRule = 254
	// OfFrom is the instruction's From.
	OfFrom TypeRule = 255
)

// Fixed is the rule for the type t whatever the instruction's types.
func Fixed(t Type) TypeRule { return TypeRule(t) }

// Of applies the rule to an instruction.
func (r TypeRule) Of(in *Instr) Type {
	switch r {
	case OfType:
		return in.Type
	case OfFrom:
		return in.From
	}
	return Type(r)
}

// AuxKind says what an instruction's Aux holds.
type AuxKind uint8

const (
	NoAux       AuxKind = iota
	ScalarParam         // the index of a scalar parameter, printed as its name
	SliceParam          // the index of a slice parameter, printed as its name
	ElemSize            // an element size in bytes, printed after the operands
	VarIndex            // the index of a task variable, printed as its name
	DataIndex           // the index of a kernel's constant table, printed as its name
	SiteIndex           // the index of a kernel's fault site, printed as "site N" after the operands
	FuncIndex           // the index of a function of the kernel, printed as its name
	FormatIndex         // the index of a kernel's print format, printed as "format N" after the operands
)

// MemoryEffect is how an op touches device memory.
type MemoryEffect uint8

const (
	MemNone      MemoryEffect = 0
	MemRead      MemoryEffect = 1
	MemWrite     MemoryEffect = 2
	MemReadWrite MemoryEffect = MemRead | MemWrite // an atomic update
)

// Reads reports whether the op reads memory.
func (m MemoryEffect) Reads() bool { return m&MemRead != 0 }

// Writes reports whether the op writes memory.
func (m MemoryEffect) Writes() bool { return m&MemWrite != 0 }

// Operand lists shared by many rows.
var (
	oneOfType     = []TypeRule{OfType}
	atomicUpdate  = []TypeRule{Fixed(Ptr), OfType}
	twoOfType     = []TypeRule{OfType, OfType}
	shiftOperands = []TypeRule{OfType, OfFrom}
)

var opTable = [numOps]OpInfo{
	OpInvalid: {Name: "invalid"},

	OpConst:       {Name: "const", Types: Scalars, Result: OfType, Operands: oneOfType, Expr: true, Pure: true},
	OpParam:       {Name: "param", Types: Scalars, Result: OfType, Aux: ScalarParam, Expr: true},
	OpParamBase:   {Name: "base", Result: Fixed(Ptr), Aux: SliceParam},
	OpParamLen:    {Name: "len", Result: Fixed(Int64), Aux: SliceParam, Expr: true},
	OpThreadIndex: {Name: "threadindex", Result: Fixed(Int64), Parallel: true},
	OpThreadCount: {Name: "threadcount", Result: Fixed(Int64), Parallel: true},

	OpMove: {Name: "move", Types: Scalars | 1<<Ptr, Result: OfType, Operands: oneOfType, Pure: true},

	OpNeg: {Name: "neg", Types: Numeric, Result: OfType, Operands: oneOfType, Expr: true, Pure: true},
	OpNot: {Name: "not", Types: Integers | 1<<Bool, Result: OfType, Operands: oneOfType, Expr: true, Pure: true},

	OpAdd:    {Name: "add", Types: Numeric, Result: OfType, Operands: twoOfType, Commutative: true, Expr: true, Pure: true},
	OpSub:    {Name: "sub", Types: Numeric, Result: OfType, Operands: twoOfType, Expr: true, Pure: true},
	OpMul:    {Name: "mul", Types: Numeric, Result: OfType, Operands: twoOfType, Commutative: true, Expr: true, Pure: true},
	OpDiv:    {Name: "div", Types: Numeric, Result: OfType, Operands: twoOfType, Expr: true, Pure: true},
	OpRem:    {Name: "rem", Types: Integers, Result: OfType, Operands: twoOfType, Expr: true, Pure: true},
	OpAnd:    {Name: "and", Types: Integers | 1<<Bool, Result: OfType, Operands: twoOfType, Commutative: true, Expr: true, Pure: true},
	OpOr:     {Name: "or", Types: Integers | 1<<Bool, Result: OfType, Operands: twoOfType, Commutative: true, Expr: true, Pure: true},
	OpXor:    {Name: "xor", Types: Integers | 1<<Bool, Result: OfType, Operands: twoOfType, Commutative: true, Expr: true, Pure: true},
	OpAndNot: {Name: "andnot", Types: Integers, Result: OfType, Operands: twoOfType, Expr: true, Pure: true},

	OpShl: {Name: "shl", Types: Integers, From: Integers, Result: OfType, Operands: shiftOperands, Expr: true, Pure: true},
	OpShr: {Name: "shr", Types: Integers, From: Integers, Result: OfType, Operands: shiftOperands, Expr: true, Pure: true},

	OpMulHi: {Name: "mulhi", Types: Integers, Result: OfType, Operands: twoOfType, Commutative: true, Pure: true},

	OpEq: {Name: "eq", Types: Numeric | 1<<Bool, Result: Fixed(Bool), Operands: twoOfType, Commutative: true, Pure: true},
	OpNe: {Name: "ne", Types: Numeric | 1<<Bool, Result: Fixed(Bool), Operands: twoOfType, Commutative: true, Pure: true},
	OpLt: {Name: "lt", Types: Numeric, Result: Fixed(Bool), Operands: twoOfType, Mirror: OpGt, Pure: true},
	OpLe: {Name: "le", Types: Numeric, Result: Fixed(Bool), Operands: twoOfType, Mirror: OpGe, Pure: true},
	OpGt: {Name: "gt", Types: Numeric, Result: Fixed(Bool), Operands: twoOfType, Mirror: OpLt, Pure: true},
	OpGe: {Name: "ge", Types: Numeric, Result: Fixed(Bool), Operands: twoOfType, Mirror: OpLe, Pure: true},

	OpConvert: {Name: "convert", Types: Numeric, From: Numeric, Result: OfType, Operands: []TypeRule{OfFrom}, Expr: true, Pure: true},

	OpMin: {Name: "min", Types: Numeric, Result: OfType, Operands: twoOfType, Commutative: true, Expr: true, Pure: true},
	OpMax: {Name: "max", Types: Numeric, Result: OfType, Operands: twoOfType, Commutative: true, Expr: true, Pure: true},

	OpSqrt:  {Name: "sqrt", Types: Floats, Result: OfType, Operands: oneOfType, Pure: true},
	OpAbs:   {Name: "abs", Types: Floats, Result: OfType, Operands: oneOfType, Pure: true},
	OpFloor: {Name: "floor", Types: Floats, Result: OfType, Operands: oneOfType, Pure: true},
	OpCeil:  {Name: "ceil", Types: Floats, Result: OfType, Operands: oneOfType, Pure: true},
	OpTrunc: {Name: "trunc", Types: Floats, Result: OfType, Operands: oneOfType, Pure: true},

	OpRoundEven: {Name: "roundeven", Types: Floats, Result: OfType, Operands: oneOfType, Pure: true},
	OpFMA:       {Name: "fma", Types: Floats, Result: OfType, Operands: []TypeRule{OfType, OfType, OfType}, Pure: true},

	OpBitcast: {Name: "bitcast", Types: Numeric, From: Numeric | 1<<Ptr, Result: OfType, Operands: []TypeRule{OfFrom}, Pure: true, SameSize: true},

	OpPopCount:      {Name: "popcount", Types: Unsigned, Result: OfType, Operands: oneOfType, Pure: true},
	OpLeadingZeros:  {Name: "clz", Types: Unsigned, Result: OfType, Operands: oneOfType, Pure: true},
	OpTrailingZeros: {Name: "ctz", Types: Unsigned, Result: OfType, Operands: oneOfType, Pure: true},
	OpBitReverse:    {Name: "brev", Types: Unsigned, Result: OfType, Operands: oneOfType, Pure: true},
	OpByteSwap:      {Name: "bswap", Types: 1<<Uint16 | 1<<Uint32 | 1<<Uint64, Result: OfType, Operands: oneOfType, Pure: true},

	OpElemAddr: {Name: "elemaddr", Result: Fixed(Ptr), Operands: []TypeRule{Fixed(Ptr), Fixed(Int64)}, Aux: ElemSize, Pure: true},
	OpLoad:     {Name: "load", Types: Scalars, Result: OfType, Operands: []TypeRule{Fixed(Ptr)}, Memory: MemRead, Spaces: true},
	OpStore:    {Name: "store", Types: Scalars, Result: NoResult, Operands: []TypeRule{Fixed(Ptr), OfType}, Memory: MemWrite, SideEffects: true, Spaces: true},

	OpAddr:     {Name: "addr", Result: Fixed(Ptr), Aux: VarIndex},
	OpDataAddr: {Name: "dataaddr", Result: Fixed(Ptr), Aux: DataIndex},
	OpBarrier:  {Name: "barrier", Result: NoResult, SideEffects: true},

	OpBlockIndex:  {Name: "blockindex", Result: Fixed(Int64), Parallel: true},
	OpBlockCount:  {Name: "blockcount", Result: Fixed(Int64), Parallel: true},
	OpBlockThread: {Name: "blockthread", Result: Fixed(Int64), Parallel: true},
	OpBlockSize:   {Name: "blocksize", Result: Fixed(Int64), Parallel: true},
	OpLane:        {Name: "lane", Result: Fixed(Int64), Parallel: true},
	OpWarpIndex:   {Name: "warpindex", Result: Fixed(Int64), Parallel: true},
	OpWarpSize:    {Name: "warpsize", Result: Fixed(Int64)},
	// A shuffle is executed by the threads of a warp together: passes
	// must neither remove nor move it, as for an op with side effects.
	OpShuffleDown: {Name: "shuffledown", Types: Numeric, Result: OfType, Operands: []TypeRule{OfType, Fixed(Int64)}, SideEffects: true, Parallel: true},
	OpShuffleUp:   {Name: "shuffleup", Types: Numeric, Result: OfType, Operands: []TypeRule{OfType, Fixed(Int64)}, SideEffects: true, Parallel: true},

	OpScratch: {Name: "scratch", Result: Fixed(Ptr)},

	OpCheckIndex:  {Name: "checkindex", Result: NoResult, Operands: []TypeRule{Fixed(Int64), Fixed(Int64)}, Aux: SiteIndex, SideEffects: true, Checks: true},
	OpCheckSlice:  {Name: "checkslice", Result: NoResult, Operands: []TypeRule{Fixed(Int64), Fixed(Int64)}, Aux: SiteIndex, SideEffects: true, Checks: true},
	OpCheckDivide: {Name: "checkdiv", Types: Integers, Result: NoResult, Operands: oneOfType, Aux: SiteIndex, SideEffects: true, Checks: true},

	OpAtomicAdd:   {Name: "atomadd", Types: Numeric, Result: OfType, Operands: atomicUpdate, Memory: MemReadWrite, SideEffects: true, Spaces: true, Atomic: true},
	OpAtomicMin:   {Name: "atommin", Types: Numeric, Result: OfType, Operands: atomicUpdate, Memory: MemReadWrite, SideEffects: true, Spaces: true, Atomic: true},
	OpAtomicMax:   {Name: "atommax", Types: Numeric, Result: OfType, Operands: atomicUpdate, Memory: MemReadWrite, SideEffects: true, Spaces: true, Atomic: true},
	OpAtomicAnd:   {Name: "atomand", Types: Words, Result: OfType, Operands: atomicUpdate, Memory: MemReadWrite, SideEffects: true, Spaces: true, Atomic: true},
	OpAtomicOr:    {Name: "atomor", Types: Words, Result: OfType, Operands: atomicUpdate, Memory: MemReadWrite, SideEffects: true, Spaces: true, Atomic: true},
	OpAtomicSwap:  {Name: "atomswap", Types: Words, Result: OfType, Operands: atomicUpdate, Memory: MemReadWrite, SideEffects: true, Spaces: true, Atomic: true},
	OpAtomicCAS:   {Name: "atomcas", Types: Words, Result: OfType, Operands: []TypeRule{Fixed(Ptr), OfType, OfType}, Memory: MemReadWrite, SideEffects: true, Spaces: true, Atomic: true},
	OpAtomicLoad:  {Name: "atomload", Types: Words, Result: OfType, Operands: []TypeRule{Fixed(Ptr)}, Memory: MemRead, Spaces: true, Atomic: true},
	OpAtomicStore: {Name: "atomstore", Types: Words, Result: NoResult, Operands: atomicUpdate, Memory: MemWrite, SideEffects: true, Spaces: true, Atomic: true},

	// A call's operands and results are its callee's parameters and
	// results (Kernel.ArgTypes), and its effects on memory the callee's.
	OpCall: {Name: "call", Result: NoResult, Aux: FuncIndex, SideEffects: true},

	// A print's operands are its format's (Kernel.ArgTypes).
	OpPrint: {Name: "print", Result: NoResult, Aux: FormatIndex, SideEffects: true},
}

// Info returns the op's row of the op table; an op out of range gets the
// row of OpInvalid.
func (op Op) Info() *OpInfo {
	if op < numOps {
		return &opTable[op]
	}
	return &opTable[OpInvalid]
}

func (op Op) String() string {
	if op < numOps {
		return opTable[op].Name
	}
	return "op?"
}

// Ops lists every valid op in order.
func Ops() []Op {
	ops := make([]Op, 0, numOps-1)
	for op := OpInvalid + 1; op < numOps; op++ {
		ops = append(ops, op)
	}
	return ops
}

// opsByName finds an op by its printed name, for the parser.
var opsByName = func() map[string]Op {
	m := map[string]Op{}
	for _, op := range Ops() {
		m[opTable[op].Name] = op
	}
	return m
}()

// ResultType is the type of the instruction's result register; Invalid
// when it has none.
func (in *Instr) ResultType() Type { return in.Op.Info().Result.Of(in) }

// ArgTypes lists the type of each operand the instruction expects: for a
// call, its callee's parameter types; for a print, its format's.
func (k *Kernel) ArgTypes(in *Instr) []Type {
	if in.Op == OpPrint {
		if in.Aux >= 0 && int(in.Aux) < len(k.Prints) {
			return k.Prints[in.Aux].Types
		}
		return nil
	}
	if in.Op != OpCall {
		return in.ArgTypes()
	}
	if f := k.Callee(in); f != nil {
		return f.ParamTypes()
	}
	return nil
}

// Callee returns the function a call calls, or nil.
func (k *Kernel) Callee(in *Instr) *Task {
	if in.Op != OpCall || in.Aux < 0 || int(in.Aux) >= len(k.Funcs) {
		return nil
	}
	return k.Funcs[in.Aux]
}

// ParamTypes lists the types of a function's parameters.
func (t *Task) ParamTypes() []Type { return t.regTypes(t.Params) }

// ResultTypes lists the types of a function's results.
func (t *Task) ResultTypes() []Type { return t.regTypes(t.Results) }

func (t *Task) regTypes(regs []Reg) []Type {
	types := make([]Type, len(regs))
	for i, r := range regs {
		if r >= 0 && int(r) < len(t.Regs) {
			types[i] = t.Regs[r]
		}
	}
	return types
}

// ArgTypes lists the type of each operand the instruction expects; a call
// needs its kernel's (Kernel.ArgTypes).
func (in *Instr) ArgTypes() []Type {
	rules := in.Op.Info().Operands
	if len(rules) == 0 {
		return nil
	}
	types := make([]Type, len(rules))
	for i, r := range rules {
		types[i] = r.Of(in)
	}
	return types
}
