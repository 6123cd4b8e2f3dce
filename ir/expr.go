package ir

// Expr is a pure expression over a kernel's parameters, used where the host
// must compute a value before a launch (a parallel task's iteration count).
// Its ops are those whose row of the op table has Expr set: OpConst (Bits),
// OpParam and OpParamLen (Aux is the parameter index), OpConvert (From), and
// the pure arithmetic, bitwise, shift, min and max ops. Type is the result
// type. Integer division and remainder appear only with a non-zero constant
// divisor, so evaluating an Expr cannot fail.
type Expr struct {
	Op   Op
	Type Type
	From Type
	Args []*Expr
	Aux  int64
	Bits uint64
}

// Eval computes e. scalar returns the normalized bits of scalar parameter i;
// length returns the length of slice parameter i.
func (e *Expr) Eval(scalar func(i int) uint64, length func(i int) int64) uint64 {
	switch e.Op {
	case OpConst:
		return e.Bits
	case OpParam:
		return e.Type.Normalize(scalar(int(e.Aux)))
	case OpParamLen:
		return uint64(length(int(e.Aux)))
	}
	args := make([]uint64, len(e.Args))
	for i, a := range e.Args {
		args[i] = a.Eval(scalar, length)
	}
	in := Instr{Op: e.Op, Type: e.Type, From: e.From}
	v, err := evalPure(&in, args)
	if err != nil {
		panic("ir: Expr.Eval: " + err.Error()) // excluded by construction
	}
	return v
}
